package train

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime/debug"
	"slices"
	"time"

	"github.com/sparsetag/sparsetag/sparse"
	"github.com/sparsetag/sparsetag/train/certificate"
	"github.com/sparsetag/sparsetag/train/internal/owlqn"
	"github.com/sparsetag/sparsetag/train/internal/topk"
)

// The solver loop. One loop serves both policies; it owns every
// evaluation of the objective, and m, the gap and the optimizer are its
// variables (run), not state read back from elsewhere.
//
//	start: evaluate at the starting point over the first working set
//	loop:
//	  full pass: m over every unscreened feature at X and the gap G of
//	    the whole problem; near the target, the Newton candidate
//	    (newton.go: a dual bound, and X moves when it is lower); unless X
//	    is certified, screening with m and G
//	    (if it zeroed a weight, X moved: evaluate there and price again);
//	    the log line, whose gap is G or P(X) minus the best dual bound of
//	    the earlier passes if smaller (run.certified); the stopping rules;
//	    checkpoint; monitor
//	  inner solve: choose the working set W and run OWL-QN on W, asking
//	    the optimizer for trial points and evaluating each
//
// The policies differ only in the choice of W and in how long the inner
// solve runs:
//
//   - full (the paper's Algorithm 1): W is every unscreened feature and
//     the inner solve is one OWL-QN iteration; m over W is the last
//     evaluation's, so a full pass costs nothing beyond the gap;
//   - working set: W is the support, the transitions and the features of
//     smallest priority (workingset.go); the inner solve runs until the
//     restricted gap falls below wsInnerFraction of the smaller of G and
//     its own start, or wsMaxInner iterations, or until the best dual
//     bound certifies the point (the next full pass then stops). A
//     feature outside W is only postponed: every full pass prices it, and
//     the loop stops only on the full gap, so both policies reach the same
//     optimum, certified the same way.
//
// Every OWL-QN iteration is a line of the log (Iteration); the lines of
// full passes carry the gap (Iteration.Pass).

// run is the state of one solve.
type run struct {
	tr     *trainer // the run's problem: feature set, objective, penalty, options
	res    *Result
	t0     time.Time
	evals0 int // the objective's evaluation count when the solve started
	policy Solver
	opt    *owlqn.Optimizer
	grad   []float64 // gradient of evaluations outside the line search
	m      []float64 // m = -∇L over the active set at X (aliases the objective's)

	u       []int32   // unscreened features, increasing
	mU      []float64 // m over u at the last full pass (working-set policy)
	supp    []int32   // positions in u of the non-zero weights at the last full pass
	suppW   []float64 // their weights
	gapScan gapScan   // supportAndGap's scratch

	iter         int        // OWL-QN iterations so far
	passes       int        // full passes so far
	hist         []float64  // objective after every iteration (the Delta rule)
	lastCheckGap float64    // gap at the last screening check (Gamma)
	gaps         [2]float64 // the last two full passes' own gaps (G_k)
	// dualBound is the best lower bound on the optimum seen in this solve:
	// the largest Primal - Gap over the log's full passes (logLine; a
	// resumed run forms it again from the checkpoint's log).
	dualBound   float64
	zeroed      int // non-zero weights the last screening set to zero
	stalls      int // consecutive inner solves that made no step
	lastMonitor int // r.iter / MonitorEvery at the last monitor call
	lastCkpt    int // r.iter / CheckpointEvery at the last checkpoint
	ws          wsState
	switched    bool // the working set became dense: the full policy took over

	// The mixture certificate (train/certificate, working-set policy): m of
	// earlier full passes and the working state (mix.won: the mixture
	// certified this pass, and screening uses its dual point).
	dual certificate.History
	mix  certificate.Mixture

	gauge gaugeState  // the gauge step (gauge.go)
	nw    newtonState // the Newton candidate (newton.go)
}

// solveInput is everything a solve starts from besides the trainer's
// feature set and objective: the penalty, the starting point, and along a
// path what the previous solve handed over.
type solveInput struct {
	pen    penalty
	init   []float64   // full-size starting point (nil: zero, or the warm start)
	resume *Checkpoint // continue from this state instead
	warm   bool        // start from the stochastic warm start when init and resume are nil

	// Along a path: the L1 coefficient of the previous solve (0: none; the
	// strong rule) and the curvature its working-set solve ended with.
	path     bool
	prevLam1 float64
	carry    *carriedState

	// out, when not nil, receives the full-size solution (Train: the
	// model's weights); last says no other solve follows, so the static
	// bounds and the buffers go as soon as they are used.
	out  []float64
	last bool
}

