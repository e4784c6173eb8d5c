package main

import (
	"fmt"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/dataset"
	"github.com/sparsetag/sparsetag/sparse"
	"github.com/sparsetag/sparsetag/train"
)

// selectByFolds selects the penalty by K-fold cross-validation (sequence i
// is in fold i mod K): each fold's model is trained on the other folds
// (its own attribute dictionary) along the path of ratios beta/beta_max
// and scored on its fold. Fold 0's path stops once its score has peaked;
// the other folds solve the same ratios. The chosen ratio has the best mean
// score; the final model is refit on every training sequence by a path
// down to it (warm starts).
func selectByFolds(e *env, tf *trainFlags, op train.Options, m *chain.Model, c *sparse.Corpus, exs []dataset.Example, rep *selectReport) (*chain.Model, error) {
	K := tf.selectFolds
	if len(exs) < K {
		return nil, usagef("--select-folds %d needs at least %d training sequences, have %d", K, K, len(exs))
	}
	ratios := train.PathBetas(1, tf.betas, tf.selectFloor)
	n := len(ratios)
	var rows []selectRow
	for f := 0; f < K; f++ {
		fm, fc, dev, err := encodeFold(tf, exs, K, f)
		if err != nil {
			return nil, err
		}
		po := train.PathOptions{K: n, MinRatio: ratios[n-1], Patience: tf.patience, Score: devScorer(fm, dev)}
		if f > 0 {
			po.Patience = n // the betas of fold 0, no early stop
		}
		res, err := train.Path(e.ctx, fm, fc, op, po, pathProgress(e, tf, fmt.Sprintf("fold %d/%d", f+1, K)))
		if err != nil {
			return nil, fmt.Errorf("fold %d: %w", f+1, err)
		}
		if f == 0 {
			n = len(res)
			for k, r := range res {
				rows = append(rows, newSelectRow(k, r, fc.Len()))
				rows[k].Score = 0
			}
		}
		for k, r := range res[:n] {
			rows[k].FoldScores = append(rows[k].FoldScores, *r.Score)
			rows[k].Score += *r.Score / float64(K)
			if f > 0 {
				rows[k].Seconds += r.Seconds
			}
		}
	}
	best := 0
	for k := range rows {
		if rows[k].Score > rows[best].Score {
			best = k
		}
	}
	rows[best].Chosen = true
	rep.Path, rep.Chosen, rep.Metric = rows, best, metricName(m)
	res, err := train.Path(e.ctx, m, c, op, train.PathOptions{K: best + 1, MinRatio: ratios[best]}, pathProgress(e, tf, "refit"))
	if err != nil {
		return nil, fmt.Errorf("refit: %w", err)
	}
	last := res[len(res)-1]
	refit := newSelectRow(best, last, c.Len())
	for _, r := range res[:len(res)-1] {
		refit.Seconds += r.Seconds
	}
	rep.Refit, rep.Alpha, rep.BetaMax = &refit, last.Alpha, last.BetaMax
	return m, nil
}

// encodeFold returns the model and corpus of the training part of fold f
// of K (every sequence not in it, with its own attribute dictionary) and
// the fold's examples.
func encodeFold(tf *trainFlags, exs []dataset.Example, K, f int) (*chain.Model, *sparse.Corpus, []dataset.Example, error) {
	var trainSet, dev []dataset.Example
	for i := range exs {
		if i%K == f {
			dev = append(dev, exs[i])
		} else {
			trainSet = append(trainSet, exs[i])
		}
	}
	enc, err := dataset.NewEncoder(dataset.Format(tf.format), tf.template)
	if err != nil {
		return nil, nil, nil, err
	}
	c, labels, err := dataset.EncodeTraining(enc, trainSet, tf.minFreq)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("fold %d: %w", f+1, err)
	}
	m, err := chain.NewModel(labels, enc.Unary().Len(), enc.Pair().Len(), enc.HasTransitions(), enc)
	if err != nil {
		return nil, nil, nil, err
	}
	return m, c, dev, nil
}
