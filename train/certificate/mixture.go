package certificate

import (
	"math"
	"slices"

	"github.com/sparsetag/sparsetag/screen"
	"github.com/sparsetag/sparsetag/train/internal/blocks"
	"gonum.org/v1/gonum/floats"
)

// A better certificate from past full passes (../shared/docs/dual-certificate.md,
// section 4, "mixtures of past model distributions"). Any feasible dual
// point q certifies w:
//
//	G(w, q) = (1/n) sum_i KL(q_i || p_w,i) + sum_j g(w_j, M_j(q)) >= P(w) - P(w*).
//
// Take q_i = sum_k c_k p_{w_k,i}, a convex combination of the model
// distributions of the current point w_0 = w and of K earlier full passes
// w_1..w_K. M is linear in c: M(q) = sum_k c_k m_k. KL is convex in its first
// argument, so (1/n) sum_i KL(q_i || p_w,i) <= sum_k c_k D_k with
//
//	D_k = (1/n) sum_i KL(p_{w_k,i} || p_w,i) = L(w) - L(w_k) + m_k . (w - w_k) >= 0,
//
// the Bregman divergence of the average log-loss L between w and w_k (for a
// log-linear model KL(p_k || p_w) = log Z(w) - log Z(w_k) - (w - w_k) . E_k F,
// and m_k = -grad L(w_k)). Hence
//
//	Phi(c) = sum_k c_k D_k + sum_j g(w_j, sum_k c_k m_k,j) >= G(w, q) >= P(w) - P(w*)
//
// for every c in the simplex, with Phi(e_0) = today's gap (D_0 = 0). Phi is
// convex in c; Gap lowers it by Frank-Wolfe steps from e_0, so the result
// is never above today's gap. Nothing needs the entropies: L, m and w of
// each pass suffice. Screening with the mixture uses M(q) and Phi, as the
// Pinsker rule needs only a feasible dual point and an upper bound on its
// gap (dual-certificate.md, section 2).
//
// One more component needs no pass: the gold labelings q_i = delta(y_i),
// with M(q) = 0 and D = (1/n) sum_i -log p_w(y_i | x_i) = L(w) exactly
// (see gather). It makes the certificate useful from the first full pass,
// where no history exists yet.

const (
	// Passes is the number of earlier full passes a History keeps.
	Passes = 4

	mixPasses = Passes
	mixSteps  = 6  // Frank-Wolfe steps per certificate
	mixNewton = 8  // Newton steps of each line search at most
	mixMinLen = 64 // below this many unscreened features the plain gap is used
)

// Pass is the full pass just priced, over the unscreened features u: m
// over u (exact) and the support of w, as positions in u (increasing) and
// the weights there.
type Pass struct {
	M     []float64
	Supp  []int32
	SuppW []float64
}

// History holds m over the unscreened features u (compacted with u) of
// the last mixPasses full passes, narrowed to float32 (mixture_f32.go: each
// stored value is an interval that contains the exact m), with L(w_k) and
// m_k . w_k computed from the exact m_k, newest first.
//
// The pass just priced is pending: its m stays in the caller's buffer
// (Pass.M, exact) until the next pricing overwrites it (Commit), so that
// screening can still use the oldest pass the certificate may have
// weighted, and no u-sized M of the mixture is ever stored (the caller's
// screening forms it per feature: Mixture.WorstAbsM).
type History struct {
	// Threads is the number of goroutines of the per-feature loops (0 or
	// 1: the calling one); the results do not depend on it.
	Threads int

	m    [][]float32
	loss []float64
	mw   []float64

	pending          bool // the caller's m holds a pass not yet recorded
	pendLoss, pendMW float64
}

// Reset forgets every pass, the pending one too (a new solve, or after the
// active set changed in a way the stored vectors cannot follow).
func (h *History) Reset() {
	h.m, h.loss, h.mw = h.m[:0], h.loss[:0], h.mw[:0]
	h.pending = false
}

// hold marks the pass whose m is the caller's as pending, with L(w) and m . w.
func (h *History) hold(loss, mw float64) {
	h.pending, h.pendLoss, h.pendMW = true, loss, mw
}

// Commit records the pending pass, whose m is mU, before mU is
// overwritten.
func (h *History) Commit(mU []float64) {
	if h.pending {
		h.Push(mU, h.pendLoss, h.pendMW)
		h.pending = false
	}
}