// solveOutput is what a solve returns: its result, the full-size
// solution, and along a path the curvature the next solve starts from.
type solveOutput struct {
	res   *Result
	w     []float64
	carry *carriedState
}

// solve minimizes the objective at in.pen from in's starting point, or
// from a checkpoint, and returns the full-size solution.
func (tr *trainer) solve(ctx context.Context, in solveInput) (solveOutput, error) {
	tr.setPenalty(in.pen, in.last)
	r := tr.newRun(in)
	if len(r.u) == 0 {
		return r.allScreened(ctx, in)
	}
	p := sparsePoint{}
	if in.warm && in.init == nil && in.resume == nil {
		var err error
		if p, r.res.Warm, err = tr.warmStart(ctx, r.u, nil); err != nil {
			return solveOutput{}, err
		}
	} else if in.init != nil {
		p = densePoint(in.init, r.u)
	}
	if err := r.start(ctx, p, in.resume); err != nil {
		return solveOutput{}, err
	}
	// A checkpoint is taken after the full pass and before the inner
	// solve: a resumed run prices X again (same m, same gap) and goes on.
	resumed := in.resume != nil
	for {
		gap := r.price(false)
		if !resumed {
			if err := r.nw.try(ctx, r, &gap); err != nil {
				return solveOutput{}, err
			}
			stop, err := r.fullPass(ctx, &gap)
			if err != nil || stop {
				if err != nil {
					return solveOutput{}, err
				}
				break
			}
			if len(r.u) == 0 {
				return r.allScreened(ctx, in)
			}
		}
		resumed = false
		if err := r.innerSolve(ctx, gap); err != nil {
			return solveOutput{}, err
		}
		// The pass prices the point at the penalty's minimum along the
		// likelihood's symmetries (gauge.go): a lower primal, same m.
		if err := r.gauge.step(r.opt, tr.m.Layout, tr.fs.Active(), tr.pen); err != nil {
			return solveOutput{}, err
		}
	}
	return r.finish(in)
}

// pass returns the full pass just priced, for the mixture certificate: m
// over u and the support of X.
func (r *run) pass() certificate.Pass {
	return certificate.Pass{M: r.mU, Supp: r.supp, SuppW: r.suppW}
}

// newRun starts the bookkeeping of a solve and chooses its policy.
func (tr *trainer) newRun(in solveInput) *run {
	r := &run{tr: tr, t0: time.Now(), evals0: tr.obj.Stats().Evals, lastCheckGap: math.Inf(1), gaps: [2]float64{math.Inf(1), math.Inf(1)},
		dualBound: math.Inf(-1)}
	r.policy, r.res = tr.choosePolicy()
	r.u = tr.fs.Unscreened(nil)
	r.dual.Threads, r.mix.Threads = tr.op.Threads, tr.op.Threads
	r.ws.carry, r.ws.prevLam1 = in.carry, in.prevLam1
	r.ws.diagonal = !in.path
	return r
}

// choosePolicy returns the policy of this solve and a result that says
// which and why. The working set needs an L1 term (sparsity) and the
// Pinsker rule (the paper's rule works on the whole problem).
func (tr *trainer) choosePolicy() (Solver, *Result) {
	res := tr.newResult()
	res.Solver, res.SolverReason = tr.op.Solver, "requested"
	if tr.op.Solver == SolverWorkingSet {
		switch {
		case tr.pen.l1 <= 0:
			res.Solver, res.SolverReason = SolverFull, "no L1 term (c1 = 0): nothing to keep out of the working set"
		case tr.rnorm == nil:
			res.Solver, res.SolverReason = SolverFull, "screening is off: the working set needs the Pinsker rule"
		case tr.op.Screen != ScreenPinsker:
			res.Solver, res.SolverReason = SolverFull, fmt.Sprintf("screening rule %q works on the whole problem", tr.op.Screen)
		}
	}
	return res.Solver, res
}

