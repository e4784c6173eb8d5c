package main

import (
	"fmt"
	"runtime"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/dataset"
)

const evalUsage = `[flags] [LABELED-FILE]

Tags every sequence of LABELED-FILE (standard input when it is "-" or
missing) and compares with its labels: token accuracy and, for chunk
labels, conlleval-style chunk scores. The input is streamed: memory is
bounded by a batch of sequences, not by the input's size.

--model may also name a CRFsuite, CRF++ or Wapiti model (see tagger tag -h);
the input is then read in the format the model reads, the last column (or,
for CRFsuite, the first field) being the label.`

func runEval(e *env, args []string) error {
	var df dataFlags
	var modelPath string
	var threads int
	fs := newFlagSet(e, "eval", evalUsage,
		"tagger eval --format conll --model chunk.model test.txt")
	fs.StringVar(&df.format, "format", "conll", "input `format`: conll, crfsuite, conllu or ocr")
	fs.StringVar(&df.folds, "folds", "", "OCR folds to use, e.g. `0` (default all)")
	fs.StringVar(&modelPath, "model", "tagger.model", "model `file`: this toolkit's, or CRFsuite, CRF++ or Wapiti")
	fs.IntVar(&threads, "threads", runtime.GOMAXPROCS(0), "tag on `N` goroutines")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	input, err := inputArg(pos)
	if err != nil {
		return err
	}
	if threads < 1 {
		return usagef("--threads must be at least 1, got %d", threads)
	}
	m, err := loadModel(modelPath)
	if err != nil {
		return err
	}
	boundHeap(e)
	var tag func(w int, dst []string, ex *dataset.Example) ([]string, error)
	if m.peer != nil {
		if df.format, err = peerInputFormat(fs, df.format, m.peer); err != nil {
			return err
		}
		paths := make([][]int, threads)
		labels := m.peer.Labels()
		tag = func(w int, dst []string, ex *dataset.Example) ([]string, error) {
			var err error
			if paths[w], err = m.peer.Tag(paths[w], peerSequence(ex)); err != nil {
				return dst, err
			}
			for _, y := range paths[w] {
				dst = append(dst, labels[y])
			}
			return dst, nil
		}
	} else {
		if m.ours.Encoder == nil {
			return chain.ErrNoEncoder
		}
		if err := checkFormat(df.format, m.ours.Encoder.Kind()); err != nil {
			return err
		}
		tag = dataset.TagFunc(m.tg, threads)
	}
	r, closeInput, err := openExamples(input, df, true, e.stdin)
	if err != nil {
		return err
	}
	defer closeInput()
	ev, err := dataset.EvaluateStream(r, threads, dataset.DefaultBatch, tag)
	if err != nil {
		return err
	}
	return writeEval(e, ev)
}

func writeEval(e *env, ev *chain.Evaluation) error {
	fmt.Fprintf(e.stdout, "sequences: %d, entirely correct: %d (sequence accuracy %.4f)\n", ev.Sequences, ev.SequencesCorrect, ev.SequenceAccuracy())
	return ev.WriteReport(e.stdout)
}
