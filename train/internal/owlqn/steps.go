package owlqn

import "math"

// This file holds the steps of one OWL-QN iteration as small functions, in
// the order an iteration (Next, Tell) calls them. References [1]-[3] are listed in doc.go.

// pseudoGradient writes into pg the pseudo-gradient of F = f + l1*||x||_1 at
// x, given g = ∇f(x) [3, sec. 3, p. 35]:
//
//	             | ∂⁻_j F(x)  if ∂⁻_j F(x) > 0
//	◇_j F(x) =  | ∂⁺_j F(x)  if ∂⁺_j F(x) < 0
//	             | 0          otherwise
//
// with the one-sided partial derivatives
//
//	∂±_j F(x) = g_j + | l1*sign(x_j)  if x_j != 0
//	                  | ±l1           if x_j == 0
//
// With l1 = 0 it copies g. pg must not overlap x or g unless it is g itself
// (pg and g may be the same slice).
func pseudoGradient(pg, x, g []float64, l1 float64) {
	if len(pg) != len(x) || len(g) != len(x) {
		panic("owlqn: pseudoGradient: length mismatch")
	}
	if l1 == 0 {
		copy(pg, g)
		return
	}
	for j, xj := range x {
		gj := g[j]
		switch {
		case xj < 0:
			pg[j] = gj - l1
		case xj > 0:
			pg[j] = gj + l1
		case gj < -l1: // right derivative gj+l1 < 0: moving up decreases F
			pg[j] = gj + l1
		case gj > l1: // left derivative gj-l1 > 0: moving down decreases F
			pg[j] = gj - l1
		default: // 0 is in the subdifferential of F along j
			pg[j] = 0
		}
	}
}

// memory is the L-BFGS history of at most m = len(s) pairs, a ring buffer in
// which logical index 0 is the oldest pair. Each s[i], y[i] has the problem
// dimension; rho[i] = 1/(s[i]·y[i]) > 0.
type memory struct {
	s, y  [][]float64
	rho   []float64
	yy    []float64   // y[i]·y[i], for the initial scaling of twoLoop
	vecs  [][]float64 // scratch of compact, cap 2m+2
	alpha []float64   // scratch of the two-loop recursion, len m
	start int         // slot of the oldest pair
	count int         // number of pairs stored
}

func newMemory(m, n int) memory {
	// One backing array per kind keeps the pairs contiguous; each vector is
	// a full-capacity sub-slice so that Compact can shrink it in place.
	bs := make([]float64, m*n)
	by := make([]float64, m*n)
	mem := memory{
		s:     make([][]float64, m),
		y:     make([][]float64, m),
		rho:   make([]float64, m),
		yy:    make([]float64, m),
		vecs:  make([][]float64, 0, 2*m+2),
		alpha: make([]float64, m),
	}
	for i := range m {
		mem.s[i] = bs[i*n : (i+1)*n : (i+1)*n]
		mem.y[i] = by[i*n : (i+1)*n : (i+1)*n]
	}
	return mem
}

// slot maps the logical index i (0 = oldest) to its storage slot.
func (m *memory) slot(i int) int { return (m.start + i) % len(m.s) }

func (m *memory) reset() { m.start, m.count = 0, 0 }

// update stores the pair s = xNew - xOld, y = gNew - gOld, overwriting the
// oldest pair when the memory is full. It skips the pair, leaving the memory
// unchanged, unless s·y > 0: BFGS keeps the inverse Hessian approximation
// positive definite only under this curvature condition [2, p. 506], which
// a backtracking (non-Wolfe) line search does not guarantee. It reports
// whether the pair was stored. The kernels run on ops (nil: serially).
func (m *memory) update(ops *vecops, xNew, xOld, gNew, gOld []float64) bool {
	sy, yy := ops.diffDot(xNew, xOld, gNew, gOld)
	if !(sy > 0) || math.IsInf(sy, 0) {
		return false
	}
	var k int
	if m.count < len(m.s) {
		k = m.slot(m.count)
		m.count++
	} else {
		k = m.start
		m.start = (m.start + 1) % len(m.s)
	}
	m.s[k], m.y[k] = m.s[k][:len(xNew)], m.y[k][:len(xNew)]
	ops.diff(m.s[k], m.y[k], xNew, xOld, gNew, gOld)
	m.rho[k] = 1 / sy
	m.yy[k] = yy
	return true
}