// start evaluates the objective at the starting point over the first
// working set (every unscreened feature, or the support of init and the
// transitions) and starts the optimizer there; or restores a checkpoint.
func (r *run) start(ctx context.Context, init sparsePoint, resume *Checkpoint) error {
	tr := r.tr
	if resume != nil {
		return r.resume(ctx, resume)
	}
	w0 := r.u
	if r.policy == SolverWorkingSet {
		w0 = tr.initialSet(r.u, init.idx)
		r.ws.size, r.ws.floor = max(wsInitialSize/2, len(w0)), wsInitialSize
	}
	tr.obj.SetActive(slices.Clone(w0), r.policy == SolverWorkingSet)
	return r.startAt(ctx, init.gather(w0))
}

// sparsePoint is a starting point as its non-zero features (idx
// increasing) and their weights: the warm start's, or a full-size init's
// (densePoint).
type sparsePoint struct {
	idx []int32
	val []float64
}

// gather returns the point's weights over the features idx (increasing).
func (p sparsePoint) gather(idx []int32) []float64 {
	x := make([]float64, len(idx))
	k := 0
	for q, j := range p.idx {
		for k < len(idx) && idx[k] < j {
			k++
		}
		if k < len(idx) && idx[k] == j {
			x[k] = p.val[q]
		}
	}
	return x
}

// densePoint returns the non-zero weights of the full-size w over the
// features u (increasing).
func densePoint(w []float64, u []int32) sparsePoint {
	var p sparsePoint
	for _, j := range u {
		if v := w[j]; v != 0 {
			p.idx, p.val = append(p.idx, j), append(p.val, v)
		}
	}
	return p
}

// startAt evaluates the objective at x over the active set and starts a
// new optimizer there.
func (r *run) startAt(ctx context.Context, x []float64) error {
	tr := r.tr
	r.grad = resizeFloats(r.grad, len(x))
	f, m, err := tr.evaluate(ctx, x, r.grad)
	if err != nil {
		return err
	}
	r.m = m
	r.opt, err = owlqn.New(x, f, r.grad, tr.optSettings())
	return err
}

// evaluate is the one call of the objective: at x over the active set it
// returns f(x) = L(x) + l2/2 ||x||^2, writes ∇f(x) into grad and returns
// m = -∇L(x) (valid until the next evaluation).
func (tr *trainer) evaluate(ctx context.Context, x, grad []float64) (float64, []float64, error) {
	return tr.obj.Evaluate(ctx, x, grad, tr.pen.l2)
}

// reevaluate evaluates at X (after a failed line search, whose last
// evaluation was at a rejected trial, or after screening moved X) and
// rebases the optimizer there.
func (r *run) reevaluate(ctx context.Context) error {
	tr := r.tr
	x := r.opt.X()
	r.grad = resizeFloats(r.grad, len(x))
	f, m, err := tr.evaluate(ctx, x, r.grad)
	if err != nil {
		return err
	}
	r.m = m
	r.gauge.moved = false // the evaluation belongs to X
	return r.opt.Rebase(f, r.grad)
}

// price returns the gap of the whole problem at X: with the full policy
// from m over the active set (every unscreened feature); with the working
// set from m over every unscreened feature, formed from the marginals of
// the last evaluation (no extra forward-backward), w_j = 0 outside W;
// formed says r.mU holds it already (the Newton candidate's move, which
// also committed the last pass's m).
func (r *run) price(formed bool) float64 {
	tr := r.tr
	if r.policy == SolverFull {
		if tr.pen.l2 == 0 {
			return tr.noL2Gap(r.opt.X(), r.m) // pure L1, or no penalty
		}
		return fyGap(r.opt.X(), r.m, tr.pen.l1, tr.pen.l2)
	}
	if !formed {
		r.dual.Commit(r.mU) // the last pass's m, before it is overwritten
		r.mU = tr.obj.Residuals(r.mU, r.u)
	}
	gap := r.supportAndGap()
	r.mix.Forget()
	if tr.op.Certificate == CertificateModel {
		return gap
	}
	sq := 0.0
	for _, v := range r.suppW {
		sq += v * v
	}
	loss := r.opt.F() - 0.5*tr.pen.l2*sq // L(w): f less the L2 term
	return r.mix.Gap(&r.dual, r.pass(), tr.pen.l1, tr.pen.l2, gap, loss)
}

