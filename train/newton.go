package train

import (
	"context"
	"fmt"
	"math"
	"os"

	"github.com/sparsetag/sparsetag/screen"
)

// The Newton candidate (docs/gauge.md, section 7): at a full pass of the
// working-set solver, a point w' = w + d ahead of X, with d an
// approximate Newton step on the working set (the orthant of OWL-QN held
// fixed), whose model distribution p_{w'} is offered as a dual point. Any
// p_{w'} is feasible, so
//
//	G(w, p_{w'}) = D' + sum_j g(w_j, m'_j),  D' = L(w) - L(w') + m' . (w - w'),
//
// (the mixture certificate with the single component p_{w'}:
// dual-certificate.md, section 6) bounds P(w) - P* whatever w' is, and
// P(w) - G(w, p_{w'}) is a lower bound on P* that the loop's best dual
// bound takes (run.certified). Only the choice of d is approximate; the
// bound is computed from an exact evaluation at w' and m' over every
// unscreened feature. In the quadratic model around w (H the Hessian of L
// on the free coordinates, r the gradient of P there),
//
//	G(w, p_{w+d}) ~ d.Hd/2 + |r + Hd|^2/(2 l2),
//
// whose minimum r.(H + l2 I)^-1 r/2 is the model's suboptimality of w: the
// certificate of the exact Newton point is the true suboptimality, where the
// model's own gap, |r|^2/(2 l2), overstates it by up to the condition number.
// d minimizes that model over a Krylov space of H (Lanczos, k products by
// finite differences of m, one evaluation each), or is OWL-QN's next step
// from its L-BFGS memory (no product). When P(w') < P(w), X moves there.

// newtonMode selects the direction of the Newton candidate.
type newtonMode int

const (
	newtonOff   newtonMode = iota
	newtonLBFGS            // OWL-QN's next step from its L-BFGS memory
	newtonCG               // Lanczos on the model certificate, K products
)

// newtonTuning is the Newton candidate's setting (tuning.newton).
type newtonTuning struct {
	mode newtonMode
	k    int     // Hessian-vector products (newtonCG)
	near float64 // attempt when the certified gap is at most near x the target (0: every pass)
	eps  float64 // finite-difference step along a unit vector
	move bool    // move X to w' when P(w') < P(X)
	mem  bool    // widen the Krylov space with the L-BFGS memory
	log  bool    // write each attempt to stderr (measurements)
}

// newtonFromEnv reads an experiment's setting: SPARSETAG_NEWTON=lbfgs or
// cg:K, SPARSETAG_NEWTON_NEAR=factor, SPARSETAG_NEWTON_MOVE=0.
func newtonFromEnv() newtonTuning {
	nt := newtonTuning{eps: 1e-4, move: true, log: os.Getenv("SPARSETAG_NEWTON_LOG") != ""}
	switch s := os.Getenv("SPARSETAG_NEWTON"); {
	case s == "off":
		nt.mode = newtonOff
	case s == "lbfgs":
		nt.mode = newtonLBFGS
	case len(s) > 3 && s[:3] == "cg:":
		nt.mode = newtonCG
		fmt.Sscanf(s[3:], "%d", &nt.k)
	}
	if s := os.Getenv("SPARSETAG_NEWTON_NEAR"); s != "" {
		fmt.Sscanf(s, "%g", &nt.near)
	}
	nt.mem = os.Getenv("SPARSETAG_NEWTON_MEM") != ""
	if os.Getenv("SPARSETAG_NEWTON_MOVE") == "0" {
		nt.move = false
	}
	return nt
}

// newtonState is the candidate's working storage, over the free
// coordinates F (positions in the active set) and over u.
type newtonState struct {
	free  []int32
	r     []float64   // gradient of P over F (orthant fixed)
	mA    []float64   // m at X over the active set
	v, hv [][]float64 // the basis over F and H times it over the active set
	xe    []float64   // trial points over the active set
	grad  []float64
	mU    []float64 // m' over u
	tries int
	model float64 // the model's value at the step (log)
	step  float64 // |d| before the projection (log)
}

