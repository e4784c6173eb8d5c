package selection

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/sparse"
	"github.com/sparsetag/sparsetag/train"
	"github.com/sparsetag/sparsetag/train/internal/peak"
)

// TaggerScorer returns a Scorer that tags with its own model of m's labels,
// layout and encoder (shared, read only) holding the weights it is handed,
// and rates that tagger with rate (e.g. the F1 on a development set). It
// never reads or writes m.W, so it may score while a trainer updates m.
// The Scorer is not safe for concurrent use.
func TaggerScorer(m *chain.Model, rate func(tg *chain.Tagger) (float64, error)) (train.Scorer, error) {
	own, err := chain.NewModel(m.Labels, m.Layout.NumUnary, m.Layout.NumPair, m.Layout.Transitions, m.Encoder)
	if err != nil {
		return nil, fmt.Errorf("selection: scoring model: %w", err)
	}
	return func(w []float64) (float64, error) {
		if len(w) != len(own.W) {
			return 0, fmt.Errorf("selection: scoring %d weights with a model of %d", len(w), len(own.W))
		}
		copy(own.W, w)
		// A Tagger reads its model's weights when it is built, so each
		// call builds one.
		return rate(chain.NewTagger(own))
	}, nil
}

// Fold splits all into the training part and the held-out part of fold f
// of k: element i is held out in fold i mod k. Both parts keep the order
// of all and share its elements. It panics unless 0 <= f < k.
func Fold[T any](all []T, k, f int) (trainPart, held []T) {
	if f < 0 || f >= k {
		panic(fmt.Sprintf("selection: fold %d of %d", f, k))
	}
	for i := range all {
		if i%k == f {
			held = append(held, all[i])
		} else {
			trainPart = append(trainPart, all[i])
		}
	}
	return trainPart, held
}

// CVFold is the training problem of one fold of a cross-validation: the
// model and corpus of its training part (with their own attribute
// dictionary, built from that part only) and the Scorer of that model's
// weights on the held-out part.
type CVFold struct {
	Model  *chain.Model
	Corpus *sparse.Corpus
	Score  train.Scorer
	// Prior, when not nil, replaces the options' Prior for this fold: the
	// old model's weights in the fold's own layout (chain.Model.WithPrior
	// of the fold's model), so that each fold trains w = w0 + v with the
	// penalty on v as the refit does (docs/prior.md).
	Prior []float64
}

// CVOptions configures CrossValidate.
type CVOptions struct {
	Folds int // number of folds K >= 2
	// Betas is the number of grid points and MinRatio the smallest value of
	// beta/beta_max: the grid is train.PathBetas(1, Betas, MinRatio), scaled by
	// each fold's own beta_max. 0 means 100 and 0.1 (as in PathOptions).
	Betas    int
	MinRatio float64
	Patience int // of fold 0's path (PathOptions.Patience); 0 means 3
	// Extend is the hard floor of fold 0's path (PathOptions.Extend; 0:
	// the grid ends at MinRatio): the other folds solve its extended grid.
	Extend float64
	// Fold returns the problem of fold f, 0 <= f < Folds (typically the
	// training part of Fold(all, Folds, f) encoded on its own, scored on
	// the held-out part). It is called once per fold, in order.
	Fold func(f int) (CVFold, error)
	// Each, when not nil, is called after each beta k of each fold f with
	// its result and solution (Path's each).
	Each func(f, k int, res *train.Result, w []float64) error
}

// CVResult is the outcome of CrossValidate.
type CVResult struct {
	Ratios  []float64         // the grid points solved by every fold, beta/beta_max
	Scores  [][]float64       // Scores[k][f]: the score of fold f at Ratios[k]
	Mean    []float64         // Mean[k]: the mean of Scores[k]
	Results [][]*train.Result // Results[f]: the path of fold f
	Chosen  int               // the index of the best Mean (the first of equal ones)
}

// CrossValidate selects beta/beta_max by K-fold cross-validation along a
// shared grid: each fold's model is trained on its training part by Path
// (opts; warm starts, screening) over the grid scaled by its own beta_max,
// and scored on its held-out part. Fold 0's path stops once its score has
// peaked (Patience); the other folds solve the same grid points, with no
// early stop. The chosen ratio has the best mean score; Refit trains the
// final model down to it.
func CrossValidate(ctx context.Context, opts train.Options, cv CVOptions) (*CVResult, error) {
	if cv.Folds < 2 || cv.Fold == nil {
		return nil, fmt.Errorf("selection: cross-validation needs Folds >= 2 and a Fold function (Folds = %d)", cv.Folds)
	}
	po := train.PathOptions{K: cv.Betas, MinRatio: cv.MinRatio, Patience: cv.Patience, Extend: cv.Extend}
	po, err := po.WithDefaults()
	if err != nil {
		return nil, err
	}
	out := &CVResult{Ratios: train.PathBetas(1, po.K, po.MinRatio)}
	for f := 0; f < cv.Folds; f++ {
		res, err := cvFold(ctx, opts, cv, f, len(out.Ratios), out.Ratios[len(out.Ratios)-1], po.Patience)
		if err != nil {
			return nil, fmt.Errorf("fold %d: %w", f+1, err)
		}
		if f == 0 {
			if len(res) > po.K { // extended below MinRatio: the same geometric grid, continued
				out.Ratios = train.PathBetas(1, len(res), math.Pow(po.MinRatio, float64(len(res)-1)/float64(po.K-1)))
			}
			out.Ratios = out.Ratios[:len(res)]
		}
		out.Results = append(out.Results, res)
	}
	out.tally(cv.Folds)
	return out, nil
}