// fullPass is the part of a full pass after pricing: screening (unless
// the gap certifies X), the log line, the stopping rules, the checkpoint
// and the monitor. gap is updated when screening changed it. It reports
// whether to stop.
func (r *run) fullPass(ctx context.Context, gap *float64) (bool, error) {
	tr := r.tr
	r.zeroed = 0 // screening below counts this pass's
	if tr.interrupted() {
		return true, r.stopInterrupted(*gap)
	}
	stalled := r.stalls >= r.stallLimit()
	if !stalled && !tr.gapReached(r.certified(*gap), r.opt.Objective()) {
		if err := tr.screenPass(ctx, r, gap); err != nil || len(r.u) == 0 {
			return false, err
		}
	}
	it := r.passLine(*gap)
	if stalled {
		// The inner solve could not decrease the objective at working
		// precision.
		r.res.StopReason = StopLineSearch
		if tr.gapReached(it.Gap, it.Primal) {
			r.res.Converged, r.res.StopReason = true, StopGap
		}
		return true, nil
	}
	if len(r.hist) == 0 || r.policy == SolverFull {
		r.hist = append(r.hist, it.Primal)
	}
	if r.stopRule(it) {
		return true, nil
	}
	if err := ctx.Err(); err != nil {
		return false, err
	}
	if err := r.saveCheckpoint(); err != nil {
		return false, err
	}
	return r.monitor()
}

// interrupted reports whether Options.Interrupt was closed.
func (tr *trainer) interrupted() bool { return closed(tr.op.Interrupt) }

// stopInterrupted ends an interrupted solve at the point of this full pass:
// its log line (with the gap), StopInterrupt, and a checkpoint when one was
// asked for.
func (r *run) stopInterrupted(gap float64) error {
	tr := r.tr
	it := r.passLine(gap)
	r.res.StopReason = StopInterrupt
	r.res.Converged = tr.gapReached(it.Gap, it.Primal)
	if tr.op.Checkpoint == nil {
		return nil
	}
	if err := tr.op.Checkpoint(r.checkpoint()); err != nil {
		return fmt.Errorf("train: checkpoint: %w", err)
	}
	return nil
}

// stallLimit is the number of inner solves without a step after which the
// loop stops: the full policy's inner solve is one iteration from the
// full problem's curvature, the working set's restarts from a new set.
func (r *run) stallLimit() int {
	if r.policy == SolverFull {
		return 1
	}
	return 2
}

// innerSolve runs OWL-QN on the working set from X: one iteration with
// the full policy, until the restricted target with the working set.
func (r *run) innerSolve(ctx context.Context, gap float64) error {
	tr := r.tr
	r.gauge.moved = false // X moves from here on
	if r.policy == SolverWorkingSet {
		// Choose the set and start its optimizer; a set too dense to pay
		// switches the solve to the full policy (wsState.next).
		if err := r.ws.next(ctx, r); err != nil {
			return err
		}
	}
	maxInner, target, hold := 1, math.Inf(-1), 0
	if r.policy == SolverWorkingSet {
		g0 := fyGap(r.opt.X(), r.m, tr.pen.l1, tr.pen.l2)
		target = wsInnerFraction * math.Min(g0, gap)
		r.ws.reached = g0 <= target
		maxInner = wsMaxInner
		if r.passesCannotCertify() {
			hold = holdWindow
		}
	}
	for i := 0; i < maxInner && r.iter < tr.op.MaxIter; i++ {
		ok, err := r.iterate(ctx)
		if err != nil {
			return err
		}
		if !ok {
			if i == 0 {
				r.stalls++
			}
			// Keep the last valid point; the evaluation must belong to it.
			return r.reevaluate(ctx)
		}
		r.stalls = 0
		if r.policy == SolverWorkingSet {
			r.hist = append(r.hist, r.opt.Objective()) // the full policy's passes log every iteration
		}
		if tr.interrupted() {
			return nil // the next full pass prices this point and stops
		}
		if fyGap(r.opt.X(), r.m, tr.pen.l1, tr.pen.l2) <= target {
			r.ws.reached = true
			return nil
		}
		if obj := r.opt.Objective(); tr.gapReached(obj-r.dualBound, obj) {
			return nil // certified by an earlier pass's dual bound: the next pass stops
		}
		if i+1 >= hold && r.innerStalled(i) {
			return nil
		}
		if i+1 < maxInner && r.iter < tr.op.MaxIter {
			r.logLine(0, false) // a full pass logs the last iteration
		}
	}
	return nil
}