// newtonAttempt decides whether this full pass tries the candidate.
func (r *run) newtonAttempt(gap float64) bool {
	tr := r.tr
	nt := tr.op.tuned().newton
	if nt.mode == newtonOff || r.policy != SolverWorkingSet || tr.op.Certificate == CertificateModel || tr.pen.l1 <= 0 || tr.pen.l2 <= 0 {
		return false
	}
	if nt.near <= 0 {
		return true
	}
	p := r.opt.Objective()
	target := math.Max(tr.op.Epsilon, tr.op.RelEpsilon*math.Abs(p))
	return r.certified(gap) <= nt.near*target && !tr.gapReached(r.certified(gap), p)
}

// newton tries the candidate at the full pass just priced (gap: its own
// gap): it raises the solve's dual bound with G(X, p_{w'}), and moves X to
// w' (pricing it again into gap) when that lowers the objective.
func (r *run) newton(ctx context.Context, gap *float64) error {
	if !r.newtonAttempt(*gap) {
		return r.newtonProbe(ctx, *gap)
	}
	tr, nt := r.tr, r.tr.op.tuned().newton
	ns := &r.nw
	ns.tries++
	e0 := tr.obj.Stats().Evals
	x := r.opt.X()
	ns.freeSet(x, r.opt.Grad(), tr.pen)
	if len(ns.free) == 0 {
		return nil
	}
	w, ok, err := r.newtonPoint(ctx, nt)
	if err != nil || !ok {
		return err
	}
	f1, m1, err := tr.evaluate(ctx, w, ns.grad)
	if err != nil {
		return fmt.Errorf("train: newton candidate: %w", err)
	}
	ns.mU = tr.obj.Residuals(ns.mU, r.u)
	cert := r.candidateGap(x, w, r.opt.F(), f1, m1, ns.mU)
	p, p1 := r.opt.Objective(), f1+tr.pen.l1*norm1(w)
	if b := p - cert; b > r.dualBound {
		r.dualBound = b
	}
	if nt.log {
		fmt.Fprintf(os.Stderr, "newton iter %d tries %d evals %d free %d own %.4e certified %.4e newton %.4e P %.9f P' %.9f model %.4e |d| %.3g\n",
			r.iter, ns.tries, tr.obj.Stats().Evals-e0, len(ns.free), *gap, r.certified(*gap), cert, p, p1, ns.model, ns.step)
	}
	if !(nt.move && p1 < p) {
		return nil
	}
	copy(x, w)
	for k, v := range w {
		ns.grad[k] = tr.pen.l2*v - m1[k]
	}
	if err := r.opt.Rebase(f1, ns.grad); err != nil {
		return err
	}
	r.m, r.gauge.moved = m1, false
	*gap = r.price()
	return nil
}

// candidateGap returns the certificate of X at the dual point p_{w'}:
// G(X, p_{w'}) = D' + sum over u of g(w_j, m'_j), with D' = L(X) - L(w') +
// m'.(X - w') (the average KL(p_{w'} || p_X)); x and w are X and w' over the
// active set (zero elsewhere), f and f1 the smooth objective f = L + l2/2
// ||.||^2 at each, m1 is m' over the active set and mU over u. The
// coordinate terms take X from r.supp (the pass just priced).
func (r *run) candidateGap(x, w []float64, f, f1 float64, m1, mU []float64) float64 {
	l2 := r.tr.pen.l2
	sq, sq1, d := 0.0, 0.0, 0.0
	for k, v := range x {
		sq += v * v
		sq1 += w[k] * w[k]
		d += m1[k] * (v - w[k])
	}
	loss, loss1 := f-0.5*l2*sq, f1-0.5*l2*sq1
	return max(loss-loss1+d, 0) + r.coordTerms(mU)
}

