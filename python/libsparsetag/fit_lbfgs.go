package main

import (
	"context"
	"math"
	"time"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/dataset"
	"github.com/sparsetag/sparsetag/sparse"
	"github.com/sparsetag/sparsetag/train"
)

// lbfgsOptions maps CRFsuite's lbfgs parameters onto train.Options:
// c1, c2 are the sum form's penalties; epsilon is the relative certified
// gap (CRFsuite's is a gradient-norm test); period and delta are
// CRFsuite's rule as they are; num_memories the L-BFGS memory;
// feature.possible_states = 0 restricts states to observed pairs.
func lbfgsOptions(p params) train.Options {
	// Field by field: train groups its options (Problem, Stopping, ...)
	// and promotes their fields, which a composite literal cannot name.
	var op train.Options
	op.SumForm, op.C1, op.C2 = true, p.floats["c1"], p.floats["c2"]
	op.RelEpsilon = p.floats["epsilon"]
	op.Delta, op.Period = p.floats["delta"], p.ints["period"]
	op.MaxIter = p.ints["max_iterations"]
	op.Memory = p.ints["num_memories"]
	op.Threads = p.ints["threads"]
	op.ObservedPairs = p.ints["feature.possible_states"] == 0
	return op
}

// minFreq maps feature.minfreq (CRFsuite drops features seen fewer
// times) onto the attribute count below which lbfgs drops attributes.
func minFreq(p params) int {
	f := p.floats["feature.minfreq"]
	if f <= 1 {
		return 0
	}
	return int(math.Ceil(f))
}

// fitLBFGS trains m on c with the certified elastic net, logging one
// CRFsuite block per iteration (with the gap when a full pass priced it)
// and the holdout evaluation of hold at full passes and at the end.
func (j *job) fitLBFGS(p params, m *chain.Model, c *sparse.Corpus, hold []dataset.Example, t0 time.Time) (outcome, error) {
	op := lbfgsOptions(p)
	if op.C1 > 0 {
		j.printf("Orthant-Wise Limited-memory Quasi-Newton (OWL-QN) optimization\n")
	} else {
		j.printf("L-BFGS optimization\n")
	}
	j.printf("c1: %f\nc2: %f\nnum_memories: %d\nmax_iterations: %d\nepsilon: %f\nstop: %d\ndelta: %f\nlinesearch: %s\nlinesearch.max_iterations: %d\nthreads: %d\n\n",
		op.C1, op.C2, op.Memory, op.MaxIter, p.floats["epsilon"], op.Period, op.Delta, p.strings["linesearch"], p.ints["max_linesearch"], op.Threads)
	n := float64(c.Len())
	b := &blocks{j: j}
	op.Progress = lbfgsProgress(b, n)
	var evaluate func([]float64) error
	if len(hold) > 0 {
		var err error
		if evaluate, err = j.holdoutScorer(m, hold); err != nil {
			return outcome{}, err
		}
		op.Monitor = func(_ train.Iteration, w []float64) (bool, error) { return false, evaluate(w) }
		op.MonitorEvery = 1
	}
	op.Interrupt = j.intr
	res, err := train.Train(context.Background(), m, c, op)
	if err != nil {
		return outcome{}, err
	}
	if evaluate != nil && b.open {
		// The model trained, evaluated in the last iteration's block (the
		// monitor runs at full passes only).
		if err := evaluate(m.W); err != nil {
			return outcome{}, err
		}
	}
	b.end()
	for _, w := range res.Warnings {
		j.printf("Warning: %s\n", w)
	}
	interrupted := res.StopReason == train.StopInterrupt
	j.printf("%s after %d iterations (stop: %s); certified gap %.6e (relative %.3e)\n",
		map[bool]string{true: "Interrupted", false: "Finished"}[interrupted], res.NumIterations(), res.StopReason, res.Gap, res.Gap/math.Max(math.Abs(res.Primal), 1e-300))
	j.printf("Total seconds required for training: %.3f\n\n", time.Since(t0).Seconds())
	j.info["stop_reason"] = string(res.StopReason)
	j.info["gap"] = res.Gap
	j.info["objective"] = res.Primal * n
	return outcome{iterations: res.NumIterations(), interrupted: interrupted}, nil
}

// lbfgsProgress returns the hook that logs an iteration's block: the
// sum-form loss (n sequences), the active features, the gap when the
// iteration priced it (a second call for the same iteration adds it).
func lbfgsProgress(b *blocks, n float64) func(train.Iteration) {
	var lastIter int
	var lastSecs float64
	return func(it train.Iteration) {
		if it.Iter == 0 || it.Iter == lastIter {
			if b.open && it.Pass {
				b.j.printf("Duality gap (certified, average form): %.6e\n", it.Gap)
			}
			return
		}
		b.begin("***** Iteration #%d *****\n", it.Iter)
		b.j.printf("Loss: %f\n", it.Primal*n)
		b.j.printf("Active features: %d\n", it.NonZero)
		if it.Pass {
			b.j.printf("Duality gap (certified, average form): %.6e\n", it.Gap)
		}
		b.j.printf("Seconds required for this iteration: %.3f\n", it.Seconds-lastSecs)
		lastIter, lastSecs = it.Iter, it.Seconds
	}
}