// innerStalled reports whether the inner solve, i+1 iterations in, gained
// less than a quarter of the stopping rule's gap over its last
// stallWindow iterations: the restricted gap (at p_w, loose near the
// optimum) may still be far from its target, but a full pass now may
// certify the point, and otherwise refreshes the set. It ends no solve
// early: the full pass decides.
func (r *run) innerStalled(i int) bool {
	tr := r.tr
	if i+1 < stallWindow || len(r.hist) <= stallWindow {
		return false
	}
	obj := r.hist[len(r.hist)-1]
	gain := r.hist[len(r.hist)-1-stallWindow] - obj
	return gain < 0.25*tr.op.gapTarget(obj)
}

// stallWindow is the number of inner iterations innerStalled looks back.
const stallWindow = 5

// holdWindow is the number of inner iterations before which a stalled
// inner solve does not hand over while passesCannotCertify.
const holdWindow = 3 * stallWindow

// passesCannotCertify reports whether the certified gap of the last two
// full passes, extrapolated at their rate (geometric, per iteration) over
// holdWindow more iterations, stays above the stopping rule's target: a
// full pass before then would, by that rate, price the point without
// stopping the solve. The inner solve then hands over on a stall only
// after holdWindow iterations. In the linear end game of a tight target
// that takes a full pass (about 1.2 iterations' work on CoNLL-2000) every
// 15 iterations instead of every 5, and the certificate at a given
// iteration is the same (the mixture works as well with passes 15
// iterations apart). Near the target, or while the certificate falls fast
// (the mixture catching up), passes come as before. What a full pass
// also does (the Delta rule, the checkpoint and the monitor, the working
// set's refresh) comes up to 10 iterations later while the solve holds.
// The passes are read from the log, so a resumed run holds as the original
// did; an infinite or NaN gap never holds.
func (r *run) passesCannotCertify() bool {
	tr := r.tr
	var last [2]Iteration
	n := 0
	for k := len(r.res.Iterations) - 1; k >= 0 && n < 2; k-- {
		if it := r.res.Iterations[k]; it.Pass {
			last[n] = it
			n++
		}
	}
	cur, prev := last[0], last[1]
	finite := func(g float64) bool { return g > 0 && !math.IsInf(g, 1) } // false on NaN
	if n < 2 || !finite(cur.Gap) || !finite(prev.Gap) || cur.Iter <= prev.Iter {
		return false
	}
	rate := math.Log(cur.Gap/prev.Gap) / float64(cur.Iter-prev.Iter)
	next := cur.Gap * math.Exp(rate*holdWindow)
	return !math.IsInf(next, 1) && !tr.gapReached(next, cur.Primal)
}

// iterate is one OWL-QN iteration: the optimizer hands out trial points
// along its search direction, each is evaluated, until one is accepted. It
// reports false (and no error) when the line search failed or X is
// optimal; X is then unchanged, but the last evaluation may belong to a
// rejected trial.
func (r *run) iterate(ctx context.Context) (bool, error) {
	tr := r.tr
	for {
		x, grad, err := r.opt.Next()
		if errors.Is(err, owlqn.ErrLineSearch) || (err == nil && x == nil) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		f, m, err := tr.evaluate(ctx, x, grad)
		if err != nil {
			return false, fmt.Errorf("train: line search: %w", err)
		}
		if r.opt.Tell(f) {
			r.m = m
			r.iter++
			return true, nil
		}
	}
}

// logLine appends a line to the log at X and reports it: a full pass's
// (pass, with the gap of the whole problem) or an inner iteration's.
func (r *run) logLine(gap float64, pass bool) Iteration {
	tr := r.tr
	it := Iteration{Iter: r.iter, Primal: r.opt.Objective(), Pass: pass, Active: len(tr.fs.Active()),
		Screened: tr.fs.Screened(), NonZero: countNonZero(r.opt.X()), Seconds: time.Since(r.t0).Seconds(),
		Evaluations: tr.obj.Stats().Evals - r.evals0}
	if pass {
		it.Gap, it.Zeroed = gap, r.zeroed
		r.passes++
		r.raiseDualBound(it)
	}
	if len(r.res.Iterations) == 0 {
		it.Warm = r.res.Warm // the start line tells how the start was found
	}
	r.res.Iterations = append(r.res.Iterations, it)
	if tr.op.Progress != nil {
		tr.op.Progress(it)
	}
	return it
}

