// Command chunking trains a CoNLL-2000 chunker (noun phrases, verb phrases,
// ...: IOB2 tags such as B-NP and I-NP) with the classic CRF++ template in
// chunking.template, on the training split embedded in the corpora package,
// and reports chunk precision, recall and F1 on the test split in the manner
// of the conlleval script (eval.Evaluation). Run it from the repository root:
//
//	go run ./examples/chunking                # 1,000 training sentences: a few seconds, F1 ~0.90
//	go run ./examples/chunking -n 0           # all 8,936 sentences: ~30 s of CPU, 0.42 GB, F1 ~0.936
//	go run ./examples/chunking -report        # the full conlleval-style report
//	go run ./examples/chunking -save /tmp/chunk.model   # keep the model, e.g. for examples/server
//	go run ./examples/chunking -h             # all flags
//
// The penalty is given in the sum form of CRFsuite and Wapiti,
// sum_i NLL_i + c1 ||w||_1 + c2 ||w||^2 (flags -c1 and -c2); train.Options
// documents how it maps to the paper's form. Training stops when the duality
// gap is below -epsilon or when the objective improved by less than -delta over
// 10 iterations (CRFsuite's rule). The template is embedded in the program;
// -template reads another one. Ctrl-C stops training cleanly.
package main

import (
	"context"
	_ "embed"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"time"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/corpora"
	"github.com/sparsetag/sparsetag/dataset"
	"github.com/sparsetag/sparsetag/features"
	"github.com/sparsetag/sparsetag/sparse"
	"github.com/sparsetag/sparsetag/train"
)

//go:embed chunking.template
var defaultTemplate string

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(0)
		}
		fmt.Fprintln(os.Stderr, "chunking:", err)
		os.Exit(1)
	}
}

type config struct {
	n, test       int
	template      string
	c1, c2        float64
	epsilon       float64
	delta         float64
	maxIter       int
	report        bool
	verbose       bool
	observedPairs bool
	save          string
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("chunking", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg config
	fs.IntVar(&cfg.n, "n", 1000, "number of training sentences (the first n of the training split); 0 means all 8,936")
	fs.IntVar(&cfg.test, "test", 0, "number of test sentences; 0 means all 2,012")
	fs.StringVar(&cfg.template, "template", "", "CRF++ template file (default: the embedded chunking.template)")
	fs.Float64Var(&cfg.c1, "c1", 1, "L1 penalty, sum form")
	fs.Float64Var(&cfg.c2, "c2", 1, "L2 penalty, sum form")
	fs.Float64Var(&cfg.epsilon, "epsilon", 1e-6, "target duality gap of the average-form objective")
	fs.Float64Var(&cfg.delta, "delta", 1e-5, "stop when the objective improved by less than this (relative) over 10 iterations; 0 disables")
	fs.IntVar(&cfg.maxIter, "max-iter", 300, "iteration limit")
	fs.BoolVar(&cfg.observedPairs, "observed", false, "only (attribute, label) pairs seen in training get weights (CRFsuite's default)")
	fs.BoolVar(&cfg.report, "report", false, "print the conlleval-style report with per-type scores")
	fs.BoolVar(&cfg.verbose, "v", false, "print every training iteration")
	fs.StringVar(&cfg.save, "save", "", "write the trained model to this file (for examples/server or `tagger tag`)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return fmt.Errorf("unexpected arguments %q (use flags)", fs.Args())
	}
	if cfg.n < 0 || cfg.test < 0 {
		return errors.New("-n and -test must not be negative")
	}
	return chunk(ctx, cfg, stdout, stderr)
}

// chunk trains a chunker as cfg asks on the embedded CoNLL-2000 training
// split, reports on stdout (every iteration on stderr with -v), saves the
// model with -save, and scores it on the test split.
func chunk(ctx context.Context, cfg config, stdout, stderr io.Writer) error {
	t0 := time.Now()
	tmpl, err := loadTemplate(cfg.template)
	if err != nil {
		return err
	}
	trainEx, testEx, err := conllExamples(cfg.n, cfg.test)
	if err != nil {
		return err
	}
	enc := features.NewTemplateEncoder(tmpl)
	m, c, err := dataset.NewTrainingModel(enc, trainEx, 1)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "train: %d sentences, %d tokens, %d labels, %d attributes, %d features\n",
		c.Len(), c.Positions(), m.NumLabels(), enc.Unary().Len()+enc.Pair().Len(), len(m.W))
	if err := fit(ctx, cfg, m, c, stdout, stderr); err != nil {
		return err
	}
	if cfg.save != "" {
		if err := m.SaveFile(cfg.save); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote %s\n", cfg.save)
	}
	if err := score(m, testEx, cfg.report, stdout); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "total time %.1fs\n", time.Since(t0).Seconds())
	return nil
}

