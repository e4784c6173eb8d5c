package train

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/sparsetag/sparsetag/screen"
	"github.com/sparsetag/sparsetag/train/internal/blocks"
)

// The Newton candidate (docs/gauge.md, section 7): at a full pass of the
// working-set solver near the stop, a point w' = X + d ahead of X, d an
// approximate Newton step on the working set, whose model distribution
// p_{w'} is a dual point. Any p_{w'} is feasible, so
//
//	G(X, p_{w'}) = D' + sum_j g(X_j, m'_j),  D' = L(X) - L(w') + m'.(X - w'),
//
// (the mixture certificate with the single component p_{w'}:
// dual-certificate.md, section 6) bounds P(X) - P* whatever w' is, and
// P(X) - G(X, p_{w'}) is a lower bound on P* that the loop's best dual bound
// takes (run.certified). Only the choice of d is approximate; the bound
// comes from an exact evaluation at w' and m' over every unscreened
// feature. In the quadratic model around X (H the Hessian of L, r the
// gradient of P on the free coordinates F: the non-zero weights and the
// zero weights with |m_j| > l1),
//
//	G(X, p_{X+d}) ~ d.Hd/2 + |r + Hd|^2/(2 l2) (+ the violations of the rest),
//
// whose minimum r.(H + l2 I)^-1 r/2 is the model's suboptimality of X: the
// certificate of the exact Newton point is the true suboptimality, where
// X's own gap, |r|^2/(2 l2), overstates it by up to the condition number
// (the gauge directions, docs/gauge.md section 2). d minimizes that model
// (certModel) over the Krylov space of H and r of dimension k (Lanczos; H
// times a vector by a forward difference of m: one evaluation each). w' is
// not projected on the orthant: it is a dual point, not an iterate. When
// P(w') < P(X), X moves there (a primal step as well).
//
// Measured on CoNLL-2002 Spanish NER and CoNLL-2000 (docs/gauge.md, section
// 7): OWL-QN's own next step (its L-BFGS memory, no product) as w' gave
// certificates worse than the mixture's; the orthant projection broke the
// model; k = 20 without the span check outran the quadratic model; k = 10,
// tried once the certified gap is within 2.5x the target, certified NER
// after 63 iterations instead of 93, with a certificate 2.9x the true
// suboptimality. The size of the space is chosen per attempt from the
// model's own prediction (section 8): 17 products on NER (1.9x), 13 on
// CoNLL-2000; a diagonal preconditioner of the basis made it worse.

// newtonTuning is the Newton candidate's setting (tuning.newton).
type newtonTuning struct {
	k       int     // Hessian-vector products (0: no candidate)
	kMax    int     // extend the basis past k up to kMax products until enough (at most k: k products)
	ratio   float64 // enough: also the model's certificate within ratio x its suboptimality (0: not)
	near    float64 // try when the certified gap is at most near x the target (0: at every pass)
	minIter int     // try only after this many iterations of the solve
	eps     float64 // finite-difference step along a unit vector
}

// defaultNewton is the candidate of every run but a test's: from 10 to
// 20 products, as many as the model needs to predict a certificate
// within the target and within 2.5x its own suboptimality estimate (on
// NER that gives a certificate within 2x the true suboptimality at the
// stop; docs/gauge.md section 8), from a certified gap within 4x the
// target (the mixture's certificate is 5-15x the suboptimality in the end
// game, the candidate's about 2x: at 2.5x a pass whose mixture lagged
// missed the attempt it would have passed, 5-15 iterations each on NER and
// CoNLL-2000 from the diagonal start; docs/gauge.md section 9), in a
// solve that has run three times the attempt's first k + 1 evaluations in
// iterations. An attempt pays only in a long end game: the
// solves of a path from a warm start certify in a few iterations each,
// and an attempt at each of them cost more than it saved (tagger bench
// paper --scale 0.1 --betas 10, the working-set rows: syn2 0.96 -> 1.54 s
// without the floor; docs/gauge.md section 7).
func defaultNewton() newtonTuning {
	return newtonTuning{k: 10, kMax: 20, ratio: 2.5, near: 4, minIter: 3 * (10 + 1), eps: 1e-4}
}