// stopRule applies the gap, Delta and iteration-count stopping rules.
func (r *run) stopRule(it Iteration) bool {
	tr := r.tr
	op, res := tr.op, r.res
	if tr.gapReached(it.Gap, it.Primal) {
		res.Converged, res.StopReason = true, StopGap
		return true
	}
	if op.Delta > 0 && len(r.hist) > op.Period {
		prev := r.hist[len(r.hist)-1-op.Period]
		if (prev-it.Primal)/math.Max(math.Abs(it.Primal), 1e-300) < op.Delta {
			res.Converged, res.StopReason = true, StopDelta
			return true
		}
	}
	if it.Iter >= op.MaxIter {
		res.StopReason = StopMaxIter
		return true
	}
	return false
}

// gapReached reports whether a gap certifies the point with primal value
// primal: G <= Epsilon or G <= RelEpsilon * P.
func (tr *trainer) gapReached(gap, primal float64) bool {
	if tr.op.Allowed != nil {
		return false // not convex: the gap certifies nothing
	}
	return gap <= tr.op.gapTarget(primal)
}

// passLine logs a full pass at X whose own gap is gap: the line carries
// the certified gap, and r.gaps keeps the own ones (the working set's
// growth rule compares passes by their own gaps).
func (r *run) passLine(gap float64) Iteration {
	it := r.logLine(r.certified(gap), true)
	r.gaps = [2]float64{r.gaps[1], gap}
	return it
}

// certified returns the gap that certifies X: the full pass's own gap G
// (at its dual point), or P(X) - the best dual bound of the solve's earlier
// passes when that is smaller. Every full pass k proves P* >= P_k - G_k
// whatever point the solve moves to next (the dual bound belongs to the
// dual point, not to w_k), so the certified gap never grows between passes
// while the primal decreases. Screening keeps the pass's own G: the rule
// needs the gap of the dual point it uses.
func (r *run) certified(gap float64) float64 {
	if r.tr != nil && r.tr.pen.none() { // (nil: a bare run of a test)
		return gap // a gradient test, not a gap: no dual bound
	}
	if b := r.opt.Objective() - r.dualBound; b < gap {
		// A difference of two rounded values: at 0 (or rounded below it)
		// the point is as certified as the arithmetic can tell.
		return max(b, 0)
	}
	return gap
}

// raiseDualBound raises run.dualBound to the bound Primal - Gap of a full
// pass's log line (a NaN bound, from a NaN objective or gap, is ignored, so
// it cannot poison the later passes).
func (r *run) raiseDualBound(it Iteration) {
	if r.tr != nil && r.tr.pen.none() {
		return
	}
	if b := it.Primal - it.Gap; b > r.dualBound {
		r.dualBound = b
	}
}

// due reports whether a callback every `every` iterations is due at a
// full pass after iter iterations (the first pass after each multiple),
// and records it in last.
func due(iter int, last *int, every int) bool {
	if iter == 0 || iter/every == *last {
		return false
	}
	*last = iter / every
	return true
}

// monitor calls Options.Monitor at the first full pass after every
// MonitorEvery iterations with the full-size weights.
func (r *run) monitor() (bool, error) {
	tr := r.tr
	op := tr.op
	if op.Monitor == nil || !due(r.iter, &r.lastMonitor, op.MonitorEvery) {
		return false, nil
	}
	if tr.wMon == nil {
		tr.wMon = make([]float64, len(tr.m.W))
	}
	clear(tr.wMon)
	if tr.op.Prior != nil {
		copy(tr.wMon, tr.op.Prior)
	}
	scatterAdd(tr.wMon, r.opt.X(), tr.fs.Active(), tr.op.Prior != nil)
	stop, err := op.Monitor(r.res.Iterations[len(r.res.Iterations)-1], tr.wMon)
	if err != nil {
		return false, fmt.Errorf("train: monitor: %w", err)
	}
	if stop {
		r.res.StopReason = StopMonitor
	}
	return stop, nil
}

// saveCheckpoint calls Options.Checkpoint at the first full pass after
// every CheckpointEvery iterations.
func (r *run) saveCheckpoint() error {
	tr := r.tr
	if tr.op.Checkpoint == nil || !due(r.iter, &r.lastCkpt, tr.op.CheckpointEvery) {
		return nil
	}
	if err := tr.op.Checkpoint(r.checkpoint()); err != nil {
		return fmt.Errorf("train: checkpoint: %w", err)
	}
	return nil
}

