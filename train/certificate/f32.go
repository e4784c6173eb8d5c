package certificate

import (
	"math"
	"sync/atomic"

	"github.com/sparsetag/sparsetag/screen"
	"github.com/sparsetag/sparsetag/train/internal/blocks"
)

// The history of the mixture certificate is stored in float32 (half the
// memory of float64: 4 bytes per unscreened feature and kept pass), and
// the certificate stays rigorous: every stored value s = float32(m) is an
// interval [s - e(s), s + e(s)] that surely contains the exact m, and
// every number the certificate reports is the supremum (or an upper bound
// of it) over those intervals. The current pass's m_0 and the gold
// component stay exact (float64), so Phi(e_0) is the plain gap exactly.
//
// The three places where stored values enter, and their bounds:
//
//  1. D_k = L(w) - L(w_k) + m_k . w - m_k . w_k: m_k . w_k was computed at
//     push time from the exact m_k; m_k . w <= s_k . w + sum_j e(s_k,j) |w_j|
//     (divergenceUp). D_k is never underestimated.
//  2. The terms g(w_j, M_j) with M_j = sum_k c_k m_k,j: M_j lies in
//     [Ms_j - E_j, Ms_j + E_j], Ms_j = sum_k c_k s_k,j and E_j = sum_k c_k
//     e(s_k,j) (e = 0 for m_0 and the gold component). g(w, .) is convex
//     (screen.GapTerm: a convex quadratic spline in m), so its supremum over
//     an interval is at an endpoint: max(g(w_j, Ms_j - E_j), g(w_j, Ms_j +
//     E_j)) (mixture.upperValue). Outside the coordinates J the mixture
//     keeps, every exact m_k,j lies in [-l1, l1] (gather keeps j when
//     |s| + e(s) > l1), so every convex combination does and g(0, .) = 0
//     there exactly.
//  3. Screening (the Pinsker rule) needs |M_j| of the same dual point whose
//     gap bounds the radius: |M_j| <= |Ms_j| + E_j, and the rule is applied
//     to that worst case (worstAbsM, screenMixture) with the upper bound Phi
//     of step 2.
//
// The Frank-Wolfe search itself works on the stored values (any c in the
// simplex certifies); only the value it returns is made rigorous.

// f32Abs is the absolute part of e: 2^-149, the smallest positive float32
// (twice the largest rounding error in the subnormal range).
const f32Abs = 0x1p-149

// ErrorBound returns e(s) = |s| 2^-24 + 2^-149, a bound on |m - s| for every
// float64 m that rounds to the finite float32 s (Go's conversion rounds to
// nearest, ties to even).
//
// Proof. If |s| >= 2^-126 (normal), let 2^p <= |s| < 2^(p+1). The float32
// spacing is 2^(p-23) on [2^p, 2^(p+1)) and 2^(p-24) just below 2^p, and
// 2^(p+1) is representable, so an m rounding to s lies within half a
// spacing of it: |m - s| <= 2^(p-24) <= |s| 2^-24. Otherwise m lies in the
// subnormal range or rounds up to 2^-126 from it, where the spacing is
// 2^-149: |m - s| <= 2^-150. Computed in float64, |s| 2^-24 is exact and
// the rounded sum is at least max(|s| 2^-24, 2^-150) (rounding is
// monotone and the exact sum exceeds both by a factor >= 1 + 2^-125 or 2).
func ErrorBound(s float64) float64 { return math.Abs(s)*0x1p-24 + f32Abs }

// Narrow stores float32(m) into dst (resized) and reports whether
// every value stays finite. A value beyond the float32 range (or NaN) has
// no error bound: then dst is returned untouched and false.
func Narrow(dst []float32, m []float64) ([]float32, bool) { return narrow(dst, m, 1) }

