package train

import (
	"context"
	"errors"
	"math"
	"slices"
	"time"

	"github.com/sparsetag/sparsetag/screen"
	"github.com/sparsetag/sparsetag/sparse"
	"github.com/sparsetag/sparsetag/train/internal/owlqn"
)

// Working-set solver (design references: Celer, Massias, Gramfort and
// Salmon, ICML 2018 and JMLR 2020; Blitz, Johnson and Guestrin, ICML 2015;
// skglm, Bertrand et al., NeurIPS 2022).
//
// Each outer iteration is one full pass and one restricted solve:
//
//   - full pass at w (w is zero outside the working set W): m over every
//     unscreened feature, from the marginals of the last evaluation (no
//     extra forward-backward), and the Fenchel-Young gap G of the whole
//     problem; stop if G <= epsilon;
//   - screening (screen.Pinsker) with that m and G over every unscreened
//     feature;
//   - the next W: the support of w, the transitions, and the features
//     with the smallest priority (beta - |m_j|) / Rnorm_j (negative for
//     features that violate the optimality conditions), twice the
//     support (nextWorkingSet says when it doubles instead);
//   - OWL-QN restricted to W (restricted passes score only W), started
//     from the full pass's value and gradient with the last set's
//     curvature, until the restricted gap falls below wsInnerFraction of
//     the smaller of G and its own start (restrictedSolve).
//
// Leaving a feature out of W decides nothing: every full pass re-prices
// every unscreened feature, and the loop stops only on the full gap, so
// the result is the optimum of the whole problem, certified as the full
// solver's is.

const (
	wsInitialSize   = 4096 // smallest working set
	wsInnerFraction = 0.3  // restricted solves stop at this fraction of the full gap
	wsMaxInner      = 50   // restricted iterations between two full passes at most
)

// wsRun is the bookkeeping of one working-set solve.
type wsRun struct {
	fullRun
	inner int       // OWL-QN iterations so far (all restricted solves)
	u     []int32   // unscreened features, increasing
	mU    []float64 // m over u at the last full pass
	supp  []int32   // positions in u of the non-zero weights at the last full pass
	suppW []float64 // their weights
	size  int       // size of the last working set
	next  []float64 // weights over the next working set
	prevW []int32   // the working set before the last change
	nextM []float64 // m over the next working set (from the full pass)
	// moved: screening zeroed a non-zero weight since the last
	// evaluation, so the next point needs a new one.
	moved bool
	sel   []float64 // scratch of nextWorkingSet
	// stalls counts consecutive restricted solves that made no step.
	stalls int
	// reached: the last restricted solve met its target (a slow full
	// gap then means the set was too small, not the solve too short).
	reached     bool
	lastMonitor int
	// strongThr: features with |m_j| >= strongThr must enter the working
	// set (the strong rule at the first pass of a path's beta; else +Inf).
	strongThr float64
	// floor is the smallest working set: wsInitialSize, or along a path
	// the size of the strong rule's set (strongSet).
	floor int
	// carry is the curvature of the previous beta's solve (path only),
	// used by the first restricted solve.
	carry *carriedState
}

// carriedState is the L-BFGS memory a working-set solve ended with, over
// the features w, at L2 coefficient lam2: the curvature the next solve of
// a path starts from.
type carriedState struct {
	st   owlqn.State
	w    []int32
	lam2 float64
}

// solveWorkingSet minimizes the objective by working sets from the
// full-size starting point init (nil: zero) and returns the full-size
// solution.
func (tr *trainer) solveWorkingSet(ctx context.Context, init []float64) (*Result, []float64, error) {
	fs := tr.fs
	run := &wsRun{fullRun: fullRun{res: tr.newResult(), t0: time.Now(), lastCheckGap: math.Inf(1)}}
	run.u = fs.unscreened(nil)
	if len(run.u) == 0 {
		return tr.zeroSolution(run.res)
	}
	// First working set: the support of init and the transitions; the
	// first full pass prices everything else.
	w0 := tr.initialSet(run.u, init)
	tr.obj.refFusedOK = true
	defer func() { tr.obj.refFusedOK = false }()
	fs.SetActive(w0)
	x := make([]float64, len(w0))
	if init != nil {
		sparse.Gather(x, init, w0)
	}
	run.size = max(wsInitialSize/2, len(w0))
	run.floor = wsInitialSize
	if err := tr.startRestricted(ctx, x); err != nil {
		return nil, nil, err
	}
	defer func() { tr.opt = nil }()
	run.carry, tr.carry = tr.carry, nil
	for {
		stop, err := tr.fullPass(ctx, run)
		if err != nil {
			return nil, nil, err
		}
		if stop {
			break
		}
		if len(run.u) == 0 {
			return tr.allScreened(ctx, run)
		}
		tr.nextWorkingSet(run)
		if err := tr.restrictedSolve(ctx, run); err != nil {
			return nil, nil, err
		}
	}
	w := make([]float64, len(tr.m.W))
	sparse.Scatter(w, tr.opt.X(), fs.active)
	if err := tr.finish(run.res, w); err != nil {
		return nil, nil, err
	}
	if tr.path {
		tr.carry = &carriedState{st: tr.opt.Snapshot(), w: slices.Clone(fs.active), lam2: tr.lam2}
	}
	run.res.Seconds = time.Since(run.t0).Seconds()
	return run.res, w, nil
}

