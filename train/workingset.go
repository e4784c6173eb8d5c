package train

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/sparsetag/sparsetag/screen"
	"github.com/sparsetag/sparsetag/train/internal/blocks"
	"github.com/sparsetag/sparsetag/train/internal/owlqn"
	"github.com/sparsetag/sparsetag/train/internal/topk"
)

// The working-set policy's choice of features (design references: Celer,
// Massias, Gramfort and Salmon, ICML 2018 and JMLR 2020; Blitz, Johnson
// and Guestrin, ICML 2015; skglm, Bertrand et al., NeurIPS 2022): the
// support of w, the transitions, and the features with the smallest
// priority (beta - |m_j|) / Rnorm_j (negative for features that violate
// the optimality conditions), twice the support (wsState.next says when
// it doubles instead). Screening (screening.go) serves both policies.

const (
	wsInitialSize   = 4096 // smallest working set
	wsInnerFraction = 0.3  // restricted solves stop at this fraction of the full gap
	wsMaxInner      = 50   // restricted iterations between two full passes at most

	// defaultWSDenseFraction: when twice the support reaches this fraction
	// of the unscreened features, the full policy takes over
	// (switchToFull). Tests choose the policy on small problems with
	// tuning.wsDenseFraction.
	defaultWSDenseFraction = 0.5
	// defaultWSSwitchMin: below this many unscreened features the working
	// set never hands over (a full pass over so few costs nothing; syn1's
	// paths end with about ten). Tests exercise the hand-over on small
	// problems with tuning.wsSwitchMin.
	defaultWSSwitchMin = 1024
)

// wsState is what the working-set policy remembers between full passes.
type wsState struct {
	size  int           // size of the last working set
	floor int           // smallest working set: wsInitialSize, or the strong rule's set along a path
	sel   topk.Smallest // scratch of choose
	// reached: the last inner solve met its target (a slow full gap then
	// means the set was too small, not the solve too short).
	reached bool
	// strongThr: features with |m_j| >= strongThr must enter the working
	// set (the strong rule at the first pass of a path's beta; else +Inf).
	strongThr float64
	// carry is the curvature of the previous beta's solve (path only),
	// used by the first inner solve; prevLam1 is that beta's L1
	// coefficient (0: none), the strong rule's.
	carry    *carriedState
	prevLam1 float64
	// diagonal: an inner solve that starts without memory starts from the
	// diagonal (diagonalStart); not along a path, whose solves carry the
	// previous beta's memory and whose first one, at the largest beta, is
	// nearly empty (tagger bench paper with it: 2 more iterations on
	// syn1, 1 on syn2, 8 on ocr-letters, 7 fewer on ocr).
	diagonal bool
}

// carriedState is the L-BFGS memory a working-set solve ended with, over
// the features w, at L2 coefficient lam2: the curvature the next solve of
// a path starts from.
type carriedState struct {
	st   owlqn.State
	w    []int32
	lam2 float64
}

// initialSet returns the features of u (increasing) in the support of the
// starting point, nz (its non-zero features, increasing), plus the
// transitions.
func (tr *trainer) initialSet(u, nz []int32) []int32 {
	var w0 []int32
	k := 0
	for _, j := range u {
		for k < len(nz) && nz[k] < j {
			k++
		}
		if tr.isTransition(j) || (k < len(nz) && nz[k] == j) {
			w0 = append(w0, j)
		}
	}
	if len(w0) == 0 {
		w0 = append(w0, u[0])
	}
	return w0
}

// supportAndGap records the support of w over u (positions and values) and
// returns the Fenchel-Young gap of the whole problem: the sum over every
// unscreened feature of screen.GapTerm(w_j, m_j), w_j = 0 outside the
// working set, in the order of u. The blocks of u run on the run's
// threads (train/internal/blocks: each seeds its walk of the active set by
// a search, and keeps its support and its non-zero terms; the sum adds
// them in order: the serial loop's bits).
func (r *run) supportAndGap() float64 {
	tr := r.tr
	var gap float64
	r.supp, r.suppW, gap = r.gapScan.supportAndGap(tr.op.Threads, r.u, tr.fs.Active(), r.opt.X(), r.mU, tr.pen,
		r.supp[:0], r.suppW[:0])
	return gap
}

// gapScan is the scratch of supportAndGap's blocks.
type gapScan struct {
	blk []supportBlock
	sum blocks.Sum
}