// coordTerms returns sum over u of g(w_j, m_j) at X (r.supp) for m over u.
func (r *run) coordTerms(mU []float64) float64 {
	tr := r.tr
	alpha := tr.pen.l2 / tr.pen.l1
	t, s := 0.0, 0
	for q, m := range mU {
		w := 0.0
		if s < len(r.supp) && int(r.supp[s]) == q {
			w = r.suppW[s]
			s++
		}
		t += screen.GapTerm(w, m, alpha, tr.pen.l1)
	}
	return t
}

// freeSet selects F: the non-zero weights and the zero weights whose
// pseudo-gradient is not zero (|m_j| > l1), with their orthant o_j (the
// sign of w_j, or of m_j), and r_j = grad_j + l1 o_j over F; m at X over
// the active set is l2 x - grad.
func (ns *newtonState) freeSet(x, grad []float64, pen penalty) {
	ns.free, ns.r = ns.free[:0], ns.r[:0]
	ns.mA = resizeFloats(ns.mA, len(x))
	for k, v := range x {
		m := pen.l2*v - grad[k]
		ns.mA[k] = m
		o := math.Copysign(1, v)
		if v == 0 {
			if math.Abs(m) <= pen.l1 {
				continue
			}
			o = math.Copysign(1, m)
		}
		ns.free = append(ns.free, int32(k))
		ns.r = append(ns.r, grad[k]+pen.l1*o)
	}
}

func norm1(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += math.Abs(v)
	}
	return s
}

// newtonPoint returns w' over the active set (in ns.xe): X plus the
// direction of the setting, projected on the orthant (a coordinate that
// would change sign is 0). It reports false when there is no step.
func (r *run) newtonPoint(ctx context.Context, nt newtonTuning) ([]float64, bool, error) {
	ns := &r.nw
	x := r.opt.X()
	ns.xe = resizeFloats(ns.xe, len(x))
	ns.grad = resizeFloats(ns.grad, len(x))
	if nt.mode == newtonLBFGS {
		xt, _, err := r.opt.Next()
		if err != nil || xt == nil {
			return nil, false, nil // no step from here: optimal or no descent
		}
		copy(ns.xe, xt)
		// Abandon the trial: X, F and Grad are unchanged.
		return ns.xe, true, r.opt.Rebase(r.opt.F(), r.opt.Grad())
	}
	d, err := r.newtonKrylov(ctx, nt)
	if err != nil {
		return nil, false, err
	}
	// No projection on the orthant: any w' gives a dual point, and the
	// projection would move w' off the model's step (measured: at iteration
	// 48 of the NER run, k = 10, 0.13 against 3.4e-3 without it).
	copy(ns.xe, x)
	for i, k := range ns.free {
		ns.xe[k] += d[i]
	}
	return ns.xe, true, nil
}

// newtonKrylov returns d over F minimizing the model certificate
// (certModel) over the Krylov space of H_FF and r of dimension k (Lanczos
// with full reorthogonalization; H times each basis vector, over the whole
// active set, by a forward difference of m: one evaluation each), widened
// by the L-BFGS memory's pairs when nt.mem (s with H s ~ y - l2 s: no
// evaluation).
func (r *run) newtonKrylov(ctx context.Context, nt newtonTuning) ([]float64, error) {
	ns := &r.nw
	n := len(ns.free)
	ns.v, ns.hv = ns.v[:0], ns.hv[:0]
	v := append([]float64(nil), ns.r...)
	for i := 0; i < nt.k; i++ {
		scale(v, 1/math.Sqrt(dot(v, v))) // the difference step is eps along a unit vector
		hv, err := r.hessVec(ctx, v, nt.eps)
		if err != nil {
			return nil, err
		}
		if !ns.addBasis(v, hv) {
			break
		}
		v = make([]float64, n)
		for q, k := range ns.free {
			v[q] = hv[k]
		}
	}
	if nt.mem {
		st := r.opt.Snapshot()
		for i := range st.S {
			s, y := make([]float64, n), make([]float64, len(st.Y[i]))
			for q, k := range ns.free {
				s[q] = st.S[i][k]
			}
			for k, yk := range st.Y[i] {
				y[k] = yk - r.tr.pen.l2*st.S[i][k]
			}
			ns.addBasis(s, y)
		}
	}
	cm := certModel{V: ns.v, W: ns.hv, free: ns.free, r: ns.r, m: ns.mA, l1: r.tr.pen.l1, l2: r.tr.pen.l2}
	c, val := cm.minimize()
	ns.model, ns.step = val, math.Sqrt(dot(c, c))
	d := make([]float64, n)
	for i, b := range ns.v {
		axpy(d, b, c[i])
	}
	return d, nil
}