// allScreened ends a solve in which screening proved every weight zero at
// the optimum: w* = 0, whose objective P(0) = L(0) it evaluates. The gap
// over the unscreened features (none) is 0.
func (r *run) allScreened(ctx context.Context, in solveInput) (solveOutput, error) {
	tr := r.tr
	tr.obj.SetActive(nil, r.policy == SolverWorkingSet)
	f, _, err := tr.obj.Loss(ctx, nil)
	if err != nil {
		return solveOutput{}, err
	}
	it := Iteration{Iter: r.iter, Primal: f, Pass: true, Screened: tr.fs.Screened(), Seconds: time.Since(r.t0).Seconds(),
		Evaluations: tr.obj.Stats().Evals - r.evals0}
	r.res.Iterations = append(r.res.Iterations, it)
	if tr.op.Progress != nil {
		tr.op.Progress(it)
	}
	r.res.Converged, r.res.StopReason = true, StopGap
	r.opt = nil
	return r.finish(in)
}

// release drops the buffers of a finished single solve (Train) that the
// result does not need, and returns the freed memory to the operating
// system (one forced collection).
func (r *run) release() {
	tr := r.tr
	r.dual, r.mix, r.mU, r.ws.sel = certificate.History{}, certificate.Mixture{}, nil, topk.Smallest{}
	r.gapScan = gapScan{}
	r.hist, r.grad = nil, nil
	tr.obj.Release()
	tr.static, tr.wMon, tr.rnorm = nil, nil, nil
	tr.scratch, tr.keepBuf = screenScratch{}, nil
	tr.wBuf, tr.mBuf, tr.dBuf, tr.pBuf = nil, nil, nil, nil
	debug.FreeOSMemory()
}

// finish completes the result with the full-size solution, written into
// in.out when the caller gave one (Train: the model's weights, so that no
// second full-size vector exists at the end), else into a new vector.
func (r *run) finish(in solveInput) (solveOutput, error) {
	tr := r.tr
	if r.opt != nil {
		if err := checkFinite(r.opt.X(), tr.fs.Active()); err != nil {
			return solveOutput{}, err
		}
	}
	var out solveOutput
	w := in.out
	if w == nil {
		w = make([]float64, len(tr.m.W))
	} else {
		// Train's last step: the run's and the objective's buffers go back
		// to the operating system before the model's weights are written,
		// so that the peak is the solve's or the result's, not their sum.
		r.release()
	}
	clear(w)
	if tr.op.Prior != nil {
		copy(w, tr.op.Prior) // w = w0 + v
	}
	if r.opt != nil {
		scatterAdd(w, r.opt.X(), tr.fs.Active(), tr.op.Prior != nil)
		if in.path && (r.policy == SolverWorkingSet || r.switched) {
			out.carry = &carriedState{st: r.opt.Snapshot(), w: slices.Clone(tr.fs.Active()), lam2: tr.pen.l2}
		}
	}
	res := r.res
	last := res.Iterations[len(res.Iterations)-1]
	res.Gap, res.Primal = last.Gap, last.Primal
	res.NonZero = countNonZero(w)
	res.ScreenedSet = slices.Clone(tr.fs.ScreenedSet()) // the feature set's bits change with the next solve
	res.Screened = tr.fs.Screened()
	res.SecondsScreening = tr.screenSecs
	res.ScreenedStatic = tr.staticCount
	res.Seconds = time.Since(r.t0).Seconds()
	res.Evaluations = tr.obj.Stats().Evals - r.evals0
	out.res, out.w = res, w
	return out, nil
}

// checkpoint returns the state needed to continue the run after the full
// pass just made.
func (r *run) checkpoint() *Checkpoint {
	tr := r.tr
	return &Checkpoint{
		lambda1: tr.pen.l1, lambda2: tr.pen.l2, dimension: len(tr.m.W), data: tr.digest.get(tr.c, &tr.op), solver: r.policy,
		active:       slices.Clone(tr.fs.Active()),
		screened:     tr.fs.Screened(),
		screenedSet:  slices.Clone(tr.fs.ScreenedSet()),
		history:      slices.Clone(r.hist),
		lastCheckGap: r.lastCheckGap,
		iterations:   slices.Clone(r.res.Iterations),
		loop: loopState{passes: r.passes, stalls: r.stalls, wsSize: r.ws.size, wsFloor: r.ws.floor,
			reached: r.ws.reached, switched: r.switched, gaps: r.gaps, reason: r.res.SolverReason, gauged: r.gauge.moved},
		dual: r.dual.Clone(), // without the pass just priced: the resumed run prices it again (solve)
		opt:  r.gauge.snapshot(r.opt),
	}
}