// Clone returns a deep copy.
func (h *History) Clone() History {
	c := History{Threads: h.Threads}
	for k := range h.m {
		c.m = append(c.m, slices.Clone(h.m[k]))
	}
	c.loss, c.mw = slices.Clone(h.loss), slices.Clone(h.mw)
	return c
}

// Push records a pass: m over u (narrowed to float32), L(w) and m . w
// (from the exact m). The oldest pass's buffer is reused once the history
// is full. A pass whose m does not fit in float32 (or is NaN) is not
// recorded: its stored values would have no error bound, and leaving a
// pass out only removes a candidate from the mixture.
func (h *History) Push(m []float64, loss, mw float64) {
	var buf []float32
	if len(h.m) == mixPasses {
		buf = h.m[mixPasses-1] // reuse the oldest
	}
	buf, ok := narrow(buf, m, h.Threads)
	if !ok {
		return
	}
	if len(h.m) == mixPasses {
		h.m, h.loss, h.mw = h.m[:mixPasses-1], h.loss[:mixPasses-1], h.mw[:mixPasses-1]
	}
	h.m = slices.Insert(h.m, 0, buf)
	h.loss = slices.Insert(h.loss, 0, loss)
	h.mw = slices.Insert(h.mw, 0, mw)
}

// Compact keeps the entries of u that survive screening (drop[k] false).
func (h *History) Compact(drop []bool) {
	for i, v := range h.m {
		q := 0
		for k, d := range drop {
			if !d {
				v[q] = v[k]
				q++
			}
		}
		h.m[i] = v[:q]
	}
}

// Mixture is the certificate's working state for one full pass, over the
// coordinates J of u where some term can be non-zero: w_j != 0 or |m_k,j| >
// l1 for some k (for a stored m_k, |s| + e(s) > l1: the exact value may
// exceed l1). Elsewhere every convex combination of the exact m_k,j stays
// in [-l1, l1] and g(0, .) vanishes with its derivative, so Phi and its
// derivatives (and their bounds, mixture_f32.go) only need J.
type Mixture struct {
	// Threads is the number of goroutines of the per-feature loops over u
	// (0 or 1: the calling one); the results do not depend on it.
	Threads int

	idx   []int32     // J: positions in u
	part  [][]int32   // gather: J's positions in each block of u
	w     []float64   // w over J
	ms    [][]float64 // m_0 (this pass), the stored m_1.. (widened), gold, over J
	buf   []float64   // storage of ms
	d     []float64   // D_k (upper bounds for the stored passes: divergenceUp)
	c     []float64   // the weights of the mixture
	mix   []float64   // M(q) = sum_k c_k m_k over J
	delta []float64   // scratch: m_k - M over J
	won   bool        // the mixture certified this pass: screen with it (Won)
	l1    float64
	ab    float64
}

// gather selects J and copies w and every m_k over it.
func (mx *Mixture) gather(r Pass, hist [][]float32) {
	mx.selectJ(r, hist)
	n, K := len(mx.idx), len(hist)+1
	mx.buf = resizeFloats(mx.buf, n*(K+1))
	mx.ms = mx.ms[:0]
	for k := 0; k < K; k++ {
		v := mx.buf[k*n : (k+1)*n]
		if k == 0 {
			for i, q := range mx.idx {
				v[i] = r.M[q]
			}
		} else {
			for i, q := range mx.idx {
				v[i] = float64(hist[k-1][q]) // exact widening
			}
		}
		mx.ms = append(mx.ms, v)
	}
	// The last component is the gold labelings q_i = delta(y_i): M(q) = 0
	// (observed minus expected counts under q) and D = (1/n) sum_i
	// KL(delta(y_i) || p_w,i) = L(w), the average loss, exactly. A little
	// of it shrinks every m_j toward 0, which is what features outside the
	// working set that violate |m_j| <= l1 need (Lasso's dual rescaling, as
	// a convex combination), at a cost of L(w) per unit of weight.
	gold := mx.buf[K*n : (K+1)*n]
	clear(gold)
	mx.ms = append(mx.ms, gold)
	mx.w = resizeFloats(mx.w, n)
	clear(mx.w)
	i := 0
	for s, q := range r.Supp {
		for mx.idx[i] != q {
			i++
		}
		mx.w[i] = r.SuppW[s]
	}
}

