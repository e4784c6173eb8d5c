package selection

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/corpora"
	"github.com/sparsetag/sparsetag/dataset"
	"github.com/sparsetag/sparsetag/internal/chaintest"
	"github.com/sparsetag/sparsetag/internal/numtest"
	"github.com/sparsetag/sparsetag/sparse"
	"github.com/sparsetag/sparsetag/train"
	"github.com/sparsetag/sparsetag/train/internal/traintest"
)

func TestFold(t *testing.T) {
	all := make([]int, 11)
	for i := range all {
		all[i] = i
	}
	for _, k := range []int{2, 3, 11} {
		seen := make([]int, len(all))
		for f := range k {
			tr, held := Fold(all, k, f)
			require.Equal(t, len(all), len(tr)+len(held), "k %d fold %d", k, f)
			assert.True(t, slices.IsSorted(tr) && slices.IsSorted(held), "order kept")
			for _, i := range held {
				assert.Equal(t, f, i%k, "k %d: %d held out in fold %d", k, i, f)
				seen[i]++
			}
			for _, i := range tr {
				assert.NotEqual(t, f, i%k, "k %d: %d trained on in fold %d", k, i, f)
			}
		}
		for i, n := range seen {
			assert.Equal(t, 1, n, "k %d: sequence %d held out %d times", k, i, n)
		}
	}
	assert.Panics(t, func() { Fold(all, 3, 3) })
	assert.Panics(t, func() { Fold(all, 3, -1) })
}

// dominantCoNLL returns the first n sentences of a CoNLL-2000 split with
// every chunk tag but those of type keep mapped to O: a corpus where O
// dominates, as in named-entity data.
func dominantCoNLL(t testing.TB, split string, n int, keep string) []dataset.Example {
	t.Helper()
	seqs, err := corpora.EmbeddedCoNLL2000(split)
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(seqs), n)
	exs := make([]dataset.Example, n)
	for i, s := range seqs[:n] {
		labels := make([]string, len(s.Labels))
		for j, l := range s.Labels {
			labels[j] = "O"
			if strings.HasSuffix(l, "-"+keep) {
				labels[j] = l
			}
		}
		s.Labels = labels
		exs[i] = dataset.FromSequence("conll2000/"+split, s)
	}
	return exs
}

// encodeExamples encodes training examples with the default template.
func encodeExamples(t testing.TB, exs []dataset.Example) (*chain.Model, *sparse.Corpus) {
	t.Helper()
	enc, err := dataset.NewEncoder(dataset.CoNLL, nil)
	require.NoError(t, err)
	m, c, err := dataset.NewTrainingModel(enc, exs, 1)
	require.NoError(t, err)
	return m, c
}

// f1Scorer scores weights of m by the chunk F1 on dev.
func f1Scorer(t testing.TB, m *chain.Model, dev []dataset.Example) train.Scorer {
	t.Helper()
	sc, err := TaggerScorer(m, func(tg *chain.Tagger) (float64, error) {
		ev, err := dataset.EvaluateAll(tg, dev, 0)
		if err != nil {
			return 0, err
		}
		return ev.F1(), nil
	})
	require.NoError(t, err)
	return sc
}

// TestPathSelectDominantLabel: on CoNLL-2000 with only PP chunks (every
// other tag is O), the models at the top of the path tag everything O (F1
// 0) for more betas than the patience; the path must go on until the F1
// rises and select a model with a clearly positive F1, not the trivial
// model at beta_max.
func TestPathSelectDominantLabel(t *testing.T) {
	const patience = 3
	m, c := encodeExamples(t, dominantCoNLL(t, "train", 300, "PP"))
	score := f1Scorer(t, m, dominantCoNLL(t, "test", 200, "PP"))
	res, err := train.Path(context.Background(), m, c, train.Options{Problem: train.Problem{SumForm: true, C1: 1, C2: 1}},
		train.PathOptions{K: 10, MinRatio: 1e-3, Score: score, Patience: patience}, nil)
	require.NoError(t, err)
	var scores []float64
	for _, r := range res {
		require.NotNil(t, r.Score)
		scores = append(scores, *r.Score)
	}
	t.Logf("dev F1 along the path: %.3f", scores)
	require.Greater(t, len(scores), patience)
	for k := 1; k <= patience; k++ {
		require.LessOrEqual(t, scores[k], scores[0], "premise: the first %d betas score no better than beta_max", patience+1)
	}
	best := train.Selected(res)
	assert.Equal(t, slices.Max(scores), scores[best])
	assert.Greater(t, scores[best], 0.5, "the selected model has a clearly positive F1")
	assert.Positive(t, res[best].NonZero)
	assert.Equal(t, res[best].NonZero, m.NonZero(), "the model holds the selected solution")
	w := slices.Clone(m.W)
	v, err := score(w)
	require.NoError(t, err)
	assert.Equal(t, scores[best], v, "the model scores as the selected solution did")
	_, err = score(make([]float64, len(m.W)))
	require.NoError(t, err)
	assert.Equal(t, w, m.W, "scoring leaves the model alone")
	_, err = score(w[1:])
	assert.ErrorContains(t, err, "weights")
}