// newtonState is the candidate's working storage, over the free
// coordinates F (positions in the active set) and over u.
type newtonState struct {
	free  []int32
	r     []float64   // gradient of P over F (orthant of X, or of m at a zero)
	mA    []float64   // m at X over the active set
	v, hv [][]float64 // the Krylov basis over F and H times it over the active set
	xe    []float64   // points over the active set
	grad  []float64
	mU    []float64 // m' over a block of u
	terms []float64 // coordTerms: the non-zero terms so far, in the order of u
	sum   blocks.Sum
	block int // features of u per block of m' (0: candidateBlock; tests)
}

// attempt decides whether this full pass tries the candidate.
func (ns *newtonState) attempt(r *run, gap float64) bool {
	tr := r.tr
	nt := tr.op.tuned().newton
	if nt.k <= 0 || r.iter < nt.minIter || r.policy != SolverWorkingSet || tr.op.Certificate == CertificateModel || tr.pen.l1 <= 0 || tr.pen.l2 <= 0 {
		return false
	}
	if nt.near <= 0 {
		return true
	}
	p, cert := r.opt.Objective(), r.certified(gap)
	return cert <= nt.near*tr.op.gapTarget(p) && !tr.gapReached(cert, p)
}

// try tries the candidate at the full pass just priced (gap: its own
// gap): it raises the solve's dual bound with G(X, p_{w'}), and moves X to
// w' (pricing it again into gap) when that lowers the objective.
func (ns *newtonState) try(ctx context.Context, r *run, gap *float64) error {
	if !ns.attempt(r, *gap) {
		return nil
	}
	tr, nt := r.tr, r.tr.op.tuned().newton
	x := r.opt.X()
	ns.freeSet(x, r.opt.Grad(), tr.pen)
	if len(ns.free) == 0 {
		return nil
	}
	w, err := ns.point(ctx, r, nt, tr.op.gapTarget(r.opt.Objective()))
	if err != nil {
		return err
	}
	f1, m1, err := tr.evaluate(ctx, w, ns.grad)
	if err != nil {
		return fmt.Errorf("train: newton candidate: %w", err)
	}
	p, p1 := r.opt.Objective(), f1+tr.pen.l1*norm1(w)
	move := p1 < p
	if move {
		// X moves to w': the pass's m over u at w' is m', formed once
		// for the certificate and the pricing at w' (the pass at X
		// committed to the history first, as price does).
		r.dual.Commit(r.mU)
		r.mU = tr.obj.Residuals(r.mU, r.u)
	}
	cert := ns.candidateGap(r, x, w, r.opt.F(), f1, m1, move)
	if b := p - cert; b > r.dualBound {
		r.dualBound = b
	}
	if !move {
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
	*gap = r.price(true)
	return nil
}

// candidateGap returns the certificate of X at the dual point p_{w'}, the
// model distributions of the objective's last evaluation (at w'):
// G(X, p_{w'}) = D' + sum over u of g(X_j, m'_j), with D' = L(X) - L(w') +
// m'.(X - w') (the average KL(p_{w'} || p_X)); x and w are X and w' over the
// active set (zero elsewhere), f and f1 the smooth objective f = L + l2/2
// ||.||^2 at each, m1 is m' over the active set. The coordinate terms take
// X from r.supp (the pass just priced) and m' over u from the evaluation's
// marginals, block after block (no u-sized vector besides the pass's); when
// formed, m' over u is already in the pass's buffer r.mU (a moving attempt
// formed it once for this and for the pricing at w') and is read there.
func (ns *newtonState) candidateGap(r *run, x, w []float64, f, f1 float64, m1 []float64, formed bool) float64 {
	l2 := r.tr.pen.l2
	sq, sq1, d := 0.0, 0.0, 0.0
	for k, v := range x {
		sq += v * v
		sq1 += w[k] * w[k]
		d += m1[k] * (v - w[k])
	}
	loss, loss1 := f-0.5*l2*sq, f1-0.5*l2*sq1
	if formed {
		return max(loss-loss1+d, 0) + ns.coordTermsOf(r, r.mU)
	}
	return max(loss-loss1+d, 0) + ns.coordTerms(r)
}

// candidateBlock is the number of features of u whose m' coordTerms forms
// at a time.
const candidateBlock = 1 << 16

// coordTerms returns sum over u of g(X_j, m'_j), X from r.supp and m' from
// the objective's last evaluation, in blocks of ns.block features
// (candidateBlock when 0). The terms of a block are formed on the run's
// threads (train/internal/blocks), and the non-zero ones are added in the
// order of u at the end: the serial loop's bits.
func (ns *newtonState) coordTerms(r *run) float64 {
	tr := r.tr
	alpha := tr.pen.l2 / tr.pen.l1
	block := ns.block
	if block <= 0 {
		block = candidateBlock
	}
	t := 0.0
	for lo := 0; lo < len(r.u); lo += block {
		ns.mU = tr.obj.Residuals(ns.mU, r.u[lo:min(lo+block, len(r.u))])
		t = ns.addGapTerms(r, lo, ns.mU, t, alpha)
	}
	return t
}

// coordTermsOf returns sum over u of g(X_j, m_j), X from r.supp, m over u.
func (ns *newtonState) coordTermsOf(r *run, m []float64) float64 {
	return ns.addGapTerms(r, 0, m, 0, r.tr.pen.l2/r.tr.pen.l1)
}

// addGapTerms adds to t the terms g(X_j, m_j) of the features lo, lo+1, ...
// of u (m: their m'), X from r.supp: formed on the run's threads
// (appendGapTerms), the non-zero ones added in the order of u, so the
// serial loop's bits.
func (ns *newtonState) addGapTerms(r *run, lo int, m []float64, t, alpha float64) float64 {
	ns.terms = appendGapTerms(ns.terms[:0], &ns.sum, r.tr.op.Threads, lo, m, r.supp, r.suppW, alpha, r.tr.pen.l1)
	for _, v := range ns.terms {
		t += v
	}
	return t
}

// appendGapTerms appends to dst the non-zero screen.GapTerm(w_j, m[i]) of
// the features j at positions lo+i of u, in order, w_j from the support
// (supp: positions in u, increasing; suppW: its weights), on threads
// goroutines.
func appendGapTerms(dst []float64, sum *blocks.Sum, threads, lo int, m []float64, supp []int32, suppW []float64,
	alpha, l1 float64) []float64 {
	return sum.Append(dst, threads, len(m), func(blo, bhi int, terms []float64) []float64 {
		s, _ := slices.BinarySearch(supp, int32(lo+blo))
		for i := blo; i < bhi; i++ {
			w := 0.0
			if s < len(supp) && int(supp[s]) == lo+i {
				w = suppW[s]
				s++
			}
			if t := screen.GapTerm(w, m[i], alpha, l1); t != 0 {
				terms = append(terms, t)
			}
		}
		return terms
	})
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

// point returns w' = X + d over the active set (in ns.xe), d from
// krylov.
func (ns *newtonState) point(ctx context.Context, r *run, nt newtonTuning, target float64) ([]float64, error) {
	x := r.opt.X()
	ns.xe = resizeFloats(ns.xe, len(x))
	ns.grad = resizeFloats(ns.grad, len(x))
	d, err := ns.krylov(ctx, r, nt, target)
	if err != nil {
		return nil, err
	}
	copy(ns.xe, x)
	for i, k := range ns.free {
		ns.xe[k] += d[i]
	}
	return ns.xe, nil
}

// krylov returns d over F minimizing the model certificate
// (certModel) over the Krylov space of H_FF and r (Lanczos with full
// reorthogonalization; H times each basis vector, over the whole active
// set, by a forward difference of m: one evaluation each). The space has
// nt.k vectors, or with nt.kMax > nt.k grows from nt.k until the model
// says it is enough (enough: the model's certificate of X at most the
// target and within nt.ratio of the model's suboptimality of X over the
// space), nt.kMax at most. It ends early where the next vector is within
// the differences' accuracy of it (krylovTol): past that point the new
// directions are rounding and truncation error, and the model's step along
// them is noise (measured on a small chain: 1.0004x the suboptimality with
// 8 to 12 products, 1.9e3x with 20 before this check).
func (ns *newtonState) krylov(ctx context.Context, r *run, nt newtonTuning, target float64) ([]float64, error) {
	n := len(ns.free)
	ns.v, ns.hv = ns.v[:0], ns.hv[:0]
	v := append([]float64(nil), ns.r...)
	var c []float64
	for j := 1; j <= max(nt.k, nt.kMax); j++ {
		if !ns.orthonormalize(v) {
			break
		}
		hv, err := ns.hessVec(ctx, r, v, nt.eps)
		if err != nil {
			return nil, err
		}
		ns.v, ns.hv = append(ns.v, v), append(ns.hv, hv)
		if j >= nt.k {
			var g, sub float64
			c, g, sub = ns.model(r, append(c, make([]float64, len(ns.v)-len(c))...))
			if nt.kMax <= nt.k || enough(nt, g, sub, target) {
				break
			}
		}
		v = make([]float64, n)
		for q, k := range ns.free {
			v[q] = hv[k]
		}
	}
	if len(c) != len(ns.v) {
		c, _, _ = ns.model(r, make([]float64, len(ns.v)))
	}
	d := make([]float64, n)
	for i, b := range ns.v {
		axpy(d, b, c[i])
	}
	return d, nil
}

// model returns the minimizer over the basis of the model certificate
// (certModel), from c0, its value, and the model's suboptimality of X over
// the basis (certModel.sub).
func (ns *newtonState) model(r *run, c0 []float64) ([]float64, float64, float64) {
	cm := certModel{V: ns.v, W: ns.hv, free: ns.free, r: ns.r, m: ns.mA, l1: r.tr.pen.l1, l2: r.tr.pen.l2}
	c, g := cm.minimize(c0)
	return c, g, cm.sub()
}

// enough reports whether the basis is large enough: the model's
// certificate g is at most the target and, with nt.ratio > 0, at most
// nt.ratio times the model's suboptimality sub.
func enough(nt newtonTuning, g, sub, target float64) bool {
	return g <= target && (nt.ratio <= 0 || g <= nt.ratio*sub)
}

// krylovTol is the relative norm below which a Lanczos vector, once
// orthogonalized, counts as within the basis' span: the forward
// differences of m are accurate to about eps (1e-4) relative.
const krylovTol = 1e-3

// orthonormalize orthogonalizes v against the basis (Gram-Schmidt twice)
// and normalizes it; it reports false when what is left is below
// krylovTol of v's norm.
func (ns *newtonState) orthonormalize(v []float64) bool {
	n0 := math.Sqrt(dot(v, v))
	for range 2 {
		for _, b := range ns.v {
			axpy(v, b, -dot(v, b))
		}
	}
	nv := math.Sqrt(dot(v, v))
	if !(nv > krylovTol*n0) {
		return false
	}
	scale(v, 1/nv)
	return true
}

// hessVec returns H v over the active set by a forward difference of m: (m(X) -
// m(X + eps v))/eps, one evaluation over the active set.
func (ns *newtonState) hessVec(ctx context.Context, r *run, v []float64, eps float64) ([]float64, error) {
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