// selectJ sets mx.idx to J, the positions q of u where w_q != 0 or some
// |m_k,q| may exceed l1, in increasing order: over fixed blocks of u on
// mx.Threads goroutines, each block's positions appended in block order.
func (mx *Mixture) selectJ(r Pass, hist [][]float32) {
	nb := blocks.Count(len(r.M))
	if len(mx.part) < nb {
		mx.part = append(mx.part, make([][]int32, nb-len(mx.part))...)
	}
	blocks.For(mx.Threads, len(r.M), func(b, lo, hi int) {
		out := mx.part[b][:0]
		s, _ := slices.BinarySearch(r.Supp, int32(lo))
		for q := lo; q < hi; q++ {
			in := s < len(r.Supp) && int(r.Supp[s]) == q
			if in {
				s++
			}
			if !in {
				in = math.Abs(r.M[q]) > mx.l1
			}
			if !in {
				for _, mk := range hist {
					if v := float64(mk[q]); math.Abs(v)+ErrorBound(v) > mx.l1 {
						in = true
						break
					}
				}
			}
			if in {
				out = append(out, int32(q))
			}
		}
		mx.part[b] = out
	})
	mx.idx = mx.idx[:0]
	for _, p := range mx.part[:nb] {
		mx.idx = append(mx.idx, p...)
	}
}

// Gap returns the mixture certificate Phi(c) of the full pass r, at the
// average-form penalty l1 ||w||_1 + l2/2 ||w||^2, with the earlier passes
// of h: below gap, the certificate of the current point alone, and then
// Won reports true (screening uses the mixture's dual point, WorstAbsM),
// or gap itself. Phi is a rigorous upper bound over the intervals of the
// stored history (upperValue). Below mixMinLen unscreened features it
// returns gap. loss is L(w) at the current point. It holds this pass (in
// r.M) as the history's pending pass.
func (mx *Mixture) Gap(h *History, r Pass, l1, l2, gap, loss float64) float64 {
	mx.won = false
	mw := 0.0
	for s, q := range r.Supp {
		mw += r.M[q] * r.SuppW[s]
	}
	defer h.hold(loss, mw)
	if len(r.M) < mixMinLen || !(gap > 0) {
		return gap
	}
	mx.l1, mx.ab = l1, l2
	mx.d = append(mx.d[:0], 0)
	for k := range h.m {
		mx.d = append(mx.d, h.divergenceUp(k, r, loss))
	}
	mx.gather(r, h.m)
	mx.d = append(mx.d, loss) // the gold component (see gather)
	// Phi at e_0 over J, which equals gap up to the order of summation.
	phi0 := mx.valueAtVertex()
	phi := mx.minimize(phi0)
	if !(phi < phi0) || !(phi < gap) {
		return gap
	}
	// The search ran on the stored values; the certificate is their worst
	// case, and the plain gap when that does not beat it.
	if phi = mx.upperValue(); !(phi < gap) {
		return gap
	}
	mx.won = true
	return phi
}

// Won reports whether the last Gap certified with the mixture (below the
// plain gap): the caller's screening then uses its dual point (WorstAbsM).
func (mx *Mixture) Won() bool { return mx.won }

// Forget clears Won (the pass's certificate is the plain gap).
func (mx *Mixture) Forget() { mx.won = false }

// Weights returns the weights c of the mixture of the last Gap (c_0: the
// current pass, then the stored passes newest first, then the gold
// labelings).
func (mx *Mixture) Weights() []float64 { return mx.c }

// ValueAtVertex returns Phi at c = e_0 (the current point alone) over the
// coordinates of the last Gap: the plain gap up to the order of summation.
func (mx *Mixture) ValueAtVertex() float64 { return mx.valueAtVertex() }

// valueAtVertex returns Phi at c = e_0 (the current point alone).
func (mx *Mixture) valueAtVertex() float64 {
	phi := 0.0
	alpha := mx.ab / mx.l1
	for j, m := range mx.ms[0] {
		phi += screen.GapTerm(mx.w[j], m, alpha, mx.l1)
	}
	return phi
}

