package train

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/floats"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/sparse"
	"github.com/sparsetag/sparsetag/train/internal/traintest"
)

// bruteCurvature returns, for every state feature and transition of sp's
// model, (1/n) sum_t mu_t (1 - mu_t) over the places t where it can fire,
// mu_t its marginal at w by enumerating every label sequence: the diagonal
// of the loss's Hessian without the covariances between places.
func bruteCurvature(sp *solvedProblem, w []float64) []float64 {
	m, c := sp.m, sp.c
	L := m.NumLabels()
	out := make([]float64, len(m.W))
	for i := 0; i < c.Len(); i++ {
		start, T := c.Span(i)
		scores := traintest.Scores(m, w, c, i)
		z := floats.LogSumExp(scores)
		node, edge := make([]float64, T*L), make([]float64, T*L*L)
		y := make([]int, T)
		for _, s := range scores { // the order of nextPath
			p := math.Exp(s - z)
			for t, yt := range y {
				node[t*L+yt] += p
				if t > 0 {
					edge[(t*L+y[t-1])*L+yt] += p
				}
			}
			nextPath(y, L)
		}
		for t := range T {
			cols, _ := c.Unary.Row(start + t)
			for _, a := range cols {
				for yt := range L {
					mu := node[t*L+yt]
					out[int(a)*L+yt] += mu * (1 - mu)
				}
			}
			for k := 0; t > 0 && k < L*L; k++ {
				xi := edge[t*L*L+k]
				out[m.Layout.TransOffset()+k] += xi * (1 - xi)
			}
		}
	}
	floats.Scale(1/float64(c.Len()), out)
	return out
}

// TestCurvatureBoundBruteForce: the diagonal start's curvature h_j, from
// the observed means (objective.Features.ObservedCounts) and m at w, is at least
// the per-place sum of mu_t (1 - mu_t) by enumeration at every point and
// for every state feature and transition, and equal to it at w = 0, where
// every marginal is the same at every place.
func TestCurvatureBoundBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 9))
	sp := newSolvedProblem(t, rng, 12, 5)
	tr := sp.tr
	all := tr.fs.AllSlice()
	tr.obj.SetActive(slices.Clone(all), true)
	zero := make([]float64, len(sp.wStar))
	random := make([]float64, len(sp.wStar))
	for j := range random {
		random[j] = 2 * rng.NormFloat64()
	}
	for _, tc := range []struct {
		name string
		w    []float64
	}{{"zero", zero}, {"optimum", sp.wStar}, {"perturbed", perturbed(sp, rng, 1)}, {"random", random}} {
		x := make([]float64, len(all))
		sparse.Gather(x, tc.w, all)
		_, m, err := tr.evaluate(context.Background(), x, make([]float64, len(x)))
		require.NoError(t, err)
		obs, tot := make([]float64, len(all)), make([]float64, len(all))
		tr.fs.ObservedCounts(all, obs, tot)
		checkObservedSubset(t, sp, rng, all, obs, tot)
		n := float64(sp.c.Len())
		floats.Scale(1/n, obs)
		floats.Scale(1/n, tot)
		inv := curvatureInverse(obs, tot, m, sp.lam2)
		want := bruteCurvature(sp, tc.w)
		for k, j := range all {
			h := 1/inv[k] - sp.lam2
			if tc.name == "zero" {
				approxScalar(t, tc.name+": h at w = 0", want[j], h, 1e-12, 1e-9)
				continue
			}
			require.GreaterOrEqual(t, h, want[j]-1e-12, "%s: feature %d", tc.name, j)
		}
	}
}

// checkObservedSubset: ObservedCounts over a random subset of the features
// gives the values it gives over all of them (obs, tot), so a block's sum
// does not depend on which of its features come first.
func checkObservedSubset(t *testing.T, sp *solvedProblem, rng *rand.Rand, all []int32, obs, tot []float64) {
	t.Helper()
	var sub []int32
	var want, wantTot []float64
	for k, j := range all {
		if rng.IntN(3) == 0 {
			sub, want, wantTot = append(sub, j), append(want, obs[k]), append(wantTot, tot[k])
		}
	}
	o, n := make([]float64, len(sub)), make([]float64, len(sub))
	sp.tr.fs.ObservedCounts(sub, o, n)
	require.Equal(t, want, o)
	require.Equal(t, wantTot, n)
}

// TestObservedCountsBlocks: with pair features, every feature's total is the
// sum of the observed means over its block, found here from the layout
// (the labels of a state feature's attribute, every transition, the label
// pairs of a pair attribute), over all features and over a subset.
func TestObservedCountsBlocks(t *testing.T) {
	rng := rand.New(rand.NewPCG(40, 41))
	c := randomCorpus(rng, 10, 5, 4, 2, 3, false)
	m, err := chain.NewModel(labelNames(3), 4, c.NumPair, true, nil)
	require.NoError(t, err)
	op := Options{Method: Method{Screen: ScreenNone, Solver: SolverFull}}
	tr := newTrainer(m, c, op.defaults())
	require.NoError(t, tr.prepare(context.Background()))
	all := tr.fs.AllSlice()
	require.Len(t, all, len(m.W))
	obs, tot := make([]float64, len(all)), make([]float64, len(all))
	tr.fs.ObservedCounts(all, obs, tot)
	lay, L := m.Layout, m.NumLabels()
	block := func(j int) (int, int) {
		switch {
		case j < lay.TransOffset():
			return j / L * L, j/L*L + L
		case j < lay.PairOffset():
			return lay.TransOffset(), lay.PairOffset()
		}
		p := (j - lay.PairOffset()) / (L * L)
		return lay.PairOffset() + p*L*L, lay.PairOffset() + (p+1)*L*L
	}
	pairs := 0
	for j := range all {
		lo, hi := block(j)
		approxScalar(t, "total", floats.Sum(obs[lo:hi]), tot[j], 1e-15, 1e-12)
		if j >= lay.PairOffset() && tot[j] > 0 {
			pairs++
		}
	}
	require.Positive(t, pairs, "no pair feature fires: the test does not cover pairs")
	sp := &solvedProblem{tr: tr}
	checkObservedSubset(t, sp, rng, all, obs, tot)
}

// TestCurvatureInverseClamps: an expected count outside [0, N] (signed
// values, rounding) or an empty block gives h = 0, the step 1/l2, never a
// negative or infinite element (which owlqn.SetDiagonal would refuse).
func TestCurvatureInverseClamps(t *testing.T) {
	const l2 = 0.25
	obs := []float64{-1, 3, 1, 0.5}
	tot := []float64{2, 2, 0, 2}
	m := []float64{0, 0, 0, -0.5}
	inv := curvatureInverse(obs, tot, m, l2)
	require.Equal(t, []float64{1 / l2, 1 / l2, 1 / l2, 1 / (0.5 + l2)}, inv)
}
