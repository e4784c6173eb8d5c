package selection

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/corpora"
	"github.com/sparsetag/sparsetag/dataset"
	"github.com/sparsetag/sparsetag/train"
)

// conllExamples returns sentences [from, to) of CoNLL-2000's training set
// with their chunk labels.
func conllExamples(t testing.TB, from, to int) []dataset.Example {
	t.Helper()
	seqs, err := corpora.EmbeddedCoNLL2000("train")
	require.NoError(t, err)
	exs := make([]dataset.Example, 0, to-from)
	for _, s := range seqs[from:to] {
		exs = append(exs, dataset.FromSequence("conll2000/train", s))
	}
	return exs
}

// TestCrossValidatePrior: cross-validation with an old model as prior
// (CVFold.Prior, docs/prior.md section 8) trains every fold as w = w0 + v:
//
//   - at the first grid point (beta_max of the fold, where v = 0) each
//     fold's score is the old model's own F1 on the held-out part (without
//     the prior that model would have every weight zero);
//   - the refit with the prior at a chosen ratio is, within the certified
//     radii, the model Train gives with the same prior at that penalty
//     (checked at the chosen ratio and at the last grid point).
func TestCrossValidatePrior(t *testing.T) {
	const K = 3
	old, oldC := encodeExamples(t, conllExamples(t, 0, 200))
	_, err := train.Train(context.Background(), old, oldC, train.Options{Resources: train.Resources{Threads: 1}})
	require.NoError(t, err)
	all := conllExamples(t, 200, 290)
	opts := train.Options{Problem: train.Problem{SumForm: true, C1: 1, C2: 1}, Resources: train.Resources{Threads: 1}}
	cv, err := CrossValidate(context.Background(), opts, CVOptions{Folds: K, Betas: 8, MinRatio: 1e-2, Patience: 8,
		Fold: func(f int) (CVFold, error) {
			tr, held := Fold(all, K, f)
			m, c := encodeExamples(t, tr)
			pm, w0, err := m.WithPrior(old)
			require.NoError(t, err)
			return CVFold{Model: pm, Corpus: c, Score: f1Scorer(t, pm, held), Prior: w0}, nil
		}})
	require.NoError(t, err)
	for f := range K {
		_, held := Fold(all, K, f)
		ev, err := dataset.EvaluateAll(chain.NewTagger(old), held, 0)
		require.NoError(t, err)
		assert.Equal(t, ev.F1(), cv.Scores[0][f], "fold %d: the score at beta_max is the old model's", f)
	}
	require.Greater(t, len(cv.Ratios), 1)
	for _, k := range slices.Compact([]int{cv.Chosen, len(cv.Ratios) - 1}) {
		r := *cv
		r.Chosen = k
		checkPriorRefit(t, &r, old, all, opts)
	}
}

// checkPriorRefit refits on all with the prior old at r's chosen ratio and
// compares with Train at that penalty and prior.
func checkPriorRefit(t *testing.T, r *CVResult, old *chain.Model, all []dataset.Example, opts train.Options) {
	t.Helper()
	nm, c := encodeExamples(t, all)
	m, w0, err := nm.WithPrior(old)
	require.NoError(t, err)
	opts.Prior, opts.Stopping = w0, train.Stopping{Epsilon: 1e-9} // a tight radius
	res, err := r.Refit(context.Background(), m, c, opts, nil)
	require.NoError(t, err)
	last := res[len(res)-1]
	ref, _, err := nm.WithPrior(old)
	require.NoError(t, err)
	rr, err := train.Train(context.Background(), ref, c, train.Options{Problem: train.Problem{Beta: last.Beta, Alpha: last.Alpha, Prior: w0},
		Stopping: train.Stopping{Epsilon: 1e-9}, Resources: train.Resources{Threads: 1}})
	require.NoError(t, err)
	moved, dist := 0, 0.0
	for j := range m.W {
		dist += (m.W[j] - ref.W[j]) * (m.W[j] - ref.W[j])
		if ref.W[j] != w0[j] {
			moved++
		}
	}
	rad := math.Sqrt(2*last.Gap/last.Lambda2) + math.Sqrt(2*rr.Gap/rr.Lambda2)
	assert.LessOrEqual(t, math.Sqrt(dist), rad*(1+1e-9)+1e-12, "ratio %g: refit within the certified radius of Train", r.Ratios[r.Chosen])
	if r.Chosen == len(r.Ratios)-1 {
		assert.Positive(t, moved, "at the last grid point the new data moves some weight")
	}
	t.Logf("ratio %g (index %d): %d weights moved from the prior, distance %.3g, radius %.3g", r.Ratios[r.Chosen], r.Chosen, moved, math.Sqrt(dist), rad)
}