// allScreened ends a solve in which screening proved every weight zero at
// the optimum: w* = 0, whose objective it evaluates. The gap over the
// unscreened features (none) is 0.
func (tr *trainer) allScreened(ctx context.Context, run *wsRun) (*Result, []float64, error) {
	tr.fs.SetActive(nil)
	f, err := tr.obj.loss(ctx, nil)
	if err != nil {
		return nil, nil, err
	}
	it := Iteration{Iter: run.inner, Primal: f, Screened: tr.fs.Screened(), Seconds: time.Since(run.t0).Seconds()}
	run.res.Iterations = append(run.res.Iterations, it)
	if tr.op.Progress != nil {
		tr.op.Progress(it)
	}
	run.res.Converged, run.res.StopReason = true, "gap"
	tr.carry = nil
	w := make([]float64, len(tr.m.W))
	if err := tr.finish(run.res, w); err != nil {
		return nil, nil, err
	}
	run.res.Seconds = time.Since(run.t0).Seconds()
	return run.res, w, nil
}

// initialSet returns the features of u in the support of init (nil: none)
// plus the transitions.
func (tr *trainer) initialSet(u []int32, init []float64) []int32 {
	var w0 []int32
	for _, j := range u {
		if tr.isTransition(j) || (init != nil && init[j] != 0) {
			w0 = append(w0, j)
		}
	}
	if len(w0) == 0 {
		w0 = append(w0, u[0])
	}
	return w0
}

// startRestricted starts an optimizer on the current working set at x (an
// evaluation: the marginals of the full pass belong to x).
func (tr *trainer) startRestricted(ctx context.Context, x []float64) error {
	opt, err := owlqn.New(x, tr.evalFunc(ctx), tr.optSettings())
	if err != nil {
		return err
	}
	tr.opt = opt
	return nil
}

// startAt starts the optimizer of a restricted solve at the weights chosen
// by nextWorkingSet. The point is the one the full pass priced (w is zero
// outside both sets), so its value and gradient are known: f is the last
// value, grad = L2 x - m with m from the full pass. If screening zeroed a
// non-zero weight, the point moved and is evaluated instead.
func (tr *trainer) startAt(ctx context.Context, run *wsRun) error {
	if run.moved || tr.opt == nil {
		run.moved = false
		return tr.startRestricted(ctx, run.next)
	}
	copy(tr.obj.M, run.nextM)
	g := make([]float64, len(run.next))
	for k, v := range run.next {
		g[k] = tr.lam2*v - run.nextM[k]
	}
	opt, err := owlqn.NewEvaluated(run.next, tr.opt.F(), g, tr.evalFunc(ctx), tr.optSettings())
	if err != nil {
		return err
	}
	tr.opt = opt
	return nil
}

// fullPass prices every unscreened feature at the current point from the
// marginals of its evaluation, computes the full gap, logs the iteration,
// applies the stopping rules and screens. It reports whether to stop.
func (tr *trainer) fullPass(ctx context.Context, run *wsRun) (bool, error) {
	obj, opt := tr.obj, tr.opt
	obj.expectAll()
	run.mU = resizeFloats(run.mU, len(run.u))
	obj.residualsInto(run.mU, run.u)
	gap := tr.supportAndGap(run)
	it := tr.logIteration(&run.fullRun, run.inner, opt.Objective(), gap)
	if len(run.hist) == 0 {
		run.hist = append(run.hist, it.Primal)
	}
	if tr.stopRule(&run.fullRun, it) {
		return true, nil
	}
	if run.stalls >= 2 {
		// Two restricted solves in a row could not decrease the objective
		// at working precision.
		run.res.StopReason = "line-search"
		return true, nil
	}
	if err := ctx.Err(); err != nil {
		return false, err
	}
	if stop, err := tr.monitorWS(run, opt.X()); stop || err != nil {
		return stop, err
	}
	if tr.rnorm != nil {
		tr.screenUnscreened(run, gap)
	}
	return false, nil
}

