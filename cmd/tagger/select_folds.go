package main

import (
	"fmt"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/dataset"
	"github.com/sparsetag/sparsetag/internal/paperbench"
	"github.com/sparsetag/sparsetag/sparse"
	"github.com/sparsetag/sparsetag/train"
)

// selectByFolds selects the penalty by K-fold cross-validation
// (train.CrossValidate; sequence i is in fold i mod K, train.Fold), each
// fold with its own attribute dictionary, then refits on every training
// sequence by a path down to the chosen ratio (warm starts).
func selectByFolds(e *env, tf *trainFlags, op train.Options, m *chain.Model, c *sparse.Corpus, exs []dataset.Example, rep *paperbench.SelectReport) (*chain.Model, error) {
	K := tf.selectFolds
	if len(exs) < K {
		return nil, usagef("--select-folds %d needs at least %d training sequences, have %d", K, K, len(exs))
	}
	n0 := 0 // training sequences of fold 0 (the rows' c1 and c2)
	cv, err := train.CrossValidate(e.ctx, op, train.CVOptions{Folds: K, Betas: tf.betas, MinRatio: tf.selectFloor, Patience: tf.patience,
		Fold: func(f int) (train.CVFold, error) {
			trainSet, held := train.Fold(exs, K, f)
			enc, err := dataset.NewEncoder(dataset.Format(tf.format), tf.template)
			if err != nil {
				return train.CVFold{}, err
			}
			fm, fc, err := dataset.NewTrainingModel(enc, trainSet, tf.minFreq)
			if err != nil {
				return train.CVFold{}, err
			}
			if f == 0 {
				n0 = fc.Len()
			}
			score, err := f1Scorer(fm, held)
			return train.CVFold{Model: fm, Corpus: fc, Score: score}, err
		},
		Each: func(f, k int, r *train.Result, w []float64) error {
			return pathProgress(e, tf, fmt.Sprintf("fold %d/%d", f+1, K))(k, r, w)
		}})
	if err != nil {
		return nil, err
	}
	res, err := cv.Refit(e.ctx, m, c, op, pathProgress(e, tf, "refit"))
	if err != nil {
		return nil, err
	}
	rep.Metric = metricName(m)
	rep.SetCV(cv, n0, res)
	return m, nil
}
