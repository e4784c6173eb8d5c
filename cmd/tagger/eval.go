package main

import (
	"fmt"

	"github.com/sparsetag/sparsetag/chain"
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
	ev, err := evaluate(chain.NewTagger(m), exs)
	if err != nil {
		return err
	}
	return writeEval(e, ev)
}

// evaluate tags exs and compares with their labels.
func evaluate(tg *chain.Tagger, exs []example) (*chain.Evaluation, error) {
	pred, err := tagAll(tg, exs)
	if err != nil {
		return nil, err
	}
	ev := chain.NewEvaluation()
	for i := range exs {
		if err := ev.Add(exs[i].labels, pred[i]); err != nil {
			return nil, err
		}
	}
	return ev, nil
}

func writeEval(e *env, ev *chain.Evaluation) error {
	fmt.Fprintf(e.stdout, "sequences: %d, entirely correct: %d (sequence accuracy %.4f)\n", ev.Sequences, ev.SequencesCorrect, ev.SequenceAccuracy())
	return ev.WriteReport(e.stdout)
}