// supportAndGap records the support of w over u (positions and values) and
// returns the Fenchel-Young gap of the whole problem: the sum over every
// unscreened feature of screen.GapTerm(w_j, m_j), w_j = 0 outside the
// working set.
func (tr *trainer) supportAndGap(run *wsRun) float64 {
	act, x := tr.fs.active, tr.opt.X()
	alpha := tr.lam2 / tr.lam1
	run.supp, run.suppW = run.supp[:0], run.suppW[:0]
	gap, k := 0.0, 0
	for q, j := range run.u {
		w := 0.0
		if k < len(act) && act[k] == j {
			w = x[k]
			k++
		}
		if w != 0 {
			run.supp, run.suppW = append(run.supp, int32(q)), append(run.suppW, w)
		}
		gap += screen.GapTerm(w, run.mU[q], alpha, tr.lam1)
	}
	return gap
}

// monitorWS calls the monitor at the first full pass after every
// MonitorEvery OWL-QN iterations.
func (tr *trainer) monitorWS(run *wsRun, x []float64) (bool, error) {
	if tr.op.Monitor == nil || run.inner == 0 || run.inner/tr.op.MonitorEvery == run.lastMonitor {
		return false, nil
	}
	run.lastMonitor = run.inner / tr.op.MonitorEvery
	return tr.monitor(&run.fullRun, tr.op.MonitorEvery, x)
}

// screenUnscreened applies the screening rule to every unscreened feature
// with m and the gap of the last full pass and drops the screened ones
// from u and from the support (their weights, which the rule proves zero
// at the optimum, are zeroed).
func (tr *trainer) screenUnscreened(run *wsRun, gap float64) {
	ts := time.Now()
	defer func() { tr.screenSecs += time.Since(ts).Seconds() }()
	drop, removed, err := tr.screenTest(&tr.scratch, run.u, run.mU, gap)
	if err != nil || removed == 0 {
		return
	}
	q, s, ns := 0, 0, 0
	for k, j := range run.u {
		inSupp := s < len(run.supp) && int(run.supp[s]) == k
		if drop[k] {
			tr.fs.screen(j)
			run.moved = run.moved || inSupp
		} else {
			if inSupp {
				run.supp[ns], run.suppW[ns] = int32(q), run.suppW[s]
				ns++
			}
			run.u[q], run.mU[q] = j, run.mU[k]
			q++
		}
		if inSupp {
			s++
		}
	}
	run.u, run.mU = run.u[:q], run.mU[:q]
	run.supp, run.suppW = run.supp[:ns], run.suppW[:ns]
}

// nextWorkingSet chooses the next working set from the last full pass:
// the support, the transitions, and the features of smallest priority
// (beta - |m_j|)/Rnorm_j (negative for features that violate the
// optimality conditions). Its size is twice the support (Celer's rule),
// at least wsInitialSize, and twice the last set when the last restricted
// solve met its target but the full gap did not fall by wsInnerFraction
// since the last full pass (the set was too small to make progress; a
// solve cut short by wsMaxInner says nothing about the set, and doubling
// then would grow the set to every feature, with the full solver's
// memory). It installs the set in the feature set and
// keeps the weights and m over it in run.next and run.nextM.
func (tr *trainer) nextWorkingSet(run *wsRun) {
	its := run.res.Iterations
	strong := len(its) == 1 && tr.prevLam1 > tr.lam1
	run.strongThr = math.Inf(1)
	if strong {
		run.strongThr = 2*tr.lam1 - tr.prevLam1
	}
	size := max(run.floor, 2*len(run.supp))
	if n := len(its); n >= 2 && run.reached && its[n-1].Gap > wsInnerFraction*its[n-2].Gap {
		size = max(size, 2*run.size)
	}
	run.sel = run.sel[:0]
	must := 0
	s := 0
	for q := range run.u {
		p := tr.priority(run, q, &s)
		if math.IsInf(p, -1) {
			must++
		}
		run.sel = append(run.sel, p)
	}
	if strong {
		// The strong rule's set (Tibshirani et al., JRSS-B 2012): the
		// support, the transitions and every feature with |m_j(w_prev)| >=
		// 2 beta_k - beta_{k-1}; the full passes check it.
		size = max(must, 1)
		run.floor = size
	}
	size = min(len(run.u), max(size, must))
	thr := kthSmallest(run.sel, size)
	ws := make([]int32, 0, size)
	x := make([]float64, 0, size)
	mw := make([]float64, 0, size)
	s = 0
	for q, j := range run.u {
		sp := s
		if p := tr.priority(run, q, &s); len(ws) < size && p <= thr {
			w := 0.0
			if s > sp {
				w = run.suppW[sp]
			}
			ws, x, mw = append(ws, j), append(x, w), append(mw, run.mU[q])
		}
	}
	run.size = len(ws)
	run.next, run.nextM = x, mw
	run.prevW = tr.fs.active
	tr.fs.SetActive(ws)
}

