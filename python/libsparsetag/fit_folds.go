package main

import (
	"context"
	"time"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/dataset"
	"github.com/sparsetag/sparsetag/sparse"
	"github.com/sparsetag/sparsetag/train"
	"github.com/sparsetag/sparsetag/train/selection"
)

// cvReport is a cross-validation's outcome, for Python
// (Trainer.last_run["cv"]): the grid (c1/c1_max), the score of every fold
// and their mean at each point, the index chosen and its c1 on the whole
// training set.
type cvReport struct {
	Folds  int         `json:"folds"`
	Ratios []float64   `json:"ratios"`
	Scores [][]float64 `json:"scores"`
	Mean   []float64   `json:"mean"`
	Chosen int         `json:"chosen"`
	Metric string      `json:"metric"`
	C1     float64     `json:"c1"`
	C2     float64     `json:"c2"`
}

// fitFolds selects the penalty of lbfgs's path by path.folds-fold
// cross-validation of the training sequences exs (sequence i in fold i
// mod K, each fold's training part encoded on its own and scored on its
// held-out part), then refits m on c (all of exs) down to the chosen
// c1/c1_max: tagger train --select-folds K, with path and path.min_ratio
// for --betas and --select-floor and no extension below the floor. An
// interrupt during the cross-validation ends the run with no model; one
// during the refit keeps its last penalty under the interrupt rule.
func (j *job) fitFolds(p params, m *chain.Model, c *sparse.Corpus, exs []dataset.Example, t0 time.Time) (outcome, error) {
	op := lbfgsOptions(p)
	K := p.ints["path.folds"]
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-j.intr:
			cancel()
		case <-ctx.Done():
		}
	}()
	j.printf("Elastic-net path (sparsetag): %d penalties from c1_max down to %g c1_max, c2/c1 = %g\n", p.ints["path"], p.floats["path.min_ratio"], op.C2/op.C1)
	j.printf("Selection: %d-fold cross-validation (sequence i in fold i mod %d), then a refit on every sequence\n\n", K, K)
	sizes := make([]int, K)
	metric := ""
	cv, err := selection.CrossValidate(ctx, op, selection.CVOptions{Folds: K, Betas: p.ints["path"], MinRatio: p.floats["path.min_ratio"],
		Fold: func(f int) (selection.CVFold, error) {
			trainPart, held := selection.Fold(exs, K, f)
			enc, err := newEncoder(p, trainPart)
			if err != nil {
				return selection.CVFold{}, err
			}
			fm, fc, err := dataset.NewTrainingModel(enc, trainPart, minFreq(p))
			if err != nil {
				return selection.CVFold{}, err
			}
			sizes[f] = fc.Len()
			score, name, err := f1Scorer(fm, held)
			metric = name
			return selection.CVFold{Model: fm, Corpus: fc, Score: score}, err
		},
		Each: func(f, k int, r *train.Result, _ []float64) error {
			n, score := float64(sizes[f]), 0.0
			if r.Score != nil {
				score = *r.Score
			}
			j.printf("Fold %d/%d, path point #%d: c1 %f, c2 %f, active features %d, gap %.6e, held-out %s %f\n",
				f+1, K, k+1, r.Beta*n, r.Lambda2*n/2, r.NonZero, r.Gap, metric, score)
			return nil
		}})
	if err != nil {
		if ctx.Err() != nil {
			j.printf("Interrupted in the cross-validation: no model.\n")
			return outcome{interrupted: true}, nil
		}
		return outcome{}, err
	}
	j.printf("Cross-validation: the best mean %s, %f, at c1 = %g c1_max (point #%d); refit on every sequence\n\n", metric, cv.Mean[cv.Chosen], cv.Ratios[cv.Chosen], cv.Chosen+1)
	op.Interrupt = j.intr
	var points []pathPoint
	res, err := cv.Refit(context.Background(), m, c, op, j.logPoints(&points, c.Len(), "", time.Now()))
	if err != nil {
		return outcome{}, err
	}
	if len(points) == 0 {
		j.printf("Interrupted before the first penalty of the refit: no model.\n")
		return outcome{interrupted: true}, nil
	}
	interrupted := len(res) > 0 && res[len(res)-1].StopReason == train.StopInterrupt
	j.printf("%s after %d penalties; the model kept is point #%d\n", map[bool]string{true: "Interrupted", false: "Finished"}[interrupted], len(res), len(res))
	j.printf("Total seconds required for training: %.3f\n\n", time.Since(t0).Seconds())
	last := points[len(points)-1]
	j.info["path"] = points
	j.info["selected"] = len(res) - 1
	j.info["cv"] = cvReport{Folds: K, Ratios: cv.Ratios, Scores: cv.Scores, Mean: cv.Mean, Chosen: cv.Chosen, Metric: metric, C1: last.C1, C2: last.C2}
	return outcome{iterations: len(res), interrupted: interrupted}, nil
}
