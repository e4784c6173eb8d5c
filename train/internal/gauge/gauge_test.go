package gauge

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/internal/chaintest"
	"github.com/sparsetag/sparsetag/train/internal/traintest"
)

// penaltyLine is phi(c) = sum_j (l2/2)(v_j+c)^2 + l1|v_j+c|.
func penaltyLine(v []float64, c, l1, l2 float64) float64 {
	s := 0.0
	for _, x := range v {
		s += 0.5*l2*(x+c)*(x+c) + l1*math.Abs(x+c)
	}
	return s
}

// TestBestShiftMinimizes: BestShift's c is no worse than c +- h for small
// h and than every point of a fine grid, on vectors with ties, zeros and
// every sign balance, at penalties where l1 or l2 dominates.
func TestBestShiftMinimizes(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	var scratch []float64
	for trial := range 400 {
		v := make([]float64, 1+rng.IntN(12))
		for k := range v {
			switch rng.IntN(4) {
			case 0:
				v[k] = 0
			case 1:
				v[k] = float64(rng.IntN(3) - 1) // ties
			default:
				v[k] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(3)-1))
			}
		}
		l1 := math.Pow(10, float64(rng.IntN(5)-3))
		l2 := math.Pow(10, float64(rng.IntN(5)-3))
		var c float64
		c, scratch = BestShift(v, l1, l2, scratch)
		phi := penaltyLine(v, c, l1, l2)
		tol := 1e-12 * (1 + phi)
		for _, h := range []float64{1e-3, 1e-6} {
			assert.LessOrEqual(t, phi, penaltyLine(v, c+h, l1, l2)+tol, "trial %d: v %v l1 %g l2 %g c %g", trial, v, l1, l2, c)
			assert.LessOrEqual(t, phi, penaltyLine(v, c-h, l1, l2)+tol, "trial %d: v %v l1 %g l2 %g c %g", trial, v, l1, l2, c)
		}
		for g := -200; g <= 200; g++ {
			assert.LessOrEqual(t, phi, penaltyLine(v, float64(g)/20, l1, l2)+tol, "trial %d: grid", trial)
		}
	}
}

// TestDirectionsKeepTheLikelihood: the average NLL, enumerated over every
// label sequence, is the same at w and at w moved by c along one
// attribute's state weights (all labels) or along every transition, with
// real-valued attributes and pair features; this is what lets Shift move
// without an evaluation. A move that is not a symmetry changes it.
func TestDirectionsKeepTheLikelihood(t *testing.T) {
	rng := rand.New(rand.NewPCG(43, 44))
	const L, attrs = 3, 5
	c := chaintest.RandomCorpus(rng, 10, 4, attrs, 2, L, true)
	m, err := chain.NewModel(chaintest.LabelNames(L), attrs, 2, true, nil)
	require.NoError(t, err)
	w := make([]float64, len(m.W))
	for j := range w {
		w[j] = rng.NormFloat64()
	}
	base := traintest.NLL(m, w, c)
	move := func(from, n int, by float64) []float64 {
		v := append([]float64(nil), w...)
		for j := from; j < from+n; j++ {
			v[j] += by
		}
		return v
	}
	for a := range attrs {
		assert.InDelta(t, base, traintest.NLL(m, move(a*L, L, 0.7), c), 1e-12*base, "attribute %d", a)
	}
	assert.InDelta(t, base, traintest.NLL(m, move(m.Layout.TransOffset(), L*L, -1.3), c), 1e-12*base, "transitions")
	assert.Greater(t, math.Abs(base-traintest.NLL(m, move(0, L-1, 0.7), c)), 1e-6)
}

// TestShiftLowersThePenalty: Shift moves only complete groups (every label
// of an attribute, every transition), lowers the penalty, reports the
// change of the L2 term, adds l2 times the move to the gradient, and a
// second call moves nothing further.
func TestShiftLowersThePenalty(t *testing.T) {
	rng := rand.New(rand.NewPCG(45, 46))
	const L, attrs = 4, 6
	m, err := chain.NewModel(chaintest.LabelNames(L), attrs, 0, true, nil)
	require.NoError(t, err)
	l1, l2 := 0.05, 0.02
	var act []int32 // attribute 2 misses label 1: an incomplete group
	for j := range int32(m.Layout.TransOffset() + L*L) {
		if j != int32(2*L+1) {
			act = append(act, j)
		}
	}
	x, g := make([]float64, len(act)), make([]float64, len(act))
	for k := range x {
		x[k] = 2 + rng.NormFloat64() // one sign: a shift pays
	}
	x0 := append([]float64(nil), x...)
	dL2, moved := Shift(m.Layout, act, x, g, l1, l2)
	assert.Equal(t, attrs-1+1, moved, "every complete attribute and the transitions")
	assert.Less(t, penaltyLine(x, 0, l1, l2), penaltyLine(x0, 0, l1, l2))
	want := 0.0
	for k := range x {
		want += 0.5 * l2 * (x[k]*x[k] - x0[k]*x0[k])
		assert.InDelta(t, l2*(x[k]-x0[k]), g[k], 1e-15)
		if act[k] >= int32(2*L) && act[k] < int32(3*L) {
			assert.Equal(t, x0[k], x[k], "the incomplete group moved")
		}
	}
	assert.InDelta(t, want, dL2, 1e-12)
	x1 := append([]float64(nil), x...)
	Shift(m.Layout, act, x, nil, l1, l2)
	for k := range x {
		assert.InDelta(t, x1[k], x[k], 1e-12, "not idempotent")
	}
}
