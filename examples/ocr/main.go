// Command ocr recognizes handwritten words with a linear-chain CRF over their
// letters, trained on the OCR data set of Taskar et al. (2003) that is
// embedded in the corpora package: 6,877 words of 16x8 binary letter images,
// split into 10 folds.
//
// It trains on some folds with train.Train (elastic net, Pinsker screening),
// tags the words of another fold, and reports letter accuracy, word accuracy
// (every letter right) and a few words as predicted and true. Run it from the
// repository root:
//
//	go run ./examples/ocr                    # folds 1-3 -> fold 0, lit pixels only: a few seconds, letters ~0.79
//	go run ./examples/ocr -rich              # adds pixel pairs, row/column counts, bias: 10-20 s, letters ~0.86
//	go run ./examples/ocr -rich -beta-ratio 0.003 -train 1-9   # more data, weaker penalty: several minutes
//	go run ./examples/ocr -v                 # print every training iteration
//	go run ./examples/ocr -h                 # all flags
//
// The first letter of every word is missing from the data set (it was a
// capital), so words look truncated: "ommanding" is "commanding".
// Ctrl-C stops training cleanly.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"time"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/corpora"
	"github.com/sparsetag/sparsetag/dataset"
	"github.com/sparsetag/sparsetag/eval"
	"github.com/sparsetag/sparsetag/features"
	"github.com/sparsetag/sparsetag/sparse"
	"github.com/sparsetag/sparsetag/train"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(0)
		}
		fmt.Fprintln(os.Stderr, "ocr:", err)
		os.Exit(1)
	}
}

type config struct {
	train, test []int
	betaRatio   float64
	epsilon     float64
	maxIter     int
	show        int
	verbose     bool
	rich        bool
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("ocr", flag.ContinueOnError)
	fs.SetOutput(stderr)
	trainFolds := fs.String("train", "1-3", "folds to train on, e.g. 1, 1-9 or 1,3,5")
	testFolds := fs.String("test", "0", "folds to test on")
	var cfg config
	fs.Float64Var(&cfg.betaRatio, "beta-ratio", 0.01, "regularization beta as a fraction of beta_max (smaller: more non-zero weights, slower)")
	fs.Float64Var(&cfg.epsilon, "epsilon", 1e-4, "target duality gap (the paper uses 1e-6)")
	fs.IntVar(&cfg.maxIter, "max-iter", 500, "iteration limit")
	fs.IntVar(&cfg.show, "show", 8, "number of test words to print")
	fs.BoolVar(&cfg.verbose, "v", false, "print every training iteration")
	fs.BoolVar(&cfg.rich, "rich", false, "add pixel-pair, row/column count and bias attributes to the lit pixels")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return fmt.Errorf("unexpected arguments %q (use flags)", fs.Args())
	}
	var err error
	if cfg.train, err = parseFolds(*trainFolds); err != nil {
		return fmt.Errorf("-train: %w", err)
	}
	if cfg.test, err = parseFolds(*testFolds); err != nil {
		return fmt.Errorf("-test: %w", err)
	}
	return recognize(ctx, cfg, stdout, stderr)
}

// recognize trains a recognizer as cfg asks on the embedded OCR words of
// cfg.train's folds, reports on stdout (every iteration on stderr with -v),
// and scores it on the words of cfg.test's folds.
func recognize(ctx context.Context, cfg config, stdout, stderr io.Writer) error {
	t0 := time.Now()
	trainWords, testWords, err := foldWords(cfg.train, cfg.test)
	if err != nil {
		return err
	}
	// Encode the training words: one binary attribute per lit pixel, and
	// with -rich also pairs of adjacent lit pixels, row and column counts and
	// a per-label bias.
	var po features.PixelOptions
	if cfg.rich {
		po = features.PixelPairs | features.PixelCounts | features.PixelBias
	}
	enc := features.NewPixelEncoder(po)
	m, c, err := dataset.NewTrainingModel(enc, toExamples(trainWords), 1)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "train: folds %v, %d words, %d letters; test: folds %v, %d words\n",
		cfg.train, c.Len(), c.Positions(), cfg.test, len(testWords))
	fmt.Fprintf(stdout, "model: %d labels, %d attributes, %d features\n", m.NumLabels(), enc.Unary().Len(), len(m.W))
	if err := fit(ctx, cfg, m, c, stdout, stderr); err != nil {
		return err
	}
	pred, err := score(m, testWords, stdout)
	if err != nil {
		return err
	}
	if cfg.show > 0 {
		showWords(stdout, testWords, pred, cfg.show)
	}
	fmt.Fprintf(stdout, "\ntotal time %.1fs\n", time.Since(t0).Seconds())
	return nil
}

