package certificate

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sparsetag/sparsetag/screen"
)

// TestF32ErrBounds: for every float64 m with a finite float32 rounding s,
// |m - s| <= ErrorBound(s), on random magnitudes across the whole float32
// range, values half a spacing from s (the worst case of rounding to
// nearest), around powers of two (where the spacing changes) and in the
// subnormal range; and the bound is at most twice the worst case.
func TestF32ErrBounds(t *testing.T) {
	rng := rand.New(rand.NewPCG(91, 92))
	check := func(m float64) {
		s := float64(float32(m))
		require.False(t, math.IsInf(s, 0), "m %g", m)
		assert.LessOrEqual(t, math.Abs(m-s), ErrorBound(s), "m %g s %g", m, s)
	}
	for range 200000 {
		m := math.Ldexp(rng.Float64()+0.5, rng.IntN(286)-160)
		if rng.IntN(2) == 0 {
			m = -m
		}
		check(m)
		// Just under half a spacing above and below s: rounds back to s.
		s := float32(m)
		up, dn := math.Nextafter32(s, float32(math.Inf(1))), math.Nextafter32(s, float32(math.Inf(-1)))
		check(float64(s) + 0.4999*(float64(up)-float64(s)))
		check(float64(s) - 0.4999*(float64(s)-float64(dn)))
		check(float64(s) + 0.5*(float64(up)-float64(s))) // a tie
	}
	for p := -160; p <= 127; p++ {
		for _, f := range []float64{1 - 0x1p-25, 1 - 0x1p-26, 1, 1 + 0x1p-24, 1 + 0x1p-25} {
			check(math.Ldexp(f, p))
			check(-math.Ldexp(f, p))
		}
	}
	check(0)
	check(math.SmallestNonzeroFloat64)
	check(0x1p-150)
	check(0x1p-150 * 1.5)
	// Not loose: within a factor 2 of half the spacing at s = 1.
	assert.LessOrEqual(t, ErrorBound(1), 2*0x1p-24)
}

// TestNarrowIntoRefusesOverflow: a value beyond the float32 range leaves
// the buffer untouched (a history push must not overwrite the oldest pass
// with unbounded values).
func TestNarrowIntoRefusesOverflow(t *testing.T) {
	dst := []float32{1, 2, 3}
	out, ok := Narrow(dst, []float64{5, 6, 1e39})
	assert.False(t, ok)
	assert.Equal(t, []float32{1, 2, 3}, out)
	out, ok = Narrow(dst, []float64{5, math.NaN(), 7})
	assert.False(t, ok)
	assert.Equal(t, []float32{1, 2, 3}, out)
	var h History
	h.Push([]float64{1, 2}, 0, 0)
	h.Push([]float64{1, math.Inf(1)}, 0, 0)
	assert.Len(t, h.m, 1, "a pass with an infinite m was recorded")
}

// phiExact returns Phi(c) from exact float64 vectors over every feature:
// sum_k c_k max(D_k, 0) + sum_j g(w_j, sum_k c_k m_k,j), with D_k =
// loss - losses[k] + m_k . (w - w_k) given as m_k . w - mw[k] (D_0 = 0;
// the last component is the gold labelings, m = 0 and D = loss).
func phiExact(w []float64, ms [][]float64, loss float64, losses, mw []float64, c []float64, l1, l2 float64) float64 {
	K := len(ms) // m_0, history
	phi := c[K] * loss
	for k := 1; k < K; k++ {
		d := loss - losses[k-1] - mw[k-1]
		for j, v := range w {
			d += ms[k][j] * v
		}
		phi += c[k] * math.Max(d, 0)
	}
	for j, v := range w {
		M := 0.0
		for k := range K {
			M += c[k] * ms[k][j]
		}
		phi += screen.GapTerm(v, M, l2/l1, l1)
	}
	return phi
}

// awayFromZero returns a float64 that rounds to the float32 s and lies
// 0.45 spacings farther from 0: the stored value underestimates |m|.
func awayFromZero(s float32) float64 {
	up := math.Nextafter32(float32(math.Abs(float64(s))), float32(math.Inf(1)))
	return math.Copysign(math.Abs(float64(s))+0.45*(float64(up)-math.Abs(float64(s))), float64(s))
}

