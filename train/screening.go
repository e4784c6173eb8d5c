package train

import (
	"context"
	"math"
	"time"

	"github.com/sparsetag/sparsetag/screen"
	"github.com/sparsetag/sparsetag/sparse"
)

// Screening, in one place: the static range rule at each penalty
// (staticScreen), the safe rule of every full pass (screenPass: Pinsker on
// m and the pass's gap, or the mixture's dual point and certificate, or
// the paper's Euclidean rule for T = 1) and how its decisions reach every
// owner of the active set (screenU, dropScreenedActive). The rules
// themselves are package screen's pure functions.

// screenPass applies the screening rule to every unscreened feature with
// m and the gap of this pass (fullPass calls it only when X is not
// certified yet; with Gamma, only if the gap fell enough since the last
// check), removes the screened ones
// from u and the active set, and, if that zeroed a weight (X moved),
// evaluates at the new X and prices it again.
func (tr *trainer) screenPass(ctx context.Context, r *run, gap *float64) error {
	op := tr.op
	if tr.rnorm == nil || tr.pen.l1 <= 0 || (op.Gamma > 0 && *gap >= op.Gamma*r.lastCheckGap) {
		return nil
	}
	r.lastCheckGap = *gap
	ts := time.Now()
	removed, err := tr.screenU(r, *gap)
	tr.screenSecs += time.Since(ts).Seconds()
	if err != nil || removed == 0 || len(r.u) == 0 {
		return err
	}
	// X moved, or its value and gradient are the gauge step's (gauge.go),
	// which a checkpoint of the smaller active set could not reproduce:
	// evaluate at X and price it again.
	moved := r.zeroed > 0 || r.gauge.moved
	if moved {
		if err := r.reevaluate(ctx); err != nil {
			return err
		}
	}
	if moved || r.policy == SolverFull {
		// The full policy's gap is a blocked sum over the active set:
		// recompute it on the smaller set. The working set's sum over u
		// only lost exact zeros unless X moved.
		*gap = r.price(false)
	}
	return nil
}

// screenU applies the screening rule to every unscreened feature with m
// and the gap of this full pass (m over u: mU with the working set, the
// last evaluation's m with the full policy, whose active set is u), marks
// the screened features, drops them from u and from the active set (the
// objective and the optimizer follow) and counts in r.zeroed the non-zero
// weights that this set to zero. It returns how many features it removed.
func (tr *trainer) screenU(r *run, gap float64) (int, error) {
	var (
		drop    []bool
		removed int
		err     error
	)
	switch {
	case r.policy == SolverFull:
		drop, removed, err = tr.screenTest(&tr.scratch, r.u, r.m, gap, r.opt.X())
	case r.mix.Won():
		// The mixture's dual point, certified by this pass's gap (its
		// Phi), at the worst case over the float32 history's rounding
		// intervals (mixture_f32.go).
		drop, removed = tr.screenMixture(&tr.scratch, r, gap)
	default:
		drop, removed, err = tr.screenTest(&tr.scratch, r.u, r.mU, gap, r.opt.X())
	}
	r.mix.Forget()
	if err != nil || removed == 0 {
		return 0, err
	}
	q, s, ns := 0, 0, 0
	for k, j := range r.u {
		inSupp := s < len(r.supp) && int(r.supp[s]) == k
		if drop[k] {
			tr.fs.Screen(j)
		} else {
			if inSupp {
				r.supp[ns], r.suppW[ns] = int32(q), r.suppW[s]
				ns++
			}
			r.u[q] = j
			if r.policy == SolverWorkingSet {
				r.mU[q] = r.mU[k]
			}
			q++
		}
		if inSupp {
			s++
		}
	}
	r.u, r.supp, r.suppW = r.u[:q], r.supp[:ns], r.suppW[:ns]
	if r.policy == SolverWorkingSet {
		r.mU = r.mU[:q]
		r.dual.Compact(drop)
	}
	tr.dropScreenedActive(r)
	return removed, nil
}

// dropScreenedActive removes the screened features from the active set,
// the objective and the optimizer, and counts the non-zero weights among
// them in r.zeroed (X moved when it is not 0).
func (tr *trainer) dropScreenedActive(r *run) {
	keep := tr.keepBuf[:0]
	x := r.opt.X()
	for k, j := range tr.fs.Active() {
		if tr.fs.IsScreened(j) {
			if x[k] != 0 {
				r.zeroed++
			}
			continue
		}
		keep = append(keep, int32(k))
	}
	tr.keepBuf = keep
	if len(keep) == len(tr.fs.Active()) {
		return
	}
	tr.obj.Restrict(keep)
	r.m = tr.obj.M()
	r.opt.Compact(keep, tr.op.ResetMemoryOnScreen)
}

// staticScreen applies the static range rule (screen.RangeBounds): every
// feature whose range bound B_j over all dual points is at most the
// sum-form L1 penalty is zero at the optimum, with no gap needed. In the
// sum form the comparison is with C1 itself (exact for integer counts); in
// the average form with the largest float not above n*beta. last frees the
// bounds after use (no other penalty will be solved).
func (tr *trainer) staticScreen(last bool) {
	if tr.static == nil {
		return
	}
	lam1 := math.Nextafter(float64(tr.c.Len())*tr.pen.l1, 0)
	if tr.op.SumForm {
		lam1 = tr.op.C1
	}
	drop := make([]bool, len(tr.static))
	screen.RangeScreen(drop, tr.static, lam1)
	n := 0
	for j := range tr.fs.All {
		if drop[j] && !tr.fs.IsScreened(j) {
			tr.fs.Screen(j)
			n++
		}
	}
	tr.staticCount = n
	if last {
		tr.static = nil // only one penalty will be solved: free the bounds
	}
}