// TestCrossValidate: every fold solves the grid points of fold 0's path,
// the means are the fold means, the chosen ratio has the best mean (which
// is clearly positive on dominant-O data), and the refit ends at it.
func TestCrossValidate(t *testing.T) {
	const K = 3
	all := dominantCoNLL(t, "train", 240, "PP")
	opts := train.Options{Problem: train.Problem{SumForm: true, C1: 1, C2: 1}}
	var calls [K]int
	cv, err := CrossValidate(context.Background(), opts, CVOptions{Folds: K, Betas: 10, MinRatio: 1e-3, Patience: 2,
		Fold: func(f int) (CVFold, error) {
			tr, held := Fold(all, K, f)
			m, c := encodeExamples(t, tr)
			return CVFold{Model: m, Corpus: c, Score: f1Scorer(t, m, held)}, nil
		},
		Each: func(f, k int, res *train.Result, w []float64) error {
			calls[f]++
			return nil
		}})
	require.NoError(t, err)
	n := len(cv.Ratios)
	require.Positive(t, n)
	require.Len(t, cv.Results, K)
	require.Len(t, cv.Scores, n)
	require.Len(t, cv.Mean, n)
	for f, res := range cv.Results {
		require.Len(t, res, n, "fold %d", f)
		assert.Equal(t, n, calls[f], "fold %d: Each per beta", f)
		for k, r := range res {
			numtest.RequireClose(t, cv.Ratios[k], r.Beta/r.BetaMax, 0, 1e-12, "ratio")
			assert.Equal(t, *r.Score, cv.Scores[k][f])
		}
	}
	for k := range cv.Ratios {
		require.Len(t, cv.Scores[k], K)
		numtest.RequireClose(t, (cv.Scores[k][0]+cv.Scores[k][1]+cv.Scores[k][2])/K, cv.Mean[k], 1e-15, 1e-12, "mean")
	}
	assert.Equal(t, slices.Index(cv.Mean, slices.Max(cv.Mean)), cv.Chosen)
	assert.Greater(t, cv.Mean[cv.Chosen], 0.3, "a clearly positive mean F1")

	m, c := encodeExamples(t, all)
	res, err := cv.Refit(context.Background(), m, c, opts, nil)
	require.NoError(t, err)
	require.Len(t, res, cv.Chosen+1)
	last := res[len(res)-1]
	numtest.RequireClose(t, cv.Ratios[cv.Chosen], last.Beta/last.BetaMax, 0, 1e-12, "refit ratio")
	assert.Equal(t, last.NonZero, m.NonZero())

	_, err = CrossValidate(context.Background(), opts, CVOptions{Folds: 1, Fold: func(int) (CVFold, error) { return CVFold{}, nil }})
	assert.Error(t, err)
	_, err = CrossValidate(context.Background(), opts, CVOptions{Folds: 2, Fold: func(int) (CVFold, error) { return CVFold{}, nil }})
	assert.ErrorContains(t, err, "fold 1")
}

// TestCrossValidateEarlyStop: fold 0's path stops once its score has
// peaked; the other folds solve the same grid points and no more.
func TestCrossValidateEarlyStop(t *testing.T) {
	const K, betas, peakAt, patience = 3, 10, 2, 2
	rng := rand.New(rand.NewPCG(51, 52))
	cv, err := CrossValidate(context.Background(), train.Options{}, CVOptions{Folds: K, Betas: betas, MinRatio: 1e-3, Patience: patience,
		Fold: func(f int) (CVFold, error) {
			m, _ := chain.NewModel(chaintest.LabelNames(3), 6, 0, true, nil)
			return CVFold{Model: m, Corpus: chaintest.RandomCorpus(rng, 30, 4, 6, 0, 3, false), Score: traintest.CountingScore(peakAt)}, nil
		}})
	require.NoError(t, err)
	assert.Len(t, cv.Ratios, peakAt+1+patience, "fold 0 stops after patience betas below its peak")
	for f, res := range cv.Results {
		assert.Len(t, res, len(cv.Ratios), "fold %d", f)
	}
	assert.Equal(t, peakAt, cv.Chosen)
}

