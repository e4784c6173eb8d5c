package main

import (
	"math"

	"github.com/sparsetag/sparsetag/dataset"
	"github.com/sparsetag/sparsetag/internal/paperbench"
)

// runDemo is the README's main command: with no files it trains a chain CRF
// on the embedded OCR words along a short screened regularization path,
// evaluates it and draws a few test words (paperbench.Demo).
func runDemo(e *env, args []string) error {
	var cfg paperbench.DemoConfig
	fs := newFlagSet(e, "demo", "[flags]", "tagger demo")
	fs.StringVar(&cfg.FoldNames[0], "train-folds", "1-9", "OCR folds to train on")
	fs.StringVar(&cfg.FoldNames[1], "test-folds", "0", "OCR folds to test on")
	fs.IntVar(&cfg.Betas, "betas", 7, "number of beta values on the path")
	fs.Float64Var(&cfg.MinRatio, "min-ratio", 0.003, "last beta as a fraction of beta_max")
	fs.Float64Var(&cfg.Epsilon, "epsilon", 1e-5, "target duality gap at each beta")
	fs.IntVar(&cfg.Show, "show", 3, "number of test words to draw")
	fs.BoolVar(&cfg.Quiet, "quiet", false, "no per-beta progress")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return usagef("demo takes no files: it uses the embedded OCR data")
	}
	if cfg.Betas < 1 || cfg.Betas > maxBetas || !(cfg.MinRatio > 0 && cfg.MinRatio <= 1) || !(cfg.Epsilon > 0) || math.IsInf(cfg.Epsilon, 1) || cfg.Show < 0 {
		return usagef("want 1 <= --betas <= %d, 0 < --min-ratio <= 1, finite --epsilon > 0, --show >= 0", maxBetas)
	}
	if cfg.TrainFolds, err = dataset.ParseFolds(cfg.FoldNames[0]); err != nil {
		return usageError{err}
	}
	if cfg.TestFolds, err = dataset.ParseFolds(cfg.FoldNames[1]); err != nil {
		return usageError{err}
	}
	return paperbench.Demo(e.ctx, cfg, e.stdout)
}