// cvFold solves the path of fold f over k grid points down to minRatio.
func cvFold(ctx context.Context, opts train.Options, cv CVOptions, f, k int, minRatio float64, patience int) ([]*train.Result, error) {
	p, err := cv.Fold(f)
	if err != nil {
		return nil, err
	}
	if p.Model == nil || p.Corpus == nil || p.Score == nil {
		return nil, errors.New("selection: a cross-validation fold needs a Model, a Corpus and a Score")
	}
	if p.Prior != nil {
		opts.Prior = p.Prior
	}
	po := train.PathOptions{K: k, MinRatio: minRatio, Patience: patience, Score: p.Score, Extend: cv.Extend}
	if f > 0 {
		po.Patience, po.Extend = k, 0 // the grid points of fold 0, no early stop
	}
	var each func(int, *train.Result, []float64) error
	if cv.Each != nil {
		each = func(k int, res *train.Result, w []float64) error { return cv.Each(f, k, res, w) }
	}
	res, err := train.Path(ctx, p.Model, p.Corpus, opts, po, each)
	if err == nil && f > 0 && len(res) < k {
		err = fmt.Errorf("selection: the path solved %d of the %d betas of fold 1", len(res), k)
	}
	return res, err
}

// tally fills Scores, Mean and Chosen from Results.
func (r *CVResult) tally(folds int) {
	r.Scores, r.Mean = make([][]float64, len(r.Ratios)), make([]float64, len(r.Ratios))
	for k := range r.Ratios {
		for _, res := range r.Results {
			s := *res[k].Score
			r.Scores[k] = append(r.Scores[k], s)
			r.Mean[k] += s / float64(folds)
		}
		if r.Mean[k] > r.Mean[r.Chosen] {
			r.Chosen = k
		}
	}
}

// Refit trains m on c (the whole training set) by a path from beta_max
// down to the chosen ratio (warm starts) and leaves that solution in m.W;
// each is Path's. The last result is the chosen model's.
func (r *CVResult) Refit(ctx context.Context, m *chain.Model, c *sparse.Corpus, opts train.Options, each func(k int, res *train.Result, w []float64) error) ([]*train.Result, error) {
	res, err := train.Path(ctx, m, c, opts, train.PathOptions{K: r.Chosen + 1, MinRatio: r.Ratios[r.Chosen]}, each)
	if err != nil {
		return nil, fmt.Errorf("refit: %w", err)
	}
	return res, nil
}

// EarlyStop is an Options.Monitor for early stopping on a validation set:
// at each check it scores the weights (Score), keeps the best ones, and
// stops training once the score has been below the best for Patience
// checks in a row (counted only once the score has risen above its first
// value, as on a path: see PathOptions.Patience). It keeps its own copy
// of the best weights and writes no model (and with a TaggerScorer the
// scoring reads none either); after training, KeepBest puts the best
// weights back.
type EarlyStop struct {
	Score    train.Scorer
	Patience int // 0 means 3
	// Checked, when not nil, is called after each check with its
	// iteration and score and the best score so far and its iteration.
	Checked func(iter int, score, best float64, bestIter int)

	p        peak.Peak
	best     []float64
	bestIter int
}

// Monitor scores w, the weights at iteration it (Options.Monitor).
func (es *EarlyStop) Monitor(it train.Iteration, w []float64) (stop bool, err error) {
	v, err := peak.Checked(es.Score, w)
	if err != nil {
		return false, fmt.Errorf("selection: validation at iteration %d: %w", it.Iter, err)
	}
	if es.p.Limit == 0 {
		es.p.Limit = es.Patience
		if es.p.Limit <= 0 {
			es.p.Limit = 3
		}
	}
	improved, stop := es.p.Add(v)
	if improved {
		es.best, es.bestIter = append(es.best[:0], w...), it.Iter
	}
	if es.Checked != nil {
		es.Checked(it.Iter, v, es.p.Best(), es.bestIter)
	}
	return stop, nil
}

// Best returns the best checked weights (nil before the first check),
// their score and iteration.
func (es *EarlyStop) Best() (w []float64, score float64, iter int) {
	return es.best, es.p.Best(), es.bestIter
}

// KeepBest scores the final weights w of the run and, when the best
// checked weights score higher, copies them into w; it returns whether it
// did and the score of the final weights. Without a check it does nothing.
func (es *EarlyStop) KeepBest(w []float64) (replaced bool, final float64, err error) {
	if es.best == nil {
		return false, 0, nil
	}
	if final, err = peak.Checked(es.Score, w); err != nil {
		return false, 0, fmt.Errorf("selection: validation of the final weights: %w", err)
	}
	if final < es.p.Best() {
		copy(w, es.best)
		return true, final, nil
	}
	return false, final, nil
}
