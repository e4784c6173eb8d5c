// Command ocr recognizes handwritten words with a linear-chain CRF over their
// letters, trained on the OCR data set of Taskar et al. (2003) that is
// embedded in the corpora package: 6,877 words of 16x8 binary letter images,
// split into 10 folds.
//
// It trains on some folds with chain.Train (elastic net, Pinsker screening),
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
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/corpora"
	"github.com/sparsetag/sparsetag/features"
	"github.com/sparsetag/sparsetag/sparse"
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

func recognize(ctx context.Context, cfg config, stdout, stderr io.Writer) error {
	t0 := time.Now()
	words, err := corpora.EmbeddedOCR(corpora.OCROptions{Folds: append(cfg.train[:len(cfg.train):len(cfg.train)], cfg.test...)})
	if err != nil {
		return err
	}
	var trainWords, testWords []corpora.Word
	for _, w := range words {
		if slices.Contains(cfg.train, w.Fold) {
			trainWords = append(trainWords, w)
		}
		if slices.Contains(cfg.test, w.Fold) {
			testWords = append(testWords, w)
		}
	}
	if len(trainWords) == 0 || len(testWords) == 0 {
		return fmt.Errorf("no words in train folds %v or test folds %v (the folds are 0-9)", cfg.train, cfg.test)
	}

	// Encode the training words: one binary attribute per lit pixel, and
	// with -rich also pairs of adjacent lit pixels, row and column counts and
	// a per-label bias.
	var po features.PixelOptions
	if cfg.rich {
		po = features.PixelPairs | features.PixelCounts | features.PixelBias
	}
	enc := features.NewPixelEncoder(po)
	c, labels, err := encode(enc, trainWords)
	if err != nil {
		return err
	}
	m, err := chain.NewModel(labels, enc.Unary().Len(), enc.Pair().Len(), enc.HasTransitions(), enc)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "train: folds %v, %d words, %d letters; test: folds %v, %d words\n",
		cfg.train, c.Len(), c.Positions(), cfg.test, len(testWords))
	fmt.Fprintf(stdout, "model: %d labels, %d attributes, %d features\n", len(labels), enc.Unary().Len(), len(m.W))

	opts := chain.Options{BetaRatio: cfg.betaRatio, Epsilon: cfg.epsilon, MaxIter: cfg.maxIter}
	if cfg.verbose {
		opts.Progress = func(it chain.Iteration) {
			fmt.Fprintf(stderr, "iter %4d  objective %.6f  gap %.2e  nonzero %d  screened %d  %.1fs\n",
				it.Iter, it.Primal, it.Gap, it.NonZero, it.Screened, it.Seconds)
		}
	}
	res, err := chain.Train(ctx, m, c, opts)
	if err != nil {
		return fmt.Errorf("training: %w", err)
	}
	fmt.Fprintf(stdout, "trained: %d iterations (%s), gap %.1e, %d non-zero weights, %d screened, %.1fs\n",
		len(res.Iterations)-1, res.StopReason, res.Gap, res.NonZero, res.Screened, res.Seconds)

	pred, err := tagAll(chain.NewTagger(m), testWords)
	if err != nil {
		return err
	}
	ev := chain.NewEvaluation()
	for i, w := range testWords {
		if err := ev.Add(w.Labels, pred[i]); err != nil {
			return err
		}
	}
	fmt.Fprintf(stdout, "letter accuracy: %.4f (%d of %d)\n", ev.Accuracy(), ev.Correct, ev.Tokens)
	fmt.Fprintf(stdout, "word accuracy:   %.4f (%d of %d)\n", ev.SequenceAccuracy(), ev.SequencesCorrect, ev.Sequences)

	if cfg.show > 0 {
		fmt.Fprintf(stdout, "\n%-16s %-16s %s\n", "predicted", "true", "wrong letters")
		step := max(1, len(testWords)/cfg.show)
		for i := 0; i < len(testWords) && i/step < cfg.show; i += step {
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
	fmt.Fprintf(stdout, "\ntotal time %.1fs\n", time.Since(t0).Seconds())
	return nil
}

// encode builds the label set (in order of first appearance) and encodes
// the words into a corpus, growing the encoder's dictionary; it then freezes
// the encoder for tagging.
func encode(enc *features.Encoder, words []corpora.Word) (*sparse.Corpus, []string, error) {
	var labels []string
	ids := map[string]int32{}
	c := &sparse.Corpus{}
	var y []int32
	for _, w := range words {
		y = y[:0]
		for _, l := range w.Labels {
			id, ok := ids[l]
			if !ok {
				id = int32(len(labels))
				ids[l] = id
				labels = append(labels, l)
			}
			y = append(y, id)
		}
		if err := enc.EncodePixels(c, w.Pixels, y, true); err != nil {
			return nil, nil, fmt.Errorf("word %d (line %d): %w", w.ID, w.Line, err)
		}
	}
	enc.Freeze(0)
	return c, labels, nil
}

// tagAll tags the words on all cores (a Tagger is safe for concurrent use)
// and returns the predicted letters in input order.
func tagAll(tg *chain.Tagger, words []corpora.Word) ([][]string, error) {
	out := make([][]string, len(words))
	errs := make([]error, len(words))
	workers := min(runtime.GOMAXPROCS(0), len(words))
	var wg sync.WaitGroup
	for k := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var path []int
			for i := k; i < len(words); i += workers {
				var err error
				path, err = tg.TagPixels(path, words[i].Pixels)
				if err != nil {
					errs[i] = fmt.Errorf("word %d: %w", words[i].ID, err)
					continue
				}
				out[i] = tg.Labels(nil, path)
			}
		}()
	}
	wg.Wait()
	return out, errors.Join(errs...)
}

// parseFolds parses "1", "1-9" or "0,2,4".
func parseFolds(s string) ([]int, error) {
	var out []int
	for part := range strings.SplitSeq(s, ",") {
		lo, hi, isRange := strings.Cut(strings.TrimSpace(part), "-")
		a, err := strconv.Atoi(lo)
		if err != nil {
			return nil, fmt.Errorf("bad fold %q (want e.g. 0, 1-9 or 0,2,4)", part)
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil || b < a {
				return nil, fmt.Errorf("bad fold range %q", part)
			}
		}
		for f := a; f <= b; f++ {
			out = append(out, f)
		}
	}
	return out, nil
}
