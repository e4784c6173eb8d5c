package main

import (
	"fmt"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/dataset"
)

func runEval(e *env, args []string) error {
	var df dataFlags
	var modelPath string
	fs := newFlagSet(e, "eval", "[flags] LABELED-FILE",
		"tagger eval --format conll --model chunk.model test.txt")
	fs.StringVar(&df.format, "format", "conll", "input `format`: conll, crfsuite, conllu or ocr")
	fs.StringVar(&df.folds, "folds", "", "OCR folds to use, e.g. `0` (default all)")
	fs.StringVar(&modelPath, "model", "tagger.model", "model `file`")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("want exactly one labeled file (or - for stdin), got %d", len(pos))
	}
	m, err := chain.LoadFile(modelPath)
	if err != nil {
		return err
	}
	if m.Encoder == nil {
		return chain.ErrNoEncoder
	}
	if err := checkFormat(df.format, m.Encoder.Kind()); err != nil {
		return err
	}
	exs, err := readExamples(pos[0], df, true, e.stdin)
	if err != nil {
		return err
	}
	ev, err := dataset.Evaluate(chain.NewTagger(m), exs, 0)
	if err != nil {
		return err
	}
	return writeEval(e, ev)
}

func writeEval(e *env, ev *chain.Evaluation) error {
	fmt.Fprintf(e.stdout, "sequences: %d, entirely correct: %d (sequence accuracy %.4f)\n", ev.Sequences, ev.SequencesCorrect, ev.SequenceAccuracy())
	return ev.WriteReport(e.stdout)
}