// compact shrinks every stored pair to the coordinates in keep (increasing)
// and drops the pairs whose curvature s·y is no longer positive on the
// surviving coordinates, keeping the order of the others. The vectors in
// also (of the pairs' length) are compacted in place too, in the same
// parallel pass, but not resliced. The work runs on ops (nil: serially).
func (m *memory) compact(ops *vecops, keep []int32, also ...[]float64) {
	vs := append(m.vecs[:0], also...)
	for i := range m.count {
		k := m.slot(i)
		vs = append(vs, m.s[k], m.y[k])
	}
	ops.compactVecs(vs, keep)
	clear(vs)
	m.vecs = vs[:0]
	n := len(keep)
	w := 0
	for i := range m.count {
		k := m.slot(i)
		s, y := m.s[k][:n], m.y[k][:n]
		m.s[k], m.y[k] = s, y
		sy, yy := ops.dot2(s, y)
		if !(sy > 0) {
			continue
		}
		m.rho[k], m.yy[k] = 1/sy, yy
		if kw := m.slot(w); kw != k {
			// w < i: slot kw holds a dropped pair, swap it out.
			m.s[kw], m.s[k] = m.s[k], m.s[kw]
			m.y[kw], m.y[k] = m.y[k], m.y[kw]
			m.rho[kw], m.rho[k] = m.rho[k], m.rho[kw]
			m.yy[kw], m.yy[k] = m.yy[k], m.yy[kw]
		}
		w++
	}
	// Pairs never stored still have the old length; Compact only runs on a
	// dimension that never grows, so shrink them too (no data to move).
	for k := range m.s {
		if len(m.s[k]) > n {
			m.s[k] = m.s[k][:n]
			m.y[k] = m.y[k][:n]
		}
	}
	m.count = w
}

// twoLoop writes into d the quasi-Newton direction d = -H q, where H is the
// L-BFGS approximation of the inverse Hessian built from the stored pairs by
// the two-loop recursion [1, p. 779]:
//
//	q_k = q
//	for i = newest..oldest: α_i = ρ_i s_i·q_{i+1};  q_i = q_{i+1} - α_i y_i
//	r = H0 q_oldest,  H0 = (s·y / y·y)_newest I   [2, p. 515]
//	for i = oldest..newest: β = ρ_i y_i·r;  r = r + (α_i - β) s_i
//	d = -r
//
// With an empty memory H = I and d = -q. d must not overlap q.
//
// Each pass over the vectors fuses the axpy of one pair with the dot
// product the next pair needs (and the copy of q, the scaling by H0 and the
// final negation with their neighbours), so the recursion reads each stored
// vector once and d about 2m times; the kernels run on ops (nil: serially).
func twoLoop(ops *vecops, d, q []float64, m *memory) {
	if len(d) != len(q) {
		panic("owlqn: twoLoop: length mismatch")
	}
	if m.count == 0 {
		ops.lin(d, q, 0, nil, -1, nil)
		return
	}
	last := m.count - 1
	kn := m.slot(last)
	gamma := 1 / (m.rho[kn] * m.yy[kn])
	// First loop, newest to oldest. dot is s_i·q_{i+1}, computed by the
	// pass that produced q_{i+1}.
	dot := ops.lin(d, q, 0, nil, 1, m.s[kn])
	for i := last; i >= 0; i-- {
		k := m.slot(i)
		a := m.rho[k] * dot
		m.alpha[i] = a
		if i > 0 {
			dot = ops.lin(d, d, -a, m.y[k], 1, m.s[m.slot(i-1)])
		} else {
			// q_oldest scaled by H0; then the first dot of the
			// second loop.
			dot = ops.lin(d, d, -a, m.y[k], gamma, m.y[m.slot(0)])
		}
	}
	// Second loop, oldest to newest. dot is y_i·r.
	for i := range m.count {
		k := m.slot(i)
		b := m.rho[k] * dot
		if i < last {
			dot = ops.lin(d, d, m.alpha[i]-b, m.s[k], 1, m.y[m.slot(i+1)])
		} else {
			ops.lin(d, d, m.alpha[i]-b, m.s[k], -1, nil) // d = -r
		}
	}
}

// projectDirection constrains the direction d to the orthant of descent
// given by the pseudo-gradient [3, p. 35]: p = π(d; -◇F), that is d_j is set
// to 0 wherever d_j*pg_j >= 0 (d_j does not strictly agree in sign with
// -pg_j, including pg_j = 0).
func projectDirection(d, pg []float64) {
	if len(d) != len(pg) {
		panic("owlqn: projectDirection: length mismatch")
	}
	for j, pj := range pg {
		if d[j]*pj >= 0 {
			d[j] = 0
		}
	}
}