// check verifies that a checkpoint belongs to this run's problem.
func (tr *trainer) checkCheckpoint(ck *Checkpoint, policy Solver) error {
	if err := ck.data.check(tr.digest.get(tr.c, &tr.op)); err != nil {
		return err // first: other data or weights also change lambda under BetaRatio
	}
	if ck.dimension != len(tr.m.W) || ck.lambda1 != tr.pen.l1 || ck.lambda2 != tr.pen.l2 {
		return fmt.Errorf("train: checkpoint is for another problem (dimension %d, lambda %g/%g; this run: %d, %g/%g)",
			ck.dimension, ck.lambda1, ck.lambda2, len(tr.m.W), tr.pen.l1, tr.pen.l2)
	}
	if ck.solver != policy && !(ck.loop.switched && policy == SolverWorkingSet) {
		return fmt.Errorf("train: checkpoint is of the %s solver, this run uses %s", ck.solver, policy)
	}
	if len(ck.iterations) == 0 || len(ck.active) != len(ck.opt.X) || len(ck.active) == 0 || len(ck.screenedSet) != len(tr.fs.ScreenedSet()) {
		return errors.New("train: malformed checkpoint")
	}
	prev := int32(-1)
	for _, j := range ck.active {
		if j <= prev || int(j) >= len(tr.m.W) {
			return errors.New("train: checkpoint active set is not increasing within the model")
		}
		if !tr.fs.InSet(j) || ck.screenedSet.Has(int(j)) {
			return errors.New("train: checkpoint active set is not part of the feature set")
		}
		prev = j
	}
	return nil
}

// resume starts a solve from a checkpoint: the screened and active sets,
// an evaluation at the checkpoint's point and the optimizer's memory.
func (r *run) resume(ctx context.Context, ck *Checkpoint) error {
	tr := r.tr
	if err := tr.checkCheckpoint(ck, r.policy); err != nil {
		return err
	}
	l := ck.loop
	if l.switched {
		r.policy, r.switched = SolverFull, true
		r.res.Solver, r.res.SolverReason = SolverFull, l.reason
	}
	tr.fs.SetScreened(ck.screenedSet)
	r.u = tr.fs.Unscreened(r.u)
	tr.obj.SetActive(slices.Clone(ck.active), r.policy == SolverWorkingSet)
	r.grad = resizeFloats(r.grad, len(ck.active))
	f, m, err := tr.evaluate(ctx, ck.opt.X, r.grad)
	if err != nil {
		return err
	}
	if r.opt, err = owlqn.Resume(ck.opt, f, r.grad, tr.optSettings()); err != nil {
		return err
	}
	r.m = m
	if l.gauged {
		if err := r.gauge.step(r.opt, tr.m.Layout, tr.fs.Active(), tr.pen); err != nil {
			return err
		}
	}
	r.res.Iterations = slices.Clone(ck.iterations)
	r.hist, r.lastCheckGap = slices.Clone(ck.history), ck.lastCheckGap
	r.passes, r.stalls, r.gaps = l.passes, l.stalls, l.gaps
	r.ws.size, r.ws.floor, r.ws.reached = l.wsSize, l.wsFloor, l.reached
	r.dual = ck.dual.Clone()
	r.dual.Threads = tr.op.Threads
	for _, it := range r.res.Iterations {
		if it.Pass {
			r.raiseDualBound(it) // as logLine formed it
		}
	}
	last := r.res.Iterations[len(r.res.Iterations)-1]
	r.iter = last.Iter
	r.lastMonitor, r.lastCkpt = r.iter/tr.op.MonitorEvery, r.iter/tr.op.CheckpointEvery
	r.t0 = r.t0.Add(-time.Duration(last.Seconds * float64(time.Second)))
	return nil
}

// scatterAdd writes x into w at idx, or adds it when add (w = w0 + v).
func scatterAdd(w, x []float64, idx []int32, add bool) {
	if !add {
		sparse.Scatter(w, x, idx)
		return
	}
	for k, j := range idx {
		w[j] += x[k]
	}
}