// screenScratch holds the buffers of one screening test.
type screenScratch struct {
	drop  []bool
	rn    []float64 // Rnorm over the tested features
	bound []float64
}

// screenTest runs the configured safe rule on the features idx, with m over
// idx and the gap, both from the same point: it returns drop[k] = true for
// every feature proven zero at the optimum, and how many. The Pinsker test
// is screen.Pinsker itself; the paper's rule (T = 1, the full policy: idx
// is the active set and x the weights over it) bounds state features with
// screen.EuclideanT1, alone (ScreenPaper) or as the minimum with the
// Pinsker bound (ScreenBoth).
func (tr *trainer) screenTest(sc *screenScratch, idx []int32, m []float64, gap float64, x []float64) ([]bool, int, error) {
	n := tr.c.Len()
	sc.drop = resizeBools(sc.drop, len(idx))
	clear(sc.drop)
	if tr.op.Screen == ScreenPinsker && math.Sqrt(2*gap/float64(n))*tr.rnormMin >= tr.pen.l1*(1-tr.op.Tau) {
		// No feature can pass the Pinsker test at this gap: skip the O(d)
		// pass.
		return sc.drop, 0, nil
	}
	sc.rn = resizeFloats(sc.rn, len(idx))
	for k, j := range idx {
		sc.rn[k] = tr.rnorm.at(j)
	}
	if tr.op.Screen == ScreenPinsker {
		return sc.drop, screen.Pinsker(sc.drop, m, sc.rn, gap, n, tr.pen.l1, tr.op.Tau), nil
	}
	paper, err := tr.paperBounds(gap, x, m)
	if err != nil {
		return nil, 0, err
	}
	sc.bound = screen.PinskerBounds(sc.bound, m, sc.rn, gap, n)
	U := tr.m.Layout.NumUnary * tr.m.NumLabels()
	for k, j := range idx {
		if int(j) >= U {
			continue
		}
		switch {
		case tr.op.Screen == ScreenBoth:
			sc.bound[k] = math.Min(sc.bound[k], paper[j])
		case tr.rnorm.at(j) > 0:
			// The paper's rule alone on state features; features with
			// Rnorm 0 (identically zero) are still dropped.
			sc.bound[k] = paper[j]
		}
	}
	return sc.drop, screen.ScreenBounds(sc.drop, sc.bound, tr.pen.l1, tr.op.Tau), nil
}

func resizeBools(s []bool, n int) []bool {
	if cap(s) < n {
		return make([]bool, n)
	}
	return s[:n]
}

// paperBounds evaluates the paper's Euclidean rule (T = 1 only) at the
// point x over the active set, where m is -∇L: an upper bound on
// |m_j(theta*)| for every state feature.
func (tr *trainer) paperBounds(gap float64, xa, ma []float64) ([]float64, error) {
	obj, fs := tr.obj, tr.fs
	m := tr.m
	U := m.Layout.NumUnary * m.NumLabels()
	if len(tr.wBuf) < len(m.W) {
		tr.wBuf = make([]float64, len(m.W))
		tr.mBuf = make([]float64, len(m.W))
	}
	w, mf := tr.wBuf[:U], tr.mBuf[:U]
	clear(w)
	clear(mf)
	for k, j := range fs.Active() {
		if int(j) < U {
			w[j] = xa[k]
			mf[j] = ma[k]
		}
	}
	delta := screen.DualResidual(tr.dBuf[:0], w, mf, tr.pen.l2/tr.pen.l1, tr.pen.l1)
	tr.dBuf = delta
	// Features outside the reduced problem contribute 0 to delta.
	live := sparse.NewBitset(U)
	for _, j := range fs.Active() {
		if int(j) < U {
			live.Set(int(j))
		}
	}
	for j := range delta {
		if !live.Has(j) {
			delta[j] = 0
		}
	}
	in := &screen.T1Input{Corpus: expandedOnce(&tr.cx, tr.c), L: m.NumLabels(), P: obj.Stats().Marginals, Delta: delta, M: mf, Gap: gap}
	b, err := screen.EuclideanT1(tr.pBuf[:0], in, screen.T1Options{})
	tr.pBuf = b
	return b, err
}

// screenMixture is the Pinsker rule (screen.Pinsker, with the same
// arithmetic) on every feature of u at the mixture's dual point q, whose
// certificate gap = Phi >= G(w, q) bounds the radius: u[k] is dropped when
// worstAbsM + sqrt(2 Phi/n) Rnorm < beta (1 - tau). As |M_j(q)| <=
// worstAbsM and G(w, q) <= Phi, the exact rule at q would drop it too: w*_j
// = 0. The rule needs M and the gap of the SAME dual point (the mixture's
// gap with the current point's m would not be safe). M is formed per
// feature from the history and run.mU: no u-sized buffer. The working set,
// the only policy with the mixture, screens with the Pinsker rule alone.
func (tr *trainer) screenMixture(sc *screenScratch, r *run, gap float64) ([]bool, int) {
	sc.drop = resizeBools(sc.drop, len(r.u))
	clear(sc.drop)
	n := tr.c.Len()
	rad := math.Sqrt(2 * gap / float64(n))
	thr := tr.pen.l1 * (1 - tr.op.Tau)
	if !(gap >= 0) || math.IsInf(gap, 1) || rad*tr.rnormMin >= thr {
		return sc.drop, 0
	}
	count := 0
	for q, j := range r.u {
		if r.mix.WorstAbsM(&r.dual, r.mU, q)+rad*tr.rnorm.at(j) < thr {
			sc.drop[q] = true
			count++
		}
	}
	return sc.drop, count
}