// supportAndGap appends to supp and suppW the positions in u and values of
// the non-zero weights of x (over act, a subset of u, both increasing) and
// returns them with the sum of screen.GapTerm(w_j, m_j) over u in order (m
// over u), on threads goroutines.
func (g *gapScan) supportAndGap(threads int, u, act []int32, x, m []float64, pen penalty, supp []int32,
	suppW []float64) ([]int32, []float64, float64) {
	alpha := pen.l2 / pen.l1
	nb := blocks.Count(len(u))
	if len(g.blk) < nb {
		g.blk = append(g.blk, make([]supportBlock, nb-len(g.blk))...)
	}
	gap := g.sum.Run(threads, len(u), func(b, lo, hi int, terms []float64) []float64 {
		sb := &g.blk[b]
		sb.q, sb.w = sb.q[:0], sb.w[:0]
		k, _ := slices.BinarySearch(act, u[lo])
		for q := lo; q < hi; q++ {
			w := 0.0
			if k < len(act) && act[k] == u[q] {
				w = x[k]
				k++
			}
			if w != 0 {
				sb.q, sb.w = append(sb.q, int32(q)), append(sb.w, w)
			}
			if t := screen.GapTerm(w, m[q], alpha, pen.l1); t != 0 {
				terms = append(terms, t)
			}
		}
		return terms
	})
	for _, sb := range g.blk[:nb] {
		supp, suppW = append(supp, sb.q...), append(suppW, sb.w...)
	}
	return supp, suppW, gap
}

// supportBlock is the support of w over one block of u (supportAndGap).
type supportBlock struct {
	q []int32
	w []float64
}

// next chooses the next working set from the last full pass
// (choose), installs it in the feature set and the objective,
// and starts the inner solve's optimizer at the same point. The point is
// the one the full pass priced (w is zero outside both sets), so its value
// is known and its gradient over the new set is l2 x - m, with m from the
// full pass: no evaluation. The optimizer starts with the curvature of the
// last inner solve (or of the previous beta along a path) embedded into the
// new set (carriedMemory); without one, from a diagonal estimate of it
// (diagonalStart).
func (st *wsState) next(ctx context.Context, r *run) error {
	tr := r.tr
	ws, x, mw := st.choose(r)
	if tu := tr.op.tuned(); len(r.u) >= tu.wsSwitchMin && float64(2*len(r.supp)) >= tu.wsDenseFraction*float64(len(r.u)) {
		ws, x, mw = st.switchToFull(r)
	}
	if nz := countNonZero(x); nz != len(r.supp) {
		// The optimizer starts from the full pass's value, which holds
		// only if every weight of the support is in the set (pick).
		return fmt.Errorf("train: internal error: the working set holds %d of the %d non-zero weights", nz, len(r.supp))
	}
	prevW := tr.fs.Active()
	mem := st.carriedMemory(r, prevW, ws)
	f := r.opt.F()
	tr.obj.SetActive(ws, r.policy == SolverWorkingSet)
	g := make([]float64, len(x))
	for k, v := range x {
		g[k] = tr.pen.l2*v - mw[k]
	}
	opt, err := owlqn.New(x, f, g, tr.optSettings())
	if err != nil {
		return err
	}
	switch {
	case mem != nil:
		if err := opt.SetMemory(*mem); err != nil {
			return err
		}
	case st.diagonal && r.policy == SolverWorkingSet && tr.pen.l2 > 0:
		diagonalStart(tr, opt, ws, mw)
	}
	r.opt, r.m = opt, mw
	return nil
}

// switchToFull hands the rest of the solve to the full policy when the
// support is dense: when twice the support (Celer's working-set size)
// reaches tuning.wsDenseFraction of the unscreened features. Such a set
// saves no forward-backward work, while each of its full passes adds a
// column pass for m over every feature and each inner solve a new
// optimizer (on the OCR
// path of tagger bench paper, 64 ms per working-set iteration against 39 ms
// for the full solver's). The floor of the set does not count: on a small
// problem the set is everything, yet the working set's longer inner solves
// still save iterations when the support is sparse (syn1). It
// returns the new set (every unscreened feature) with the weights and m
// over it, from the last full pass.
func (st *wsState) switchToFull(r *run) (ws []int32, x, mw []float64) {
	r.res.Solver = SolverFull
	r.res.SolverReason = fmt.Sprintf("the support reached %d of the %d unscreened features at iteration %d: dense, the full policy took over",
		len(r.supp), len(r.u), r.iter)
	r.policy, r.switched = SolverFull, true
	r.dual.Reset()
	x = make([]float64, len(r.u))
	for k, q := range r.supp {
		x[q] = r.suppW[k]
	}
	return slices.Clone(r.u), x, slices.Clone(r.mU)
}

