// Package progress displays the progress of training (train.Options.Progress):
// a live progress bar on a terminal, one log line per iteration otherwise,
// with an estimate of the remaining time from the duality gap, and the
// summary of a finished run (Summary); and composes progress callbacks
// (Chain, HeapProfiler).
package progress

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/sparsetag/sparsetag/train"
	"golang.org/x/term"
)

// progressSteps is the resolution of the progress bar.
const progressSteps = 1000

// New returns the training progress callback for train.Options.Progress
// and a function that finishes the display (call it once training returns,
// successfully or not). maxIter, epsilon and relEpsilon are the run's
// train.Options.MaxIter, Epsilon and RelEpsilon (0: the trainer's
// defaults): the estimate of the remaining time aims at the run's own
// stopping rule.
//
// When w is a terminal, the display is a live progress bar (the
// schollz/progressbar library) whose fill is the elapsed fraction of the
// estimated total time (the iteration count's fraction of maxIter while
// there is no estimate), with the iteration, objective, gap, active and
// non-zero weights, the elapsed time and the estimated remaining time.
// Otherwise it writes one plain log line per iteration. With quiet both
// functions do nothing. See estimator for how the remaining time is
// estimated and printed.
func New(w io.Writer, quiet bool, maxIter int, epsilon, relEpsilon float64) (func(train.Iteration), func()) {
	if quiet {
		return func(train.Iteration) {}, func() {}
	}
	return NewTo(w, isTerminal(w), maxIter, epsilon, relEpsilon)
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

func formatSeconds(s float64) string {
	d := time.Duration(s * float64(time.Second))
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", s)
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(s)/60, int(s)%60)
	}
	return fmt.Sprintf("%dh%02dm", int(s)/3600, int(s)%3600/60)
}

// gapText formats the gap of a full pass's line, "-" on the lines of inner
// iterations (no gap is computed there).
func gapText(it train.Iteration, format string) string {
	if !it.Pass {
		return "-"
	}
	return fmt.Sprintf(format, it.Gap)
}

// zeroedText notes a full pass whose screening set non-zero weights to
// zero (the objective may rise there).
func zeroedText(it train.Iteration) string {
	if it.Zeroed == 0 {
		return ""
	}
	return fmt.Sprintf("  (screening zeroed %d weights)", it.Zeroed)
}

// NewTo is New with the terminal test done by the caller.
func NewTo(w io.Writer, tty bool, maxIter int, epsilon, relEpsilon float64) (func(train.Iteration), func()) {
	st := newEstimator(maxIter, epsilon, relEpsilon)
	eta := func(it train.Iteration) string {
		st.add(it)
		return st.remaining(it).String()
	}
	if !tty {
		progress := func(it train.Iteration) {
			fmt.Fprintf(w, "iter %4d  objective %.8g  gap %s  active %d  nonzero %d  screened %d  %.1fs  eta %s%s\n",
				it.Iter, it.Primal, gapText(it, "%.3e"), it.Active, it.NonZero, it.Screened, it.Seconds, eta(it), zeroedText(it))
		}
		return progress, func() {}
	}
	bar := progressbar.NewOptions(progressSteps,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetWidth(20),
		progressbar.OptionSetPredictTime(false), // our own estimate, from the gap
		progressbar.OptionSetElapsedTime(false),
		progressbar.OptionShowDescriptionAtLineEnd(),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionSetDescription("training"),
	)
	var last train.Iteration
	describe := func(it train.Iteration, eta string) {
		bar.Describe(fmt.Sprintf("iter %d  obj %.6g  gap %s  active %d  nonzero %d  %s  %s",
			it.Iter, it.Primal, gapText(it, "%.2e"), it.Active, it.NonZero, formatSeconds(it.Seconds), eta))
	}
	progress := func(it train.Iteration) {
		last = it
		describe(it, "eta "+eta(it))
		// Keep the bar below its maximum: reaching it would finish it.
		bar.Set(min(int(st.fraction(it)*progressSteps), progressSteps-1))
	}
	finish := func() {
		describe(last, "done")
		bar.Set(progressSteps) // renders the final state and finishes
		fmt.Fprintln(w)
	}
	return progress, finish
}

// Chain returns a progress function that calls f after every iteration,
// then next (if any).
func Chain(next func(train.Iteration), f func()) func(train.Iteration) {
	return func(it train.Iteration) {
		f()
		if next != nil {
			next(it)
		}
	}
}

// Summary writes the summary of a finished run to w: why and after how
// many iterations it stopped, its gap, its sizes and timings, and the
// solver that ran when it is not the one requested (and why).
func Summary(w io.Writer, res *train.Result) {
	fmt.Fprintf(w, "stopped (%s) after %d iterations: gap %.3e, %d non-zero of %d features, %d screened, beta %.4g (beta_max %.4g), %.1fs (screening %.2fs)\n",
		res.StopReason, res.NumIterations(), res.Gap, res.NonZero, res.Dimension, res.Screened, res.Beta, res.BetaMax, res.Seconds, res.SecondsScreening)
	if res.SolverReason != "requested" {
		fmt.Fprintf(w, "solver: %s (%s)\n", res.Solver, res.SolverReason)
	}
}

// HeapProfiler returns a function that writes the live heap to path when
// it is larger than at any earlier call: the profile of the iteration with
// the most memory in use.
func HeapProfiler(path string) func() {
	var peak uint64
	return func() {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		if ms.HeapAlloc <= peak {
			return
		}
		peak = ms.HeapAlloc
		if f, err := os.Create(path); err == nil {
			_ = pprof.WriteHeapProfile(f)
			f.Close()
		}
	}
}
