package main

import (
	"fmt"
	"time"

	"github.com/sparsetag/sparsetag/chain"
)

func runDemo(e *env, args []string) error {
	var trainFolds, testFolds string
	var ratio float64
	var quiet bool
	fs := newFlagSet(e, "demo", "[flags]", "tagger demo")
	fs.StringVar(&trainFolds, "train-folds", "1-9", "OCR folds to train on")
	fs.StringVar(&testFolds, "test-folds", "0", "OCR folds to test on")
	fs.Float64Var(&ratio, "beta-ratio", 0.01, "beta as a fraction of beta_max")
	fs.BoolVar(&quiet, "quiet", false, "no training progress")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return usagef("demo takes no files: it uses the embedded OCR data")
	}
	t0 := time.Now()
	fmt.Fprintf(e.stdout, "OCR handwritten words (Taskar et al. 2003), embedded: train on folds %s, test on folds %s\n", trainFolds, testFolds)
	fmt.Fprintf(e.stdout, "model: linear-chain CRF over letters, one attribute per lit pixel, elastic net alpha = 1, beta = %g beta_max, Pinsker screening\n", ratio)
	tf := &trainFlags{
		dataFlags: dataFlags{format: "ocr", folds: trainFolds},
		alpha:     1, betaRatio: ratio, c1: -1, c2: -1, maxIter: 1000, screen: "pinsker", quiet: quiet, minFreq: 1,
	}
	m, err := trainModel(e, embeddedPrefix+"ocr/letter.data.gz", tf)
	if err != nil {
		return err
	}
	exs, err := readExamples(embeddedPrefix+"ocr/letter.data.gz", dataFlags{format: "ocr", folds: testFolds}, true, e.stdin)
	if err != nil {
		return err
	}
	ev, err := evaluate(chain.NewTagger(m), exs)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "test words: %d, letters: %d\n", ev.Sequences, ev.Tokens)
	fmt.Fprintf(e.stdout, "letter accuracy: %.4f\n", ev.Accuracy())
	fmt.Fprintf(e.stdout, "word accuracy: %.4f\n", ev.SequenceAccuracy())
	fmt.Fprintf(e.stdout, "non-zero weights: %d of %d\n", m.NonZero(), len(m.W))
	fmt.Fprintf(e.stdout, "accuracy: %.4f\n", ev.Accuracy())
	fmt.Fprintf(e.stdout, "f1: %.4f\n", ev.F1())
	fmt.Fprintf(e.stdout, "total time: %.1fs\n", time.Since(t0).Seconds())
	return nil
}
