package trainselect

import (
	"context"
	"fmt"
	"io"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/dataset"
	"github.com/sparsetag/sparsetag/features"
	"github.com/sparsetag/sparsetag/sparse"
	"github.com/sparsetag/sparsetag/train"
	"github.com/sparsetag/sparsetag/train/selection"
)

// SelectConfig configures model selection along a regularization path
// (tagger train --select and --select-folds): a path of Betas penalties
// from beta_max down to Floor beta_max (warm starts, screening, working
// sets), each model scored, stopped once the score has peaked.
type SelectConfig struct {
	Betas    int
	Floor    float64
	Patience int // betas below the best score before the path stops (train.PathOptions.Patience)
	// HardFloor, when > 0 (and below Floor), extends the path below Floor
	// while the score still rises there, down to HardFloor beta_max at
	// most (train.PathOptions.Extend).
	HardFloor float64

	// Score rates each model of SelectOnDev's path (F1 on the development
	// set, F1Scorer). Eval, when not nil, also rates every model, on the
	// file named EvalName (reported, not used to choose).
	Score    train.Scorer
	Eval     train.Scorer
	EvalName string

	// Folds, NewEncoder and MinFreq configure SelectByFolds: Folds folds of
	// the training examples, each encoded with its own encoder (attribute
	// dictionary) from NewEncoder, dropping attributes seen fewer than
	// MinFreq times.
	Folds      int
	NewEncoder func() (*features.Encoder, error)
	MinFreq    int
	// Prior, when not nil, is the old model of --prior: each fold's model
	// is mapped onto it (chain.Model.WithPrior) and trains w = w0 + v, as
	// the refit on m (already mapped, with op.Prior set) does.
	Prior *chain.Model

	// Log, when not nil, gets a line per solved beta (and per Eval score).
	Log io.Writer
}

// F1Scorer rates weights of m by the F1 of an evaluation on the labeled
// examples (eval.Evaluation.F1): chunk F1 for chunk labels, token accuracy
// otherwise.
func F1Scorer(m *chain.Model, exs []dataset.Example) (train.Scorer, error) {
	return selection.TaggerScorer(m, func(tg *chain.Tagger) (float64, error) {
		ev, err := dataset.EvaluateAll(tg, exs, 0)
		if err != nil {
			return 0, err
		}
		return ev.F1(), nil
	})
}

// MetricName names the score of F1Scorer for a model of these labels.
func MetricName(labels []string) string {
	if chain.HasChunkLabels(labels) {
		return "chunk f1"
	}
	return "token accuracy"
}

// SelectOnDev selects the penalty on a development set: it solves the path
// of cfg on c (op fixes the L1/L2 ratio and everything else) with
// cfg.Score, leaves the best model in m and fills rep (whose Sequences
// must be set). With op.Interrupt closed, the path ends at the interrupted
// beta.
func SelectOnDev(ctx context.Context, m *chain.Model, c *sparse.Corpus, op train.Options, cfg SelectConfig, rep *SelectReport) error {
	po := train.PathOptions{K: cfg.Betas, MinRatio: cfg.Floor, Patience: cfg.Patience, Score: cfg.Score, Extend: cfg.HardFloor}
	each := cfg.logBeta("path")
	var evals []float64
	if cfg.Eval != nil {
		each = cfg.evalEach(each, &evals)
	}
	res, err := train.Path(ctx, m, c, op, po, each)
	if err != nil {
		return err
	}
	rep.Metric = MetricName(m.Labels)
	rep.SetPath(res, evals)
	return nil
}

// evalEach returns each, preceded by scoring every path solution with
// cfg.Eval into *evals.
func (cfg *SelectConfig) evalEach(each func(int, *train.Result, []float64) error, evals *[]float64) func(int, *train.Result, []float64) error {
	return func(k int, r *train.Result, w []float64) error {
		v, err := cfg.Eval(w)
		if err != nil {
			return fmt.Errorf("%s: %w", cfg.EvalName, err)
		}
		*evals = append(*evals, v)
		if cfg.Log != nil {
			fmt.Fprintf(cfg.Log, "path beta %d: eval %.4f\n", k+1, v)
		}
		return each(k, r, w)
	}
}

// SelectByFolds selects the penalty by K-fold cross-validation of the
// training examples exs (selection.CrossValidate; sequence i is in fold i mod
// K, selection.Fold), each fold with its own attribute dictionary, then refits
// m on every training sequence (c) by a path down to the chosen ratio
// (warm starts), and fills rep (whose Sequences must be set).
func SelectByFolds(ctx context.Context, m *chain.Model, c *sparse.Corpus, op train.Options, exs []dataset.Example, cfg SelectConfig, rep *SelectReport) error {
	K := cfg.Folds
	n0 := 0 // training sequences of fold 0 (the rows' c1 and c2)
	cv, err := selection.CrossValidate(ctx, op, selection.CVOptions{Folds: K, Betas: cfg.Betas, MinRatio: cfg.Floor, Patience: cfg.Patience, Extend: cfg.HardFloor,
		Fold: func(f int) (selection.CVFold, error) {
			trainSet, held := selection.Fold(exs, K, f)
			enc, err := cfg.NewEncoder()
			if err != nil {
				return selection.CVFold{}, err
			}
			fm, fc, err := dataset.NewTrainingModel(enc, trainSet, cfg.MinFreq)
			if err != nil {
				return selection.CVFold{}, err
			}
			if f == 0 {
				n0 = fc.Len()
			}
			var w0 []float64
			if cfg.Prior != nil {
				if fm, w0, err = fm.WithPrior(cfg.Prior); err != nil {
					return selection.CVFold{}, fmt.Errorf("prior: %w", err)
				}
			}
			score, err := F1Scorer(fm, held)
			return selection.CVFold{Model: fm, Corpus: fc, Score: score, Prior: w0}, err
		},
		Each: func(f, k int, r *train.Result, w []float64) error {
			return cfg.logBeta(fmt.Sprintf("fold %d/%d", f+1, K))(k, r, w)
		}})
	if err != nil {
		return err
	}
	res, err := cv.Refit(ctx, m, c, op, cfg.logBeta("refit"))
	if err != nil {
		return err
	}
	rep.Metric = MetricName(m.Labels)
	rep.SetCV(cv, n0, res)
	return nil
}

// logBeta returns the callback of a path that writes one line per solved
// beta to cfg.Log (nothing without it), each starting with what.
func (cfg *SelectConfig) logBeta(what string) func(k int, r *train.Result, _ []float64) error {
	return func(k int, r *train.Result, _ []float64) error {
		if cfg.Log != nil {
			s := ""
			if r.Score != nil {
				s = fmt.Sprintf(", dev %.4f", *r.Score)
			}
			if k >= cfg.Betas {
				s += " (below --select-floor)"
			}
			fmt.Fprintf(cfg.Log, "%s beta %d/%d: beta/beta_max %.3g, %d non-zero, gap %.2e (%s), %.1fs%s\n",
				what, k+1, cfg.Betas, r.Beta/r.BetaMax, r.NonZero, r.Gap, r.StopReason, r.Seconds, s)
		}
		return nil
	}
}