// TestEarlyStop feeds scores through Monitor (the score of w is w[0]).
func TestEarlyStop(t *testing.T) {
	var checked []int
	es := &EarlyStop{Score: func(w []float64) (float64, error) { return w[0], nil }, Patience: 2,
		Checked: func(iter int, score, best float64, bestIter int) { checked = append(checked, iter) }}
	w, bw, _ := es.Best()
	require.Nil(t, w)
	replaced, _, err := es.KeepBest([]float64{5})
	require.NoError(t, err)
	assert.False(t, replaced, "no check, nothing to keep")
	scores := []float64{0, 0, 0, 0.5, 0.7, 0.6, 0.6, 0.9}
	stopAt := -1
	buf := make([]float64, 2)
	for i, v := range scores {
		buf[0], buf[1] = v, float64(i)
		stop, err := es.Monitor(train.Iteration{Iter: 10 * (i + 1)}, buf)
		require.NoError(t, err)
		if stop {
			stopAt = i
			break
		}
	}
	assert.Equal(t, 6, stopAt, "two checks below the best 0.7; the flat start does not count")
	assert.Equal(t, []int{10, 20, 30, 40, 50, 60, 70}, checked)
	w, bw, iter := es.Best()
	assert.Equal(t, []float64{0.7, 4}, w, "a copy of the best weights")
	assert.Equal(t, 0.7, bw)
	assert.Equal(t, 50, iter)

	final := []float64{0.6, 9}
	replaced, fs, err := es.KeepBest(final)
	require.NoError(t, err)
	assert.True(t, replaced)
	assert.Equal(t, 0.6, fs)
	assert.Equal(t, []float64{0.7, 4}, final)
	final = []float64{0.8, 9}
	replaced, _, err = es.KeepBest(final)
	require.NoError(t, err)
	assert.False(t, replaced)
	assert.Equal(t, []float64{0.8, 9}, final)

	nan := &EarlyStop{Score: func([]float64) (float64, error) { return math.NaN(), nil }}
	_, err = nan.Monitor(train.Iteration{Iter: 3}, buf)
	assert.ErrorContains(t, err, "NaN")
}

// TestEarlyStopTrain: as Options.Monitor, EarlyStop stops a real run and
// KeepBest leaves weights that score at least as well as the final ones,
// without the scorer ever writing the model.
func TestEarlyStopTrain(t *testing.T) {
	m, c := encodeExamples(t, dominantCoNLL(t, "train", 150, "PP"))
	score := f1Scorer(t, m, dominantCoNLL(t, "test", 100, "PP"))
	var scores []float64
	es := &EarlyStop{Score: score, Patience: 2, Checked: func(_ int, s, _ float64, _ int) { scores = append(scores, s) }}
	res, err := train.Train(context.Background(), m, c, train.Options{
		Problem:  train.Problem{SumForm: true, C1: 0.1, C2: 0.1},
		Stopping: train.Stopping{Epsilon: 1e-12, RelEpsilon: 1e-12, MaxIter: 300},
		Hooks:    train.Hooks{Monitor: es.Monitor, MonitorEvery: 5},
	})
	require.NoError(t, err)
	require.NotEmpty(t, scores)
	t.Logf("stopped (%v) after %d iterations; validation F1 %.3f", res.StopReason, res.NumIterations(), scores)
	final := slices.Clone(m.W)
	replaced, fs, err := es.KeepBest(m.W)
	require.NoError(t, err)
	_, best, _ := es.Best()
	assert.Equal(t, slices.Max(scores), best)
	got, err := score(m.W)
	require.NoError(t, err)
	assert.Equal(t, max(best, fs), got, "the kept weights score the best of the checks and the final weights")
	assert.Equal(t, replaced, !slices.Equal(final, m.W), "KeepBest reports whether it replaced the weights")
}

// TestCrossValidateExtend: fold 0's path extends below MinRatio while its
// score rises; the other folds solve the same extended grid.
func TestCrossValidateExtend(t *testing.T) {
	const K, betas, peakAt, patience = 2, 4, 5, 1
	rng := rand.New(rand.NewPCG(71, 72))
	cv, err := CrossValidate(context.Background(), train.Options{}, CVOptions{Folds: K, Betas: betas, MinRatio: 1e-2, Patience: patience, Extend: 1e-6,
		Fold: func(f int) (CVFold, error) {
			m, _ := chain.NewModel(chaintest.LabelNames(3), 6, 0, true, nil)
			return CVFold{Model: m, Corpus: chaintest.RandomCorpus(rng, 30, 4, 6, 0, 3, false), Score: traintest.CountingScore(peakAt)}, nil
		}})
	require.NoError(t, err)
	require.Len(t, cv.Ratios, peakAt+1+patience)
	for f, res := range cv.Results {
		require.Len(t, res, len(cv.Ratios), "fold %d", f)
		for k, r := range res {
			numtest.RequireClose(t, cv.Ratios[k], r.Beta/r.BetaMax, 0, 1e-12, "ratio")
			numtest.RequireClose(t, math.Pow(1e-2, float64(k)/(betas-1)), cv.Ratios[k], 0, 1e-12, "grid")
		}
	}
	assert.Equal(t, peakAt, cv.Chosen)
}
