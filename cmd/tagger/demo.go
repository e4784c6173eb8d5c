package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/corpora"
	"github.com/sparsetag/sparsetag/dataset"
	"github.com/sparsetag/sparsetag/features"
	"github.com/sparsetag/sparsetag/train"
)

// runDemo is the README's main command: with no files it trains a chain CRF
// on the embedded OCR words along a short screened regularization path,
// evaluates it and draws a few test words.
func runDemo(e *env, args []string) error {
	var trainFolds, testFolds string
	var minRatio, eps float64
	var betas, show int
	var quiet bool
	fs := newFlagSet(e, "demo", "[flags]", "tagger demo")
	fs.StringVar(&trainFolds, "train-folds", "1-9", "OCR folds to train on")
	fs.StringVar(&testFolds, "test-folds", "0", "OCR folds to test on")
	fs.IntVar(&betas, "betas", 7, "number of beta values on the path")
	fs.Float64Var(&minRatio, "min-ratio", 0.003, "last beta as a fraction of beta_max")
	fs.Float64Var(&eps, "epsilon", 1e-5, "target duality gap at each beta")
	fs.IntVar(&show, "show", 3, "number of test words to draw")
	fs.BoolVar(&quiet, "quiet", false, "no per-beta progress")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return usagef("demo takes no files: it uses the embedded OCR data")
	}
	if betas < 1 || !(minRatio > 0 && minRatio <= 1) || !(eps > 0) || show < 0 {
		return usagef("want --betas >= 1, 0 < --min-ratio <= 1, --epsilon > 0, --show >= 0")
	}
	t0 := time.Now()
	trainF, err := dataset.ParseFolds(trainFolds)
	if err != nil {
		return usageError{err}
	}
	testF, err := dataset.ParseFolds(testFolds)
	if err != nil {
		return usageError{err}
	}
	trainSet, err := corpora.EmbeddedOCR(corpora.OCROptions{Folds: trainF})
	if err != nil {
		return err
	}
	test, err := corpora.EmbeddedOCR(corpora.OCROptions{Folds: testF})
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "OCR handwritten words (Taskar et al. 2003, embedded): %d training words (folds %s), %d test words (folds %s)\n",
		len(trainSet), trainFolds, len(test), testFolds)
	exs := make([]dataset.Example, len(trainSet))
	for i, w := range trainSet {
		exs[i] = dataset.FromWord("embedded:ocr/letter.data.gz", w)
	}
	enc := features.NewPixelEncoder(0)
	c, labels, err := dataset.EncodeTraining(enc, exs, 1)
	if err != nil {
		return err
	}
	m, err := chain.NewModel(labels, enc.Unary().Len(), 0, true, enc)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "model: linear-chain CRF over letters, one attribute per lit pixel: %d features\n", len(m.W))
	fmt.Fprintf(e.stdout, "training: elastic net (alpha = 1), %d betas from beta_max down to %g beta_max, warm starts, Pinsker safe screening, gap <= %g\n\n",
		betas, minRatio, eps)
	if !quiet {
		fmt.Fprintf(e.stdout, "%5s %10s %6s %9s %9s %9s %8s\n", "beta", "/beta_max", "iters", "nonzero", "screened", "gap", "seconds")
	}
	op := train.Options{Alpha: 1, Epsilon: eps, Screen: train.ScreenPinsker}
	var last *train.Result
	_, err = train.Path(e.ctx, m, c, op, train.PathOptions{K: betas, MinRatio: minRatio}, func(k int, r *train.Result, w []float64) error {
		last = r
		if !quiet {
			fmt.Fprintf(e.stdout, "%5d %10.4f %6d %9d %9d %9.2e %8.1f\n", k+1, r.Beta/r.BetaMax, r.NumIterations(), r.NonZero, r.Screened, r.Gap, r.Seconds)
		}
		return nil
	})
	if err != nil {
		return err
	}
	tg := chain.NewTagger(m)
	ev := chain.NewEvaluation()
	var path []int
	type shown struct {
		w    corpora.Word
		pred []string
	}
	var draw []shown
	for i, w := range test {
		path, err = tg.Tag(path, features.Pixels(w.Pixels))
		if err != nil {
			return err
		}
		pred := tg.Labels(nil, path)
		if err := ev.Add(w.Labels, pred); err != nil {
			return err
		}
		if len(draw) < show && i%97 == 0 {
			draw = append(draw, shown{w, pred})
		}
	}
	fmt.Fprintf(e.stdout, "\nfinal model: %d non-zero weights of %d (%d screened at the last beta)\n", m.NonZero(), len(m.W), last.Screened)
	for _, d := range draw {
		fmt.Fprintln(e.stdout)
		drawWord(e.stdout, d.w.Pixels)
		fmt.Fprintf(e.stdout, "true: %s   predicted: %s\n", strings.Join(d.w.Labels, ""), strings.Join(d.pred, ""))
	}
	fmt.Fprintf(e.stdout, "\ntest letters: %d, words: %d\n", ev.Tokens, ev.Sequences)
	fmt.Fprintf(e.stdout, "letter accuracy: %.4f\n", ev.Accuracy())
	fmt.Fprintf(e.stdout, "word accuracy: %.4f\n", ev.SequenceAccuracy())
	fmt.Fprintf(e.stdout, "accuracy: %.4f\n", ev.Accuracy())
	fmt.Fprintf(e.stdout, "f1: %.4f\n", ev.F1())
	fmt.Fprintf(e.stdout, "total time: %.1fs\n", time.Since(t0).Seconds())
	return nil
}

// drawWord renders the 16x8 letter images of a word side by side, two
// pixel rows per text line.
func drawWord(w io.Writer, letters [][]byte) {
	const rows, cols = corpora.OCRRows, corpora.OCRCols
	var b strings.Builder
	for r := 0; r < rows; r += 2 {
		for _, im := range letters {
			for c := 0; c < cols; c++ {
				top, bot := im[r*cols+c] != 0, im[(r+1)*cols+c] != 0
				switch {
				case top && bot:
					b.WriteString("█")
				case top:
					b.WriteString("▀")
				case bot:
					b.WriteString("▄")
				default:
					b.WriteString(" ")
				}
			}
			b.WriteString("  ")
		}
		b.WriteString("\n")
	}
	io.WriteString(w, b.String())
}
