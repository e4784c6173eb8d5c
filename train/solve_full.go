package train

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/sparsetag/sparsetag/sparse"
	"github.com/sparsetag/sparsetag/train/internal/owlqn"
)

// fullRun is the bookkeeping of one full-space solve.
type fullRun struct {
	res          *Result
	t0           time.Time
	hist         []float64 // objective values, for the Delta rule
	lastCheckGap float64   // gap at the last screening check
}

// solveFull is the paper's Algorithm 1: OWL-QN on every unscreened feature,
// with the gap and the screening rule evaluated at every iteration from the
// same pass. The loop is: check (gap, screen, log, stopping rules,
// checkpoint, monitor), then one OWL-QN step.
func (tr *trainer) solveFull(ctx context.Context, init []float64, resume *Checkpoint) (*Result, []float64, error) {
	fs := tr.fs
	run := &fullRun{res: tr.newResult(), t0: time.Now(), lastCheckGap: math.Inf(1)}
	active := fs.unscreened(nil)
	if len(active) == 0 {
		return tr.zeroSolution(run.res)
	}
	fs.SetActive(active)
	x := make([]float64, len(active))
	if init != nil {
		sparse.Gather(x, init, active)
	}
	opt, err := owlqn.New(x, tr.evalFunc(ctx), tr.optSettings())
	if err != nil {
		return nil, nil, err
	}
	tr.opt = opt
	defer func() { opt.Close(); tr.opt = nil }()
	start, check := 0, true
	if resume != nil {
		if err := tr.restore(resume, run); err != nil {
			return nil, nil, err
		}
		// The checkpoint was taken right before this iteration's step.
		start, check = len(run.res.Iterations)-1, false
	}
	for iter := start; ; iter++ {
		if check {
			stop, err := tr.fullCheck(ctx, run, iter)
			if err != nil || stop {
				if err != nil {
					return nil, nil, err
				}
				break
			}
		}
		check = true
		if err := opt.Iterate(); err != nil {
			if !errors.Is(err, owlqn.ErrLineSearch) {
				return nil, nil, err
			}
			if err := tr.lineSearchStop(run, iter+1); err != nil {
				return nil, nil, err
			}
			break
		}
		if tr.op.Step != nil {
			tr.op.Step(iter+1, opt.Objective())
		}
	}
	// The solution: full size, exact zeros outside the active set.
	w := make([]float64, len(tr.m.W))
	sparse.Scatter(w, opt.X(), fs.active)
	if err := tr.finish(run.res, w); err != nil {
		return nil, nil, err
	}
	run.res.Seconds = time.Since(run.t0).Seconds()
	return run.res, w, nil
}

// zeroSolution is the result when every feature is screened: the zero
// vector is optimal.
func (tr *trainer) zeroSolution(res *Result) (*Result, []float64, error) {
	res.Iterations = []Iteration{{Screened: tr.fs.Screened()}}
	res.Converged, res.StopReason = true, "gap"
	w := make([]float64, len(tr.m.W))
	res.ScreenedSet, res.Screened = tr.fs.screened, tr.fs.Screened()
	return res, w, nil
}

// fullCheck is the part of a full-solver iteration before the step: the
// gap at the current point, screening with it, the log line, the stopping
// rules, the checkpoint and the monitor. It reports whether to stop.
func (tr *trainer) fullCheck(ctx context.Context, run *fullRun, iter int) (bool, error) {
	op, opt := tr.op, tr.opt
	gap := fyGap(opt.X(), tr.obj.M, tr.lam1, tr.lam2)
	// Screening at the current point: m and the gap come from the same
	// pass (section 5 of the design note).
	if tr.rnorm != nil && tr.lam1 > 0 && !tr.gapReached(gap, opt.Objective()) && (op.Gamma == 0 || gap < op.Gamma*run.lastCheckGap) {
		removed, err := tr.screenActive(gap)
		if err != nil {
			return false, err
		}
		run.lastCheckGap = gap
		if removed > 0 && opt.Stale() {
			if err := opt.Reevaluate(); err != nil {
				return false, err
			}
		}
		if removed > 0 {
			gap = fyGap(opt.X(), tr.obj.M, tr.lam1, tr.lam2)
		}
	}
	it := tr.logIteration(run, iter, opt.Objective(), gap)
	run.hist = append(run.hist, it.Primal)
	if stop := tr.stopRule(run, it); stop {
		return true, nil
	}
	if err := ctx.Err(); err != nil {
		return false, err
	}
	if op.Checkpoint != nil && iter > 0 && iter%op.CheckpointEvery == 0 {
		if err := op.Checkpoint(tr.checkpoint(run)); err != nil {
			return false, fmt.Errorf("train: checkpoint: %w", err)
		}
	}
	return tr.monitor(run, iter, opt.X())
}

// logIteration appends one line to the log and reports it.
func (tr *trainer) logIteration(run *fullRun, iter int, primal, gap float64) Iteration {
	it := Iteration{Iter: iter, Primal: primal, Gap: gap, Active: len(tr.fs.active), Screened: tr.fs.Screened(),
		NonZero: countNonZero(tr.opt.X()), Seconds: time.Since(run.t0).Seconds()}
	run.res.Iterations = append(run.res.Iterations, it)
	if tr.op.Progress != nil {
		tr.op.Progress(it)
	}
	return it
}

// stopRule applies the gap, Delta and iteration-count stopping rules.
func (tr *trainer) stopRule(run *fullRun, it Iteration) bool {
	op, res := tr.op, run.res
	if tr.gapReached(it.Gap, it.Primal) {
		res.Converged, res.StopReason = true, "gap"
		return true
	}
	if op.Delta > 0 && len(run.hist) > op.Period {
		prev := run.hist[len(run.hist)-1-op.Period]
		if (prev-it.Primal)/math.Max(math.Abs(it.Primal), 1e-300) < op.Delta {
			res.Converged, res.StopReason = true, "delta"
			return true
		}
	}
	if it.Iter >= op.MaxIter {
		res.StopReason = "max-iter"
		return true
	}
	return false
}

// gapReached reports whether a gap certifies the point with primal value
// primal: G <= Epsilon or G <= RelEpsilon * P.
func (tr *trainer) gapReached(gap, primal float64) bool {
	return gap <= tr.op.Epsilon || gap <= tr.op.RelEpsilon*math.Abs(primal)
}

// monitor calls Options.Monitor every MonitorEvery iterations with the
// full-size weights (x over the active set).
func (tr *trainer) monitor(run *fullRun, iter int, x []float64) (bool, error) {
	op := tr.op
	if op.Monitor == nil || iter == 0 || iter%op.MonitorEvery != 0 {
		return false, nil
	}
	if tr.wMon == nil {
		tr.wMon = make([]float64, len(tr.m.W))
	}
	clear(tr.wMon)
	sparse.Scatter(tr.wMon, x, tr.fs.active)
	stop, err := op.Monitor(run.res.Iterations[len(run.res.Iterations)-1], tr.wMon)
	if err != nil {
		return false, fmt.Errorf("train: monitor: %w", err)
	}
	if stop {
		run.res.StopReason = "monitor"
	}
	return stop, nil
}

// lineSearchStop ends a solve whose line search found no decrease: it keeps
// the last valid point and re-evaluates so that m and the gap belong to it.
func (tr *trainer) lineSearchStop(run *fullRun, iter int) error {
	if err := tr.opt.Reevaluate(); err != nil {
		return err
	}
	run.res.StopReason = "line-search"
	tr.logIteration(run, iter, tr.opt.Objective(), fyGap(tr.opt.X(), tr.obj.M, tr.lam1, tr.lam2))
	return nil
}
