package main

import (
	"fmt"
	"github.com/sparsetag/sparsetag/cmd/tagger/internal/clifile"
	"runtime"

	"github.com/sparsetag/sparsetag/cmd/tagger/internal/flagcheck"
	"github.com/sparsetag/sparsetag/cmd/tagger/internal/memlimit"
	"github.com/sparsetag/sparsetag/dataset"
	"github.com/sparsetag/sparsetag/eval"
	"github.com/sparsetag/sparsetag/tagging"
)

const evalUsage = `[flags] [LABELED-FILE]

Tags every sequence of LABELED-FILE (standard input when it is "-" or
missing) and compares with its labels: token accuracy and, for chunk
labels, conlleval-style chunk scores. The input is streamed: memory is
bounded by a batch of sequences, not by the input's size. Input without
any sequence is an error (exit status 1): there is nothing to score.

--model may also name a CRFsuite, CRF++ or Wapiti model (see tagger tag -h);
the input is then read in the format the model reads, the last column (or,
for CRFsuite, the first field) being the label.

--label-column N names the label column of conll input (1-based, negative
from the end; default -1, the last); the other columns, in order, are the
token columns. The POS tagger built into the binary on the POS tags of
CoNLL-2000 (column 2):

  tagger eval --format conll --model embedded:models/en-pos.model --label-column 2 embedded:conll2000/test.txt.gz

--model repeated evaluates a pipeline (see tagger tag -h): the labels of
each model but the last become a token column of the next one's input,
and the last model's labels are scored.`

func runEval(e *env, args []string) error {
	var df dataFlags
	var models modelList
	var threads int
	fs := newFlagSet(e, "eval", evalUsage,
		"tagger eval --format conll --model chunk.model test.txt")
	fs.StringVar(&df.format, "format", "conll", "input `format`: conll, crfsuite, conllu or ocr")
	fs.StringVar(&df.folds, "folds", "", "OCR folds to use, e.g. `0` (default all)")
	fs.Var(&models, "model", "model `file`: this toolkit's, embedded:models/en-pos.model or embedded:models/en-chunk.model, or CRFsuite, CRF++ or Wapiti; repeat for a pipeline (default tagger.model)")
	df.labelColumnFlag(fs)
	fs.IntVar(&threads, "threads", runtime.GOMAXPROCS(0), "tag on `N` goroutines")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	input, err := inputArg(pos)
	if err != nil {
		return err
	}
	if err := flagcheck.First(df.check(dataset.LabeledFormats), flagcheck.Threads(threads)); err != nil {
		return usageError{err}
	}
	if _, err := df.checkLabelColumn(fs); err != nil {
		return err
	}
	m, err := loadPipeline(fs, models, df.format)
	if err != nil {
		return err
	}
	if e.tuneGC {
		memlimit.BoundHeap()
	}
	if df.format, err = modelInput(fs, m, df.format, false); err != nil {
		return err
	}
	r, in, err := openExamples(e, input, df, true)
	if err != nil {
		return dataset.EvalInputError(err, clifile.Name(input))
	}
	defer in.Close()
	ev, err := tagging.Evaluate(m, r, threads)
	if err != nil {
		return dataset.EvalInputError(err, clifile.Name(input))
	}
	return writeEval(e, ev)
}

func writeEval(e *env, ev *eval.Evaluation) error {
	fmt.Fprintf(e.stdout, "sequences: %d, entirely correct: %d (sequence accuracy %.4f)\n", ev.Sequences, ev.SequencesCorrect, ev.SequenceAccuracy())
	return ev.WriteReport(e.stdout)
}
