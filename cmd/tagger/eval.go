package main

import (
	"fmt"
	"github.com/sparsetag/sparsetag/cmd/tagger/internal/clifile"
	"runtime"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/cmd/tagger/internal/flagcheck"
	"github.com/sparsetag/sparsetag/cmd/tagger/internal/memlimit"
	"github.com/sparsetag/sparsetag/dataset"
	"github.com/sparsetag/sparsetag/eval"
	"github.com/sparsetag/sparsetag/scheme"
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
and the last model's labels are scored.

Chunks are read in every scheme at once (IOB1, IOB2, IOE, IOBES and
BILOU, as conlleval reads IOB). --scheme iob1|iob2|iobes|bilou checks that
the (last) model's labels fit the scheme and decodes only valid sequences
of it, as tag --scheme does; --posterior evaluates posterior
(max-marginal) decoding, as tag --posterior does; --constraints FILE adds
a file of forbidden or allowed transitions, as tag --constraints does.`

func runEval(e *env, args []string) error {
	var df dataFlags
	var models modelList
	var threads int
	var schemeName, trans string
	var posterior bool
	fs := newFlagSet(e, "eval", evalUsage,
		"tagger eval --format conll --model chunk.model test.txt")
	fs.StringVar(&df.format, "format", "conll", "input `format`: conll, crfsuite, conllu or ocr")
	fs.StringVar(&df.folds, "folds", "", "OCR folds to use, e.g. `0` (default all)")
	fs.Var(&models, "model", "model `file`: this toolkit's, embedded:models/en-pos.model or embedded:models/en-chunk.model, or CRFsuite, CRF++ or Wapiti; repeat for a pipeline (default tagger.model)")
	df.labelColumnFlag(fs)
	fs.IntVar(&threads, "threads", runtime.GOMAXPROCS(0), "tag on `N` goroutines")
	fs.StringVar(&schemeName, "scheme", "", "decode only sequences valid in the label `scheme`: iob1, iob2, iobes or bilou")
	fs.StringVar(&trans, "constraints", "", "decode only sequences the transitions `file` allows (see tagger tag -h)")
	fs.BoolVar(&posterior, "posterior", false, "posterior (max-marginal) decoding instead of Viterbi")
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
	var sch scheme.Scheme
	if schemeName != "" {
		if sch, err = scheme.Parse(schemeName); err != nil {
			return usageError{err}
		}
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
	opt := chain.DecodeOptions{MaxMarginal: posterior}
	if sch != 0 {
		paths := models.paths()
		l, err := scheme.NewLabels(sch, m.Labels())
		if err != nil {
			return fmt.Errorf("--scheme %s: the labels of %s do not fit: %w", sch, paths[len(paths)-1], err)
		}
		opt.Constraints = chain.SchemeConstraints(l)
	}
	if opt.Constraints, err = addConstraintsFile(opt.Constraints, trans, m.Labels()); err != nil {
		return err
	}
	r, in, err := openExamples(e, input, df, true)
	if err != nil {
		return dataset.EvalInputError(err, clifile.Name(input))
	}
	defer in.Close()
	ev, err := tagging.EvaluateDecode(m, r, threads, opt)
	if err != nil {
		return dataset.EvalInputError(err, clifile.Name(input))
	}
	return writeEval(e, ev)
}

func writeEval(e *env, ev *eval.Evaluation) error {
	fmt.Fprintf(e.stdout, "sequences: %d, entirely correct: %d (sequence accuracy %.4f)\n", ev.Sequences, ev.SequencesCorrect, ev.SequenceAccuracy())
	return ev.WriteReport(e.stdout)
}