// foldWords returns the embedded OCR words of the train folds and those of
// the test folds; neither may be empty.
func foldWords(train, test []int) (trainWords, testWords []corpora.Word, err error) {
	words, err := corpora.EmbeddedOCR(corpora.OCROptions{Folds: append(train[:len(train):len(train)], test...)})
	if err != nil {
		return nil, nil, err
	}
	for _, w := range words {
		if slices.Contains(train, w.Fold) {
			trainWords = append(trainWords, w)
		}
		if slices.Contains(test, w.Fold) {
			testWords = append(testWords, w)
		}
	}
	if len(trainWords) == 0 || len(testWords) == 0 {
		return nil, nil, fmt.Errorf("no words in train folds %v or test folds %v (the folds are 0-9)", train, test)
	}
	return trainWords, testWords, nil
}

// toExamples returns the words as examples.
func toExamples(words []corpora.Word) []dataset.Example {
	out := make([]dataset.Example, len(words))
	for i, w := range words {
		out[i] = dataset.FromWord("embedded:ocr/letter.data.gz", w)
	}
	return out
}

// fit trains m on c with cfg's penalty and stopping rule and reports the
// result on stdout (every iteration on stderr with -v).
func fit(ctx context.Context, cfg config, m *chain.Model, c *sparse.Corpus, stdout, stderr io.Writer) error {
	opts := train.Options{Problem: train.Problem{BetaRatio: cfg.betaRatio}, Stopping: train.Stopping{Epsilon: cfg.epsilon, MaxIter: cfg.maxIter}}
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
	fmt.Fprintf(stdout, "trained: %d iterations (%s), gap %.1e, %d non-zero weights, %d screened, %.1fs\n",
		res.NumIterations(), res.StopReason, res.Gap, res.NonZero, res.Screened, res.Seconds)
	return nil
}

// score tags the test words with m, prints letter and word accuracy, and
// returns the predicted labels.
func score(m *chain.Model, testWords []corpora.Word, stdout io.Writer) ([][]string, error) {
	pred, err := dataset.TagAll(chain.NewTagger(m), toExamples(testWords), 0)
	if err != nil {
		return nil, err
	}
	ev := eval.NewEvaluation()
	for i, w := range testWords {
		if err := ev.Add(w.Labels, pred[i]); err != nil {
			return nil, err
		}
	}
	fmt.Fprintf(stdout, "letter accuracy: %.4f (%d of %d)\n", ev.Accuracy(), ev.Correct, ev.Tokens)
	fmt.Fprintf(stdout, "word accuracy:   %.4f (%d of %d)\n", ev.SequenceAccuracy(), ev.SequencesCorrect, ev.Sequences)
	return pred, nil
}

// showWords prints about show test words, evenly spaced, with their
// predicted and true letters and a ^ under every wrong letter.
func showWords(stdout io.Writer, testWords []corpora.Word, pred [][]string, show int) {
	fmt.Fprintf(stdout, "\n%-16s %-16s %s\n", "predicted", "true", "wrong letters")
	step := max(1, len(testWords)/show)
	for i := 0; i < len(testWords) && i/step < show; i += step {
		truth := strings.Join(testWords[i].Labels, "")
		guess := strings.Join(pred[i], "")
		marks := make([]byte, len(truth))
		for t := range marks {
			marks[t] = ' '
			if truth[t] != guess[t] {
				marks[t] = '^'
			}
		}
		fmt.Fprintf(stdout, "%-16s %-16s %s\n", guess, truth, marks)
	}
}

// parseFolds parses "1", "1-9" or "0,2,4" (dataset.ParseFolds, where ""
// would mean all folds).
func parseFolds(s string) ([]int, error) {
	if strings.TrimSpace(s) == "" {
		return nil, errors.New("no folds given (want e.g. 0, 1-9 or 0,2,4)")
	}
	return dataset.ParseFolds(s)
}