// addBasis orthonormalizes v against the basis (Gram-Schmidt twice),
// applying the same combination to its product hv, and appends both unless
// v lies in the basis' span. It reports whether it appended.
func (ns *newtonState) addBasis(v, hv []float64) bool {
	n0 := math.Sqrt(dot(v, v))
	for range 2 {
		for i, b := range ns.v {
			c := dot(v, b)
			axpy(v, b, -c)
			axpy(hv, ns.hv[i], -c)
		}
	}
	nv := math.Sqrt(dot(v, v))
	if !(nv > 1e-10*n0) {
		return false
	}
	scale(v, 1/nv)
	scale(hv, 1/nv)
	ns.v, ns.hv = append(ns.v, v), append(ns.hv, hv)
	return true
}

// hessVec returns H v over the active set by a forward difference of m: (m(X) -
// m(X + eps v))/eps, one evaluation over the active set.
func (r *run) hessVec(ctx context.Context, v []float64, eps float64) ([]float64, error) {
	ns := &r.nw
	copy(ns.xe, r.opt.X())
	for i, k := range ns.free {
		ns.xe[k] += eps * v[i]
	}
	_, m, err := r.tr.obj.Loss(ctx, ns.xe)
	if err != nil {
		return nil, fmt.Errorf("train: newton: Hessian-vector product: %w", err)
	}
	hv := make([]float64, len(m))
	for k := range hv {
		hv[k] = (ns.mA[k] - m[k]) / eps
	}
	return hv, nil
}

// gaussSolve solves the k x k system a c = b (row-major a) by Gaussian
// elimination with partial pivoting; a singular pivot gives 0 for its unknown.
func gaussSolve(a, b []float64, k int) []float64 {
	for col := range k {
		p := col
		for i := col + 1; i < k; i++ {
			if math.Abs(a[i*k+col]) > math.Abs(a[p*k+col]) {
				p = i
			}
		}
		for j := range k {
			a[col*k+j], a[p*k+j] = a[p*k+j], a[col*k+j]
		}
		b[col], b[p] = b[p], b[col]
		if a[col*k+col] == 0 {
			continue
		}
		for i := col + 1; i < k; i++ {
			f := a[i*k+col] / a[col*k+col]
			for j := col; j < k; j++ {
				a[i*k+j] -= f * a[col*k+j]
			}
			b[i] -= f * b[col]
		}
	}
	c := make([]float64, k)
	for i := k - 1; i >= 0; i-- {
		s := b[i]
		for j := i + 1; j < k; j++ {
			s -= a[i*k+j] * c[j]
		}
		if a[i*k+i] != 0 {
			c[i] = s / a[i*k+i]
		}
	}
	return c
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i, v := range a {
		s += v * b[i]
	}
	return s
}

func axpy(y, x []float64, a float64) {
	for i, v := range x {
		y[i] += a * v
	}
}

func scale(x []float64, a float64) {
	for i := range x {
		x[i] *= a
	}
}