// minimize runs Frank-Wolfe on Phi from c = e_0, whose value is gap0, and
// returns the smallest Phi reached; mx.mix holds M at that c.
func (mx *Mixture) minimize(gap0 float64) float64 {
	n, K := len(mx.w), len(mx.ms)
	mx.c = append(resizeFloats(mx.c, K)[:0], 1)
	for range K - 1 {
		mx.c = append(mx.c, 0)
	}
	mx.mix = append(resizeFloats(mx.mix, n)[:0], mx.ms[0]...)
	mx.delta = resizeFloats(mx.delta, n)
	phi := gap0
	for range mixSteps {
		// The vertex of smallest directional derivative.
		best, bestG := -1, 0.0
		for k := range mx.ms {
			if g := mx.slope(k); best < 0 || g < bestG {
				best, bestG = k, g
			}
		}
		cur := mx.slopeAt(mx.c)
		if !(bestG < cur) {
			break // c is optimal over the simplex
		}
		for j := range mx.delta {
			mx.delta[j] = mx.ms[best][j] - mx.mix[j]
		}
		dd := mx.d[best] - floats.Dot(mx.c, mx.d)
		gamma := mx.lineSearch(dd)
		if gamma <= 0 {
			break
		}
		for k := range mx.c {
			mx.c[k] *= 1 - gamma
		}
		mx.c[best] += gamma
		for j := range mx.mix {
			mx.mix[j] += gamma * mx.delta[j]
		}
		phi = mx.value()
	}
	return phi
}

// slope returns dPhi/dc_k at the current c: D_k + sum_j g'(w_j, M_j) m_k,j
// with g' = dg/dm = soft(M_j)/ab - w_j.
func (mx *Mixture) slope(k int) float64 {
	s := mx.d[k]
	for j, m := range mx.ms[k] {
		s += mx.gprime(j, mx.mix[j]) * m
	}
	return s
}

// slopeAt returns sum_k c_k slope(k) (the derivative along c itself).
func (mx *Mixture) slopeAt(c []float64) float64 {
	s := floats.Dot(c, mx.d)
	for j, m := range mx.mix {
		s += mx.gprime(j, m) * m
	}
	return s
}

func (mx *Mixture) gprime(j int, m float64) float64 {
	a := math.Abs(m) - mx.l1
	if a <= 0 {
		return -mx.w[j]
	}
	return math.Copysign(a, m)/mx.ab - mx.w[j]
}

// lineSearch minimizes phi(gamma) = Phi(c + gamma (e_k - c)) over [0, 1],
// with phi'(gamma) = dd + sum_j g'(w_j, M_j + gamma delta_j) delta_j, by
// safeguarded Newton steps on phi' (phi is convex and piecewise quadratic).
func (mx *Mixture) lineSearch(dd float64) float64 {
	lo, hi, gamma := 0.0, 1.0, 0.0
	for range mixNewton {
		d1, d2 := dd, 0.0
		for j, dj := range mx.delta {
			m := mx.mix[j] + gamma*dj
			d1 += mx.gprime(j, m) * dj
			if math.Abs(m) > mx.l1 {
				d2 += dj * dj / mx.ab
			}
		}
		switch {
		case d1 > 0:
			hi = gamma
		case d1 < 0:
			lo = gamma
		default:
			return gamma
		}
		next := (lo + hi) / 2
		if d2 > 0 {
			if g := gamma - d1/d2; g > lo && g < hi {
				next = g
			}
		}
		if gamma == 0 && d1 >= 0 {
			return 0 // no descent along this direction
		}
		gamma = next
	}
	return lo
}

// value returns Phi at the current c and M.
func (mx *Mixture) value() float64 {
	phi := floats.Dot(mx.c, mx.d)
	alpha := mx.ab / mx.l1
	for j, m := range mx.mix {
		phi += screen.GapTerm(mx.w[j], m, alpha, mx.l1)
	}
	return phi
}

// Parts returns the stored passes (newest first): m over u narrowed to
// float32, L(w_k) and m_k . w_k (the history's own slices: what a
// checkpoint writes; the pending pass is not among them: a resumed run
// prices that point again, which holds it as pending once more).
func (h *History) Parts() (m [][]float32, loss, mw []float64) { return h.m, h.loss, h.mw }

// FromParts returns the history of the passes Parts returned (a
// checkpoint's); it keeps the slices.
func FromParts(m [][]float32, loss, mw []float64) History {
	return History{m: m, loss: loss, mw: mw}
}

// resizeFloats returns s with length n, reusing its storage when it can.
func resizeFloats(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n)
	}
	return s[:n]
}