// TestMixtureF32Adversarial: a synthetic certificate whose history values
// all round toward zero in float32 (the stored |m| is below the exact one)
// and sit just beyond l1, where g grows with |m|, and whose points favour
// the history (the current point's own gap is large). The reported Phi
// must bound the exact-history Phi at the same c from above (dropping the
// interval correction of upperValue or divergenceUp fails here), stay
// within 1e-2 of it, and not be worse than the exact-history certificate
// of Gap by more than that; the screening point must bound |M| of the exact
// mixture; a coordinate whose exact |m| exceeds l1 while its float32 does
// not must be kept in J.
func TestMixtureF32Adversarial(t *testing.T) {
	rng := rand.New(rand.NewPCG(93, 94))
	const n = 400
	l1, l2 := 1.0, 1e-3
	for trial := range 8 {
		w := make([]float64, n)
		for j := range w {
			// Odd trials: w = 0, no D slack, only the intervals of M count.
			if j%3 == 0 && trial%2 == 0 {
				w[j] = rng.NormFloat64()
			}
		}
		// The ideal m for w: g(w_j, m_j) = 0.
		ideal := func(j int) float64 {
			if w[j] == 0 {
				return (2*rng.Float64() - 1) * l1
			}
			return math.Copysign(l1+l2*math.Abs(w[j]), w[j])
		}
		ms := [][]float64{make([]float64, n)}
		for j := range n {
			ms[0][j] = ideal(j) + 0.3*rng.NormFloat64() // a poor current point
		}
		loss, losses, mws := 2.0, []float64{}, []float64{}
		for range Passes {
			mk := make([]float64, n)
			for j := range n {
				v := ideal(j)
				// Trials 2 and 6: no |m| beyond l1; the intervals of M then
				// cost second order (g is flat at the ideal m) and the
				// slack of D_k is what keeps Phi above the exact value.
				if w[j] == 0 && j%2 == 0 && trial%4 != 2 {
					v = math.Copysign(l1*(1+1e-3*rng.Float64()), rng.NormFloat64())
				}
				mk[j] = awayFromZero(float32(v))
			}
			// j = 1 (w = 0): the exact |m| exceeds l1, the float32 does not.
			mk[1] = awayFromZero(float32(l1))
			mw := 0.0
			for j := range n {
				mw += mk[j] * w[j]
			}
			ms = append(ms, mk)
			// D_k = loss - loss_k + m_k.w - mw_k: a small positive value.
			losses, mws = append(losses, loss-1e-7*(1+float64(trial))), append(mws, mw)
		}
		gap := 0.0
		for j, v := range w {
			gap += screen.GapTerm(v, ms[0][j], l2/l1, l1)
		}
		mix32, c, full := runMixture(w, ms, loss, losses, mws, gap, l1, l2, false)
		require.Less(t, mix32, gap, "trial %d: the mixture did not beat the plain gap", trial)
		exact := phiExact(w, ms, loss, losses, mws, c, l1, l2)
		assert.GreaterOrEqual(t, mix32, exact*(1-1e-13), "trial %d: the float32 certificate is below the exact Phi at its c", trial)
		// The slack: sum_j E_j |g'| (at most 1e-2 relative here) and at
		// most 2^-24 sum_j |m_j w_j| + tiny in D_k (large against D_k =
		// 1e-7 by design).
		dSlack := 0.0
		for _, v := range w {
			dSlack += 0x1p-23 * math.Abs(v) * (l1 + l2*math.Abs(v))
		}
		assert.LessOrEqual(t, mix32, exact*(1+1e-2)+dSlack, "trial %d: loose", trial)
		// Six Frank-Wolfe steps take another path with the exact history
		// and may end 6x higher or 25% lower here (the search, not the
		// bound: compare the same c above): within a small factor.
		mix64, _, _ := runMixture(w, ms, loss, losses, mws, gap, l1, l2, true)
		assert.LessOrEqual(t, mix32, 1.5*mix64+dSlack, "trial %d", trial)
		for j := range n {
			M := 0.0
			for k := range ms {
				M += c[k] * ms[k][j]
			}
			assert.GreaterOrEqual(t, math.Abs(full[j]), math.Abs(M)*(1-1e-15), "trial %d: |M_%d| above its screening bound", trial, j)
		}
		t.Logf("trial %d: gap %.6g, Phi float32 %.10g, exact at its c %.10g, exact history %.10g", trial, gap, mix32, exact, mix64)
	}
	// J keeps a coordinate whose stored |s| = l1 but whose interval exceeds it.
	r := Pass{M: make([]float64, 4)}
	var h History
	h.Push([]float64{0, awayFromZero(float32(l1)), 0, 0}, 0, 0)
	mx := Mixture{l1: l1, ab: l2}
	mx.gather(r, h.m)
	assert.Equal(t, []int32{1}, mx.idx)
}

// runMixture runs mixGap on a synthetic run over n features with the
// current m_0 = ms[0] and the history ms[1:] (oldest last), returning Phi,
// the mixture weights and the screening point. With exact64 the history
// bypasses float32 (for the reference certificate).
func runMixture(w []float64, ms [][]float64, loss float64, losses, mws []float64, gap, l1, l2 float64, exact64 bool) (float64, []float64, []float64) {
	r := Pass{M: ms[0]}
	for q, v := range w {
		if v != 0 {
			r.Supp, r.SuppW = append(r.Supp, int32(q)), append(r.SuppW, v)
		}
	}
	var h History
	var mx Mixture
	for k := len(ms) - 1; k >= 1; k-- {
		h.Push(ms[k], losses[k-1], mws[k-1])
	}
	if exact64 {
		// The stored history with exact values: what float32 may not see.
		// upperValue's radius then still applies, at most 2^-23 relative.
		return exactMixGap(&mx, &h, r, ms, l1, l2, gap, loss)
	}
	phi := mx.Gap(&h, r, l1, l2, gap, loss)
	full := make([]float64, len(w)) // |M| as the screening sees it
	for q, v := range r.M {
		full[q] = math.Abs(v)
		if mx.Won() {
			full[q] = mx.WorstAbsM(&h, r.M, q)
		}
	}
	return phi, append([]float64(nil), mx.c...), full
}

// exactMixGap is the Frank-Wolfe certificate of mixGap with the exact
// float64 history: D_k exact, M over J exact, no interval correction.
func exactMixGap(mx *Mixture, h *History, r Pass, ms [][]float64, l1, l2, gap, loss float64) (float64, []float64, []float64) {
	mx.l1, mx.ab = l1, l2
	mx.d = append(mx.d[:0], 0)
	for k := range h.m {
		d := loss - h.loss[k] - h.mw[k]
		for s, q := range r.Supp {
			d += ms[k+1][q] * r.SuppW[s]
		}
		mx.d = append(mx.d, math.Max(d, 0))
	}
	mx.gather(r, h.m)
	for k := 1; k < len(ms); k++ {
		for i, q := range mx.idx {
			mx.ms[k][i] = ms[k][q]
		}
	}
	mx.d = append(mx.d, loss)
	phi := mx.minimize(mx.valueAtVertex())
	return math.Min(phi, gap), mx.c, nil
}