// orthant returns ξ_j, the sign of the orthant the line search must stay in
// along coordinate j [3, p. 35]: sign(x_j) when x_j != 0, otherwise
// -sign(pg_j), the side a descent step would move to (0 when pg_j is 0 too:
// the coordinate must stay at 0).
func orthant(xj, pgj float64) float64 {
	switch {
	case xj > 0:
		return 1
	case xj < 0:
		return -1
	case pgj > 0:
		return -1
	case pgj < 0:
		return 1
	}
	return 0
}

// projectOrthant projects the trial point dst onto the orthant ξ defined at
// the current point x by orthant(x_j, pg_j) [3, p. 35]:
//
//	π(dst; ξ)_j = dst_j if sign(dst_j) == ξ_j, else 0
//
// so no coordinate of the result changes sign with respect to ξ.
func projectOrthant(dst, x, pg []float64) {
	if len(dst) != len(x) || len(pg) != len(x) {
		panic("owlqn: projectOrthant: length mismatch")
	}
	for j, xj := range x {
		if dst[j]*orthant(xj, pg[j]) <= 0 {
			dst[j] = 0
		}
	}
}

// The line search backtracks along the orthant-projected path x' = π(x + α
// d; ξ) (with l1 = 0: no projection, x' = x + α d). Starting at α = step it
// accepts the first α, after at most s.MaxLineSearch evaluations, that
// satisfies the OWL-QN variant of the Armijo condition
// [3, p. 36]
//
//	F(x') <= F(x) + c * ◇F(x)·(x' - x),   F = f + l1*||.||_1,        (A)
//
// which for l1 = 0 is the classical sufficient decrease condition
// f(x + αd) <= f(x) + c α ∇f(x)·d [2, p. 506]. Each failure multiplies α by
// s.Backtrack.
//
// Near the optimum F(x') - F(x) is of the order of the rounding error of F
// and (A) fails although the step is good, which would stop the descent at
// a distance of about sqrt(ε_mach) from the minimizer. So a trial that fails
// (A) is also accepted when it satisfies the approximate Armijo condition of
// Hager and Zhang [4, eq. (4.1)], written for F:
//
//	T <= c * ◇F(x)·(x' - x)  and  F(x') <= F(x) + ε_F |F(x)|,          (AA)
//
// where T = ½ (∇f(x) + ∇f(x'))·(x' - x) + l1 (||x'||_1 - ||x||_1) is the
// trapezoid estimate of F(x') - F(x) (the l1 term is exact: x and x' lie in
// the same closed orthant, where ||.||_1 is linear), computed from
// gradients without cancellation, and ε_F = roundoffF.
//
// acceptable applies (A) and (AA) to one trial: obj is F(x), g is ∇f(x),
// objt is F(xt), gt is ∇f(xt), dec = ◇F(x)·(xt - x) and dl1 = ||xt||_1 -
// ||x||_1. The trial points themselves are made by Optimizer.Next (trial
// kernel); the caller evaluates them (reverse communication).
func acceptable(ops *vecops, g, gt, xt, x []float64, obj, objt, dec, dl1, l1 float64, s *Settings) bool {
	// A NaN objective fails both comparisons and backtracks.
	if objt <= obj+s.Armijo*dec {
		return true
	}
	if objt <= obj+roundoffF*math.Abs(obj) {
		trap := 0.5*ops.trap(g, gt, xt, x) + l1*dl1
		return trap <= s.Armijo*dec
	}
	return false
}

// roundoffF is the relative increase of F the approximate Armijo condition
// of lineSearch tolerates: above the rounding error of a sum of many
// log-likelihood terms, far below any decrease a duality-gap test can see.
const roundoffF = 1e-10

// compactVec moves v[keep[i]] to v[i] (keep increasing, so keep[i] >= i and
// the move is safe in place) and returns v[:len(keep)].
func compactVec(v []float64, keep []int32) []float64 {
	for i, k := range keep {
		v[i] = v[k]
	}
	return v[:len(keep)]
}

// norm1 runs the chunked kernel of kernels.go serially, so it gives the
// same bits as the optimizer's parallel kernel.
func norm1(x []float64) float64 { return (*vecops)(nil).norm1(x) }