// loadTemplate compiles the template file named by path, or the embedded
// chunking.template when path is empty; a template error names the file.
func loadTemplate(path string) (*features.Template, error) {
	src := defaultTemplate
	if path != "" {
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		src = string(b)
	}
	tmpl, err := features.Compile(src)
	if err != nil {
		if te, ok := err.(*features.TemplateError); ok && path != "" {
			te.File = path
		}
		return nil, err
	}
	return tmpl, nil
}

// conllExamples returns the first n sentences of the embedded CoNLL-2000
// training split and the first nTest of its test split (0: all) as
// examples.
func conllExamples(n, nTest int) (trainEx, testEx []dataset.Example, err error) {
	trainSet, err := corpora.EmbeddedCoNLL2000("train")
	if err != nil {
		return nil, nil, err
	}
	test, err := corpora.EmbeddedCoNLL2000("test")
	if err != nil {
		return nil, nil, err
	}
	if n > 0 && n < len(trainSet) {
		trainSet = trainSet[:n]
	}
	if nTest > 0 && nTest < len(test) {
		test = test[:nTest]
	}
	trainEx = make([]dataset.Example, len(trainSet))
	for i, s := range trainSet {
		trainEx[i] = dataset.FromSequence("embedded:conll2000/train.txt.gz", s)
	}
	testEx = make([]dataset.Example, len(test))
	for i, s := range test {
		testEx[i] = dataset.FromSequence("embedded:conll2000/test.txt.gz", s)
	}
	return trainEx, testEx, nil
}

// fit trains m on c with cfg's penalty and stopping rule and reports the
// result on stdout (every iteration on stderr with -v).
func fit(ctx context.Context, cfg config, m *chain.Model, c *sparse.Corpus, stdout, stderr io.Writer) error {
	opts := train.Options{
		Problem:  train.Problem{SumForm: true, C1: cfg.c1, C2: cfg.c2, ObservedPairs: cfg.observedPairs},
		Stopping: train.Stopping{Epsilon: cfg.epsilon, Delta: cfg.delta, MaxIter: cfg.maxIter},
	}
	if cfg.verbose {
		opts.Progress = func(it train.Iteration) {
			fmt.Fprintf(stderr, "iter %4d  objective %.6f  gap %.2e  nonzero %d  screened %d  %.1fs\n",
				it.Iter, it.Primal, it.Gap, it.NonZero, it.Screened, it.Seconds)
		}
	}
	res, err := train.Train(ctx, m, c, opts)
	if err != nil {
		return fmt.Errorf("training: %w", err)
	}
	fmt.Fprintf(stdout, "trained: %d iterations (%s), gap %.1e, %d non-zero of %d weights, %d screened, %.1fs\n",
		res.NumIterations(), res.StopReason, res.Gap, res.NonZero, res.Dimension, res.Screened, res.Seconds)
	return nil
}

// score tags the test examples with m and prints token accuracy and chunk
// precision, recall and F1, or with report the conlleval-style report.
func score(m *chain.Model, testEx []dataset.Example, report bool, stdout io.Writer) error {
	// dataset.EvaluateAll tags the test sentences on all cores and compares.
	ev, err := dataset.EvaluateAll(chain.NewTagger(m), testEx, 0)
	if err != nil {
		return err
	}
	overall, _ := ev.Chunks()
	fmt.Fprintf(stdout, "test: %d sentences, %d tokens, %d chunks\n", ev.Sequences, ev.Tokens, overall.Gold)
	if report {
		return ev.WriteReport(stdout)
	}
	fmt.Fprintf(stdout, "token accuracy %.4f\n", ev.Accuracy())
	fmt.Fprintf(stdout, "chunks: precision %.4f, recall %.4f, F1 %.4f\n", overall.Precision, overall.Recall, overall.F1)
	return nil
}
