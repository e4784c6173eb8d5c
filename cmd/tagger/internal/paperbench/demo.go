package paperbench

import (
	"context"
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

// DemoConfig configures Demo (tagger demo).
type DemoConfig struct {
	TrainFolds, TestFolds []int     // OCR folds to train and test on
	FoldNames             [2]string // how the user wrote them (train, test), for the header
	Betas                 int       // number of betas of the path
	MinRatio              float64   // last beta as a fraction of beta_max
	Epsilon               float64   // target gap at each beta
	Show                  int       // number of test words to draw
	Quiet                 bool      // no per-beta table
}

// Demo is tagger demo: it trains a chain CRF on the embedded OCR words of
// cfg.TrainFolds along a short screened regularization path, evaluates it
// on cfg.TestFolds and draws a few test words, all on w.
func Demo(ctx context.Context, cfg DemoConfig, w io.Writer) error {
	t0 := time.Now()
	trainSet, err := corpora.EmbeddedOCR(corpora.OCROptions{Folds: cfg.TrainFolds})
	if err != nil {
		return err
	}
	test, err := corpora.EmbeddedOCR(corpora.OCROptions{Folds: cfg.TestFolds})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "OCR handwritten words (Taskar et al. 2003, embedded): %d training words (folds %s), %d test words (folds %s)\n",
		len(trainSet), cfg.FoldNames[0], len(test), cfg.FoldNames[1])
	m, last, err := demoTrain(ctx, cfg, ocrExamples(trainSet), w)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\nfinal model: %d non-zero weights of %d (%d screened at the last beta)\n", m.NonZero(), len(m.W), last.Screened)
	if err := demoEval(cfg, m, ocrExamples(test), w); err != nil {
		return err
	}
	fmt.Fprintf(w, "total time: %.1fs\n", time.Since(t0).Seconds())
	return nil
}

func ocrExamples(words []corpora.Word) []dataset.Example {
	exs := make([]dataset.Example, len(words))
	for i, wd := range words {
		exs[i] = dataset.FromWord(OCREmbedded, wd)
	}
	return exs
}

// demoTrain trains the demo's model along its path, printing one row per
// beta unless cfg.Quiet; it returns the model and the last beta's result.
func demoTrain(ctx context.Context, cfg DemoConfig, exs []dataset.Example, w io.Writer) (*chain.Model, *train.Result, error) {
	m, c, err := dataset.NewTrainingModel(features.NewPixelEncoder(0), exs, 1)
	if err != nil {
		return nil, nil, err
	}
	fmt.Fprintf(w, "model: linear-chain CRF over letters, one attribute per lit pixel: %d features\n", len(m.W))
	fmt.Fprintf(w, "training: elastic net (alpha = 1), %d betas from beta_max down to %g beta_max, warm starts, Pinsker safe screening, gap <= %g\n\n",
		cfg.Betas, cfg.MinRatio, cfg.Epsilon)
	if !cfg.Quiet {
		fmt.Fprintf(w, "%5s %10s %6s %9s %9s %9s %8s\n", "beta", "/beta_max", "iters", "nonzero", "screened", "gap", "seconds")
	}
	op := train.Options{Problem: train.Problem{Alpha: 1}, Stopping: train.Stopping{Epsilon: cfg.Epsilon}, Method: train.Method{Screen: train.ScreenPinsker}}
	var last *train.Result
	_, err = train.Path(ctx, m, c, op, train.PathOptions{K: cfg.Betas, MinRatio: cfg.MinRatio}, func(k int, r *train.Result, _ []float64) error {
		last = r
		if !cfg.Quiet {
			fmt.Fprintf(w, "%5d %10.4f %6d %9d %9d %9.2e %8.1f\n", k+1, r.Beta/r.BetaMax, r.NumIterations(), r.NonZero, r.Screened, r.Gap, r.Seconds)
		}
		return nil
	})
	return m, last, err
}

// demoEval tags the test words, draws cfg.Show of them (every 97th word)
// with their true and predicted letters, and prints the scores.
func demoEval(cfg DemoConfig, m *chain.Model, test []dataset.Example, w io.Writer) error {
	tg := chain.NewTagger(m)
	ev, err := dataset.EvaluateAll(tg, test, 0)
	if err != nil {
		return err
	}
	var shown []dataset.Example
	for i := 0; i < len(test) && len(shown) < cfg.Show; i += 97 {
		shown = append(shown, test[i])
	}
	pred, err := dataset.TagAll(tg, shown, 1)
	if err != nil {
		return err
	}
	if len(shown) > 0 {
		fmt.Fprintln(w, "\n(the data set's words lack their first letter, a capital that its authors removed: \"ommanding\" is commanding)")
	}
	for i, ex := range shown {
		fmt.Fprintln(w)
		drawWord(w, ex.Pixels)
		fmt.Fprintf(w, "true: %s   predicted: %s\n", strings.Join(ex.Labels, ""), strings.Join(pred[i], ""))
	}
	fmt.Fprintf(w, "\ntest letters: %d, words: %d\n", ev.Tokens, ev.Sequences)
	fmt.Fprintf(w, "letter accuracy: %.4f\n", ev.Accuracy())
	fmt.Fprintf(w, "word accuracy: %.4f\n", ev.SequenceAccuracy())
	fmt.Fprintf(w, "accuracy: %.4f\n", ev.Accuracy())
	fmt.Fprintln(w, "(letters are not chunk tags, so the f1 line repeats the letter accuracy, as it does for any such labels)")
	fmt.Fprintf(w, "f1: %.4f\n", ev.F1())
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