// choose returns the next working set and the weights and m over
// it: the support, the transitions, and the features of smallest priority
// (beta - |m_j|)/Rnorm_j (negative for features that violate the
// optimality conditions). Its size is twice the support (Celer's rule), at
// least the floor, and twice the last set when the last inner solve met
// its target but the full gap did not fall by wsInnerFraction since the
// last full pass (the set was too small to make progress; a solve cut short
// by wsMaxInner says nothing about the set, and doubling then would grow
// the set to every feature, with the full policy's memory). At the first
// pass of a path's beta it is the strong rule's set.
func (st *wsState) choose(r *run) (ws []int32, x, mw []float64) {
	tr := r.tr
	strong := r.passes == 1 && st.prevLam1 > tr.pen.l1
	st.strongThr = math.Inf(1)
	if strong {
		st.strongThr = 2*tr.pen.l1 - st.prevLam1
	}
	size := max(st.floor, 2*len(r.supp))
	if r.passes >= 2 && st.reached && r.gaps[1] > wsInnerFraction*r.gaps[0] {
		size = max(size, 2*st.size)
	}
	s := 0
	prio := func(q int) float64 { return st.priority(r, q, &s) }
	setSize := func(must int) int {
		if strong {
			// The strong rule's set (Tibshirani et al., JRSS-B 2012): the
			// support, the transitions and every feature with |m_j(w_prev)| >=
			// 2 beta_k - beta_{k-1}; the full passes check it.
			st.floor = max(must, 1)
			return st.floor
		}
		return size
	}
	ws, x, mw = make([]int32, 0, size), make([]float64, 0, size), make([]float64, 0, size)
	sp := 0 // walks r.supp
	st.sel.Pick(len(r.u), size, prio, setSize, func(q int) {
		for sp < len(r.supp) && int(r.supp[sp]) < q {
			sp++
		}
		w := 0.0
		if sp < len(r.supp) && int(r.supp[sp]) == q {
			w = r.suppW[sp]
		}
		ws, x, mw = append(ws, r.u[q]), append(x, w), append(mw, r.mU[q])
	})
	st.size = len(ws)
	return ws, x, mw
}

// priority returns the working-set priority of u[q]: -Inf for the support
// (s walks run.supp and is advanced past q), the transitions and the
// strong rule's features (|m_j| >= run.strongThr), else
// (beta - |m_j|)/Rnorm_j.
func (st *wsState) priority(r *run, q int, s *int) float64 {
	tr := r.tr
	j := r.u[q]
	if *s < len(r.supp) && int(r.supp[*s]) == q {
		*s++
		return math.Inf(-1)
	}
	if tr.isTransition(j) || math.Abs(r.mU[q]) >= st.strongThr {
		return math.Inf(-1)
	}
	if rn := tr.rnorm.at(j); rn > 0 {
		return (tr.pen.l1 - math.Abs(r.mU[q])) / rn
	}
	return tr.pen.l1 - math.Abs(r.mU[q])
}

// carriedMemory returns the L-BFGS pairs of the last inner solve, over
// the features prevW, embedded into the new working set ws (zeros on new features; pairs of
// features that left the set lose those entries): curvature kept across
// working sets. It returns nil when there is nothing to carry.
func (st *wsState) carriedMemory(r *run, prevW, ws []int32) *owlqn.State {
	tr := r.tr
	var mem owlqn.State
	dLam2 := 0.0
	if c := st.carry; c != nil {
		// The first inner solve of a path's beta: the curvature of the
		// previous beta, whose Hessian differs by (lam2 - its lam2) I.
		mem, prevW, dLam2 = c.st, c.w, tr.pen.l2-c.lam2
		st.carry = nil
	} else {
		mem = r.opt.Snapshot()
	}
	if len(mem.S) == 0 {
		return nil
	}
	pos := make([]int32, len(prevW)) // new position of each old feature, or -1
	k := 0
	for q, j := range prevW {
		for k < len(ws) && ws[k] < j {
			k++
		}
		pos[q] = -1
		if k < len(ws) && ws[k] == j {
			pos[q] = int32(k)
		}
	}
	embed := func(v []float64) []float64 {
		out := make([]float64, len(ws))
		for q, p := range pos {
			if p >= 0 {
				out[p] = v[q]
			}
		}
		return out
	}
	out := &owlqn.State{L1: mem.L1}
	for i := range mem.S {
		s, y := embed(mem.S[i]), embed(mem.Y[i])
		sy := 0.0
		for k := range s {
			y[k] += dLam2 * s[k]
			sy += s[k] * y[k]
		}
		if !(sy > 0) {
			continue // a pair that lost its curvature with the dropped features
		}
		out.S, out.Y, out.Rho = append(out.S, s), append(out.Y, y), append(out.Rho, 1/sy)
	}
	return out
}