// priority returns the working-set priority of u[q]: -Inf for the support
// (s walks run.supp and is advanced past q), the transitions and the
// strong rule's features (|m_j| >= run.strongThr), else
// (beta - |m_j|)/Rnorm_j.
func (tr *trainer) priority(run *wsRun, q int, s *int) float64 {
	j := run.u[q]
	if *s < len(run.supp) && int(run.supp[*s]) == q {
		*s++
		return math.Inf(-1)
	}
	if tr.isTransition(j) || math.Abs(run.mU[q]) >= run.strongThr {
		return math.Inf(-1)
	}
	if r := tr.rnorm.at(j); r > 0 {
		return (tr.lam1 - math.Abs(run.mU[q])) / r
	}
	return tr.lam1 - math.Abs(run.mU[q])
}

// carriedMemory returns the L-BFGS pairs of the last restricted solve
// embedded into the new working set (zeros on new features; pairs of
// features that left the set lose those entries): curvature kept across
// working sets. It returns nil when there is nothing to carry.
func (tr *trainer) carriedMemory(run *wsRun) *owlqn.State {
	var st owlqn.State
	prevW, dLam2 := run.prevW, 0.0
	switch {
	case run.carry != nil:
		// The first restricted solve of a path's beta: the curvature of the
		// previous beta, whose Hessian differs by (lam2 - its lam2) I.
		st, prevW, dLam2 = run.carry.st, run.carry.w, tr.lam2-run.carry.lam2
		run.carry = nil
	case tr.opt == nil || run.prevW == nil:
		return nil
	default:
		st = tr.opt.Snapshot()
	}
	if len(st.S) == 0 {
		return nil
	}
	ws := tr.fs.active
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
	out := &owlqn.State{L1: st.L1}
	for i := range st.S {
		s, y := embed(st.S[i]), embed(st.Y[i])
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

// kthSmallest returns the k-th smallest value of v (k >= 1), +Inf when k
// reaches len(v). v is reordered. Quickselect with a median-of-three
// pivot: O(len(v)) expected, deterministic.
func kthSmallest(v []float64, k int) float64 {
	if k >= len(v) {
		return math.Inf(1)
	}
	lo, hi, want := 0, len(v)-1, k-1
	for hi-lo > 16 {
		mid := lo + (hi-lo)/2
		a, b, c := v[lo], v[mid], v[hi]
		pivot := max(min(a, b), min(max(a, b), c))
		i, j := lo, hi
		for i <= j {
			for v[i] < pivot {
				i++
			}
			for v[j] > pivot {
				j--
			}
			if i <= j {
				v[i], v[j] = v[j], v[i]
				i++
				j--
			}
		}
		switch {
		case want <= j:
			hi = j
		case want >= i:
			lo = i
		default:
			return v[want]
		}
	}
	slices.Sort(v[lo : hi+1])
	return v[want]
}

// restrictedSolve runs OWL-QN on the working set from the weights chosen
// by nextWorkingSet, with the curvature of the last restricted solve,
// until the restricted gap is below wsInnerFraction of the smaller of the
// full gap and its own value at the start (the full gap alone is dominated
// by the features outside the set at small penalties), or wsMaxInner
// iterations, or no progress. It leaves the optimizer, and the objective's
// last evaluation, at the final point.
func (tr *trainer) restrictedSolve(ctx context.Context, run *wsRun) error {
	mem := tr.carriedMemory(run)
	if err := tr.startAt(ctx, run); err != nil {
		return err
	}
	opt := tr.opt
	if mem != nil {
		if err := opt.SetMemory(*mem); err != nil {
			return err
		}
	}
	g0 := fyGap(opt.X(), tr.obj.M, tr.lam1, tr.lam2)
	target := wsInnerFraction * math.Min(g0, run.res.Iterations[len(run.res.Iterations)-1].Gap)
	run.reached = g0 <= target
	for i := 0; i < wsMaxInner && run.inner < tr.op.MaxIter; i++ {
		if err := opt.Iterate(); err != nil {
			if !errors.Is(err, owlqn.ErrLineSearch) {
				return err
			}
			if i == 0 {
				run.stalls++
			}

			// Keep the last valid point; the evaluation must belong to it.
			return opt.Reevaluate()
		}
		run.stalls = 0
		run.inner++
		run.hist = append(run.hist, opt.Objective())
		if tr.op.Step != nil {
			tr.op.Step(run.inner, opt.Objective())
		}
		if fyGap(opt.X(), tr.obj.M, tr.lam1, tr.lam2) <= target {
			run.reached = true
			break
		}
	}
	return nil
}
