package main

import (
	"fmt"
	"time"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/cmd/tagger/internal/paperbench"
	"github.com/sparsetag/sparsetag/cmd/tagger/internal/trainselect"
	"github.com/sparsetag/sparsetag/dataset"
	"github.com/sparsetag/sparsetag/features"
	"github.com/sparsetag/sparsetag/sparse"
	"github.com/sparsetag/sparsetag/train"
)

// selectModel trains by model selection: a regularization path from
// beta_max down to --select-floor beta_max (warm starts, screening,
// working sets; below it, down to --select-hard-floor, while the score
// still rises there), each model scored on the --select file
// (trainselect.SelectOnDev) or by --select-folds cross-validation
// (trainselect.SelectByFolds), stopped once the score has peaked; it keeps
// the best model.
func selectModel(e *env, path string, tf *trainFlags, op train.Options, m *chain.Model, c *sparse.Corpus, exs []dataset.Example) (*chain.Model, error) {
	if err := tf.checkSelect(); err != nil {
		return nil, err
	}
	t0 := time.Now()
	hard := tf.hardFloor
	if !(hard < tf.selectFloor) {
		hard = 0 // no extension below the floor
	}
	rep := &trainselect.SelectReport{Train: path, Dev: tf.selectDev, Folds: tf.selectFolds, Betas: tf.betas, Floor: tf.selectFloor, HardFloor: hard, Sequences: c.Len()}
	cfg := trainselect.SelectConfig{Betas: tf.betas, Floor: tf.selectFloor, HardFloor: hard, Patience: tf.patience}
	if !tf.quiet {
		cfg.Log = e.stderr
	}
	var err error
	if tf.selectDev != "" {
		err = selectOnDev(e, tf, op, m, c, cfg, rep)
	} else {
		err = selectByFolds(e, tf, op, m, c, exs, cfg, rep)
	}
	if err != nil {
		return nil, err
	}
	rep.SecondsTotal = time.Since(t0).Seconds()
	rep.Print(e.stdout)
	_, interrupted := e.intr.Signal()
	if err := saveModel(tf.log(e, interrupted), m, tf.model, tf.modelFormat, interrupted, len(rep.Path) > 0); err != nil {
		return nil, err
	}
	if tf.report != "" {
		if err := paperbench.WriteJSON(tf.report, rep); err != nil {
			return nil, fmt.Errorf("the model is saved, but the report is not: %w", err)
		}
	}
	if interrupted {
		// The path ended at the interrupted beta; the best model so far
		// is saved.
		return nil, e.intr.Err()
	}
	return m, nil
}

func (tf *trainFlags) checkSelect() error {
	switch {
	case tf.selectDev != "" && tf.selectFolds > 0:
		return usagef("give --select FILE or --select-folds K, not both")
	case tf.selectFolds == 1 || tf.selectFolds < 0:
		return usagef("--select-folds must be >= 2")
	case tf.selectFolds > 0 && tf.cache != "":
		return usagef("--select-folds does not combine with --cache (each fold encodes its own part of the text)")
	case tf.valid != "" || tf.ckpt != "" || tf.init != "":
		return usagef("--select does not combine with --valid, --checkpoint or --init")
	case tf.c1 == 0:
		return usagef("--select needs --c1 > 0 (with --c2 it fixes the L1/L2 ratio; the path varies the penalty)")
	case tf.betas < 2 || tf.betas > paperbench.MaxBetas || !(tf.selectFloor > 0 && tf.selectFloor < 1):
		return usagef("--select needs 2 <= --betas <= %d and 0 < --select-floor < 1", paperbench.MaxBetas)
	case !(tf.hardFloor >= 0):
		return usagef("--select-hard-floor must be >= 0")
	case tf.patience < 1:
		return usagef("--patience must be >= 1")
	}
	return nil
}

// fileScorer rates weights of m by their F1 on the labeled file path
// (--format, --valid-folds; trainselect.F1Scorer).
func fileScorer(e *env, tf *trainFlags, m *chain.Model, path string) (train.Scorer, error) {
	exs, err := readExamples(path, dataFlags{format: tf.format, folds: tf.validFold, labelColumn: tf.labelColumn}, true, e.stdin)
	if err != nil {
		return nil, err
	}
	return trainselect.F1Scorer(m, exs)
}

// selectOnDev selects on the --select file, also scoring every model on
// the --select-eval file; an interrupt ends the path at its beta.
func selectOnDev(e *env, tf *trainFlags, op train.Options, m *chain.Model, c *sparse.Corpus, cfg trainselect.SelectConfig, rep *trainselect.SelectReport) error {
	var err error
	if cfg.Score, err = fileScorer(e, tf, m, tf.selectDev); err != nil {
		return err
	}
	if tf.selectEval != "" {
		if cfg.Eval, err = fileScorer(e, tf, m, tf.selectEval); err != nil {
			return err
		}
		cfg.EvalName = tf.selectEval
	}
	op.Interrupt = e.intr.Done() // the path ends at the interrupted beta
	return trainselect.SelectOnDev(e.intr.Work(e.ctx), m, c, op, cfg, rep)
}

// selectByFolds selects by --select-folds K cross-validation of the
// training examples, each fold encoded with its own dictionary.
func selectByFolds(e *env, tf *trainFlags, op train.Options, m *chain.Model, c *sparse.Corpus, exs []dataset.Example, cfg trainselect.SelectConfig, rep *trainselect.SelectReport) error {
	K := tf.selectFolds
	if len(exs) < K {
		return usagef("--select-folds %d needs at least %d training sequences, have %d", K, K, len(exs))
	}
	cfg.Folds, cfg.MinFreq = K, tf.minFreq
	if tf.prior != "" {
		var err error
		if cfg.Prior, err = chain.LoadFile(tf.prior); err != nil {
			return fmt.Errorf("--prior: %w", err)
		}
	}
	cfg.NewEncoder = func() (*features.Encoder, error) { return tf.newEncoder() }
	return trainselect.SelectByFolds(e.ctx, m, c, op, exs, cfg, rep)
}
