package train

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sparsetag/sparsetag/chain"
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

// TestBestShiftMinimizes: bestShift's c satisfies 0 in the subdifferential
// of phi (checked as: phi at c is no larger than at c +- h for small h,
// and no larger than anywhere on a fine grid), on vectors with ties, zeros
// and every sign balance, and at penalties where l1 or l2 dominates.
func TestBestShiftMinimizes(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	var scratch []float64
	for trial := range 400 {
		n := 1 + rng.IntN(12)
		v := make([]float64, n)
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
		c, scratch = bestShift(v, l1, l2, scratch)
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

// TestGaugeDirectionsKeepTheLikelihood: the average NLL, enumerated over
// every label sequence, is the same at w and at w moved by c along one
// attribute's state weights (all labels) or along every transition, with
// real-valued attributes and pair features; this is what lets gaugeShift
// move without an evaluation.
func TestGaugeDirectionsKeepTheLikelihood(t *testing.T) {
	rng := rand.New(rand.NewPCG(43, 44))
	const L, attrs = 3, 5
	c := randomCorpus(rng, 10, 4, attrs, 2, L, true)
	m, err := chain.NewModel(labelNames(L), attrs, 2, true, nil)
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
	// A move that is not a symmetry does change it (the test can fail).
	assert.Greater(t, math.Abs(base-traintest.NLL(m, move(0, L-1, 0.7), c)), 1e-6)
}

// TestGaugeShiftLowersThePenalty: on a trainer's active set, gaugeShift
// moves only complete groups (every label of an attribute, every
// transition), lowers the penalty by what it reports, adds l2 times the
// move to the gradient, and a second call moves nothing further.
func TestGaugeShiftLowersThePenalty(t *testing.T) {
	rng := rand.New(rand.NewPCG(45, 46))
	const L, attrs = 4, 6
	c := randomCorpus(rng, 8, 4, attrs, 0, L, false)
	m, err := chain.NewModel(labelNames(L), attrs, 0, true, nil)
	require.NoError(t, err)
	tr := newTrainer(m, c, (&Options{Resources: Resources{Threads: 1}}).defaults())
	tr.pen.l1, tr.pen.l2 = 0.05, 0.02
	// Attribute 2 misses label 1 (an incomplete group: it must not move).
	var act []int32
	for j := range int32(m.Layout.TransOffset() + L*L) {
		if j != int32(2*L+1) {
			act = append(act, j)
		}
	}
	x, g := make([]float64, len(act)), make([]float64, len(act))
	for k := range x {
		x[k] = 2 + rng.NormFloat64() // all one sign: a shift pays
	}
	pen := func(x []float64) float64 { return penaltyLine(x, 0, tr.pen.l1, tr.pen.l2) }
	x0 := append([]float64(nil), x...)
	dL2, moved := tr.gaugeShift(act, x, g)
	assert.Equal(t, attrs-1+1, moved, "every complete attribute and the transitions")
	assert.Less(t, pen(x), pen(x0))
	l2Before, l2After := 0.0, 0.0
	for k := range x {
		l2Before += 0.5 * tr.pen.l2 * x0[k] * x0[k]
		l2After += 0.5 * tr.pen.l2 * x[k] * x[k]
		assert.InDelta(t, tr.pen.l2*(x[k]-x0[k]), g[k], 1e-15)
		if act[k] >= int32(2*L) && act[k] < int32(3*L) {
			assert.Equal(t, x0[k], x[k], "the incomplete group moved")
		}
	}
	assert.InDelta(t, l2After-l2Before, dL2, 1e-12)
	x1 := append([]float64(nil), x...)
	tr.gaugeShift(act, x, nil)
	for k := range x {
		assert.InDelta(t, x1[k], x[k], 1e-12, "not idempotent")
	}
}