// narrow is Narrow over fixed blocks of m on threads goroutines.
func narrow(dst []float32, m []float64, threads int) ([]float32, bool) {
	var bad atomic.Bool
	blocks.For(threads, len(m), func(_, lo, hi int) {
		for _, v := range m[lo:hi] {
			if s := float64(float32(v)); math.IsInf(s, 0) || s != s {
				bad.Store(true)
				return
			}
		}
	})
	if bad.Load() {
		return dst, false
	}
	if cap(dst) < len(m) {
		dst = make([]float32, len(m))
	}
	dst = dst[:len(m)]
	blocks.For(threads, len(m), func(_, lo, hi int) {
		for i, v := range m[lo:hi] {
			dst[lo+i] = float32(v)
		}
	})
	return dst, true
}

// divergenceUp returns an upper bound on D_k = L(w) - L(w_k) + m_k . w -
// m_k . w_k for the stored pass k, with loss = L(w) and w = the support of
// r: m_k . w is bounded by s_k . w + sum_j e(s_k,j) |w_j| (ErrorBound),
// the rest is exact. It is clamped at 0 (D_k >= 0 is a KL divergence).
func (h *History) divergenceUp(k int, r Pass, loss float64) float64 {
	mk := h.m[k]
	dot, slack := 0.0, 0.0
	for s, q := range r.Supp {
		v, w := float64(mk[q]), r.SuppW[s]
		dot += v * w
		slack += ErrorBound(v) * math.Abs(w)
	}
	return math.Max(loss-h.loss[k]+dot+slack-h.mw[k], 0)
}

// radius returns E_j = sum_k c_k e(s_k,j) over the stored components of
// the mixture at the J-position j (m_0 and the gold component are exact).
func (mx *Mixture) radius(j int) float64 {
	e := 0.0
	for k := 1; k < len(mx.ms)-1; k++ {
		if ck := mx.c[k]; ck != 0 {
			e += ck * ErrorBound(mx.ms[k][j])
		}
	}
	return e
}

// upperValue returns Phi(c) at the current c as a rigorous upper bound
// over the intervals of the stored values: sum_k c_k D_k (D_k already
// upper bounds, divergenceUp) plus, per coordinate of J, the larger of
// g(w_j, .) at the two ends of [Ms_j - E_j, Ms_j + E_j] (g is convex in
// m, so the supremum over the interval is at an end). Ms is recomputed
// from c (not the Frank-Wolfe's running update) into mx.mix.
func (mx *Mixture) upperValue() float64 {
	phi := 0.0
	for k, ck := range mx.c {
		phi += ck * mx.d[k]
	}
	alpha := mx.ab / mx.l1
	for j := range mx.mix {
		ms := 0.0
		for k, ck := range mx.c {
			if ck != 0 {
				ms += ck * mx.ms[k][j]
			}
		}
		mx.mix[j] = ms
		g := screen.GapTerm(mx.w[j], ms, alpha, mx.l1)
		if e := mx.radius(j); e > 0 {
			g = math.Max(screen.GapTerm(mx.w[j], ms-e, alpha, mx.l1), screen.GapTerm(mx.w[j], ms+e, alpha, mx.l1))
		}
		phi += g
	}
	return phi
}

// WorstAbsM returns |Ms_q| + E_q for the feature at position q of u: an
// upper bound on |M_q| of the exact mixture, with Ms_q = c_0 mU_q + sum_k
// c_k s_k,q and E_q = sum_k c_k e(s_k,q) (the gold component has M = 0;
// outside J too, where the history may hold any value in [-l1, l1]). It
// needs the history as Gap saw it: mU the current pass's m, the pass
// itself still pending.
func (mx *Mixture) WorstAbsM(h *History, mU []float64, q int) float64 {
	ms, e := mx.c[0]*mU[q], 0.0
	for k, mk := range h.m {
		if ck := mx.c[k+1]; ck != 0 {
			s := float64(mk[q])
			ms += ck * s
			e += ck * ErrorBound(s)
		}
	}
	return math.Abs(ms) + e
}
