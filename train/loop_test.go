package train

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sparsetag/sparsetag/chain"
)

// TestPathResultsKeepTheirScreenedSets: every Result of a path keeps the
// screened set of its own beta after Path returns (they used to share the
// feature set's bits, so all read as the last beta's).
func TestPathResultsKeepTheirScreenedSets(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	c := randomCorpus(rng, 120, 5, 40, 0, 3, false)
	for _, s := range []Solver{SolverWorkingSet, SolverFull} {
		m, err := chain.NewModel(labelNames(3), 40, 0, true, nil)
		require.NoError(t, err)
		res, err := Path(context.Background(), m, c, Options{Stopping: Stopping{Epsilon: 1e-8}, Method: Method{Solver: s}}, PathOptions{K: 5, MinRatio: 0.05}, nil)
		require.NoError(t, err)
		require.Len(t, res, 5)
		distinct := map[int]bool{}
		for k, r := range res {
			require.NotNil(t, r.ScreenedSet, "%s beta %d", s, k)
			assert.Equal(t, r.Screened, r.ScreenedSet.Count(), "%s beta %d: ScreenedSet read after Path returned", s, k)
			distinct[r.Screened] = true
		}
		assert.Greater(t, len(distinct), 1, "%s: every beta screened the same number of features; the test needs differing sets", s)
	}
}

// TestAllScreenedEvaluatesZero: when the static rule screens every
// feature before the first pass, the solution is w = 0 and the reported
// objective is P(0): with zero weights every label sequence of length T is
// equally likely, so NLL_i = T_i log L and P(0) = (1/n) sum_i T_i log L.
// Both policies end the same way.
func TestAllScreenedEvaluatesZero(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 34))
	const L = 4
	c := randomCorpus(rng, 60, 6, 10, 0, L, false)
	want := 0.0
	for i := 0; i < c.Len(); i++ {
		_, T := c.Span(i)
		want += float64(T) * math.Log(L)
	}
	want /= float64(c.Len())
	for _, s := range []Solver{SolverWorkingSet, SolverFull} {
		m, res := trainTiny(t, c, L, 10, Options{Problem: Problem{SumForm: true, C1: 1e9, C2: 1}, Method: Method{Solver: s}})
		require.Equal(t, res.Dimension, res.Screened, "%s: the test needs every feature screened", s)
		assert.Equal(t, 0, m.NonZero(), "%s", s)
		assert.InDelta(t, want, res.Primal, 1e-12*want, "%s: P(0)", s)
		assert.Zero(t, res.Gap, "%s", s)
		assert.True(t, res.Converged, "%s", s)
		assert.Equal(t, StopGap, res.StopReason, "%s", s)
		assert.Zero(t, res.NumIterations(), "%s", s)
	}
}

// TestLogNeverRisesUnexplained: the objective of the log is non-increasing
// from line to line (every line is an accepted OWL-QN point or a full pass
// at the same point), except at a full pass where screening set non-zero
// weights to zero, which the line says (Zeroed). The cases include warm
// starts from a denser solution (a smaller penalty).
func TestLogNeverRisesUnexplained(t *testing.T) {
	zeroed := 0
	for seed := uint64(0); seed < 6; seed++ {
		rng := rand.New(rand.NewPCG(40+seed, 41))
		c := randomCorpus(rng, 100, 6, 30, 0, 3, seed%2 == 1)
		for _, s := range []Solver{SolverWorkingSet, SolverFull} {
			dense, _ := trainTiny(t, c, 3, 30, Options{Problem: Problem{BetaRatio: 0.005}, Stopping: Stopping{Epsilon: 1e-9}, Method: Method{Solver: s}})
			for _, ratio := range []float64{0.3, 0.05, 0.01} {
				op := Options{Problem: Problem{BetaRatio: ratio}, Stopping: Stopping{Epsilon: 1e-9, MaxIter: 5000}, Method: Method{Solver: s}}
				if seed%3 != 0 {
					op.Init = dense.W
				}
				_, res := trainTiny(t, c, 3, 30, op)
				its := res.Iterations
				for k := 1; k < len(its); k++ {
					if its[k].Zeroed > 0 {
						require.True(t, its[k].Pass, "%s: only full passes screen", s)
						zeroed++
						continue
					}
					require.LessOrEqual(t, its[k].Primal, its[k-1].Primal, "%s seed %d ratio %g: line %d (iter %d) rose", s, seed, ratio, k, its[k].Iter)
				}
			}
		}
	}
	t.Logf("%d full passes zeroed weights", zeroed)
}

// TestInterruptEndsGracefully: closing Options.Interrupt during training
// ends it at the next full pass with StopInterrupt, no error, the model at
// the point reached (finite, with the gap priced there), and a checkpoint
// when one was asked for; for both policies.
func TestInterruptEndsGracefully(t *testing.T) {
	rng := rand.New(rand.NewPCG(35, 36))
	c := randomCorpus(rng, 80, 6, 30, 0, 3, false)
	for _, s := range []Solver{SolverWorkingSet, SolverFull} {
		stop := make(chan struct{})
		var ck *Checkpoint
		op := Options{
			Problem:  Problem{BetaRatio: 0.01},
			Stopping: Stopping{Epsilon: 1e-12, MaxIter: 10000},
			Method:   Method{Solver: s},
			Hooks:    Hooks{Interrupt: stop, Checkpoint: func(c *Checkpoint) error { ck = c; return nil }, CheckpointEvery: 1000},
		}
		closed := false
		op.Progress = func(it Iteration) {
			if it.Iter >= 5 && !closed {
				close(stop) // the signal arrives during training
				closed = true
			}
		}
		m, res := trainTiny(t, c, 3, 30, keepWorkingSet(op))
		require.Equal(t, StopInterrupt, res.StopReason, "%s", s)
		last := res.Iterations[len(res.Iterations)-1]
		assert.True(t, last.Pass, "%s: the last line is a full pass with the gap", s)
		assert.Greater(t, res.Gap, 0.0, "%s", s)
		assert.GreaterOrEqual(t, res.NumIterations(), 5, "%s", s)
		assert.Less(t, res.NumIterations(), 60, "%s: training went on after the interrupt", s)
		assert.Positive(t, m.NonZero(), "%s: the model holds the point reached", s)
		require.NotNil(t, ck, "%s: no checkpoint at the interrupt", s)
		assert.Equal(t, res.Iterations, ck.iterations, "%s", s)
	}
}

// TestInnerStalled: an inner solve hands over to a full pass once its last
// stallWindow iterations gained less than a quarter of the stopping rule's
// gap (absolute Epsilon or RelEpsilon of the objective), not before
// stallWindow inner iterations, and not while it still gains.
func TestInnerStalled(t *testing.T) {
	tr := &trainer{op: Options{Stopping: Stopping{RelEpsilon: 1e-3}}}
	hist := func(gains ...float64) *run {
		r := &run{tr: tr, hist: []float64{2.5}}
		for _, g := range gains {
			r.hist = append(r.hist, r.hist[len(r.hist)-1]-g)
		}
		return r
	}
	// 1e-3 x 2.5 = 2.5e-3: a quarter is 6.25e-4 over 5 iterations.
	slow := hist(1e-4, 1e-4, 1e-4, 1e-4, 1e-4) // 5e-4 gained
	fast := hist(2e-4, 2e-4, 2e-4, 2e-4, 2e-4) // 1e-3 gained
	assert.True(t, slow.innerStalled(stallWindow-1))
	assert.False(t, fast.innerStalled(stallWindow-1))
	assert.False(t, slow.innerStalled(stallWindow-2), "before stallWindow inner iterations")
	tr.op = Options{Stopping: Stopping{Epsilon: 1e-2}} // absolute: a quarter is 2.5e-3
	assert.True(t, fast.innerStalled(stallWindow-1))
}

// TestPassesCannotCertify: the certified gaps of the last two full passes
// (inner lines between them ignored), extrapolated at their geometric rate
// over holdWindow iterations, decide whether the next inner solve holds
// off its hand-over: it does while the extrapolation stays above the
// target, not when it reaches the target, not with fewer than two passes
// or two at one iteration, and not on a gap that is 0, infinite or NaN or
// an extrapolation that overflows.
func TestPassesCannotCertify(t *testing.T) {
	tr := &trainer{op: Options{Stopping: Stopping{Epsilon: 1e-4}}}
	log := func(lines ...Iteration) *run { return &run{tr: tr, res: &Result{Iterations: lines}} }
	pass := func(iter int, gap float64) Iteration {
		return Iteration{Iter: iter, Pass: true, Gap: gap, Primal: 2.5}
	}
	inner := Iteration{Iter: 12, Primal: 2.5}
	// Halving every 5 iterations: 5e-3 / 8 = 6.25e-4 after 15, above 1e-4.
	assert.True(t, log(pass(0, 2), pass(10, 1e-2), inner, pass(15, 5e-3)).passesCannotCertify())
	// 1.5e-4 x 0.75^3 = 6.3e-5 after 15: a pass may certify.
	assert.False(t, log(pass(10, 2e-4), inner, pass(15, 1.5e-4)).passesCannotCertify())
	// Slow progress near the target: 1.1e-4 x (1.1/1.2)^3 = 8.5e-5.
	assert.False(t, log(pass(10, 1.2e-4), pass(15, 1.1e-4)).passesCannotCertify())
	// The same rate farther away holds; so does a certificate that grew.
	assert.True(t, log(pass(10, 1.2e-3), pass(15, 1.1e-3)).passesCannotCertify())
	assert.True(t, log(pass(10, 1e-3), pass(15, 2e-3)).passesCannotCertify())
	assert.False(t, log(inner, pass(15, 1e-2)).passesCannotCertify(), "one pass")
	assert.False(t, log(pass(10, 0), pass(15, 1e-2)).passesCannotCertify(), "earlier gap 0")
	assert.False(t, log(pass(10, math.NaN()), pass(15, 1e-2)).passesCannotCertify(), "NaN gap")
	assert.False(t, log(pass(10, math.Inf(1)), pass(15, 1e-2)).passesCannotCertify(), "infinite earlier gap")
	assert.False(t, log(pass(10, 1e-2), pass(15, math.Inf(1))).passesCannotCertify(), "infinite gap")
	assert.False(t, log(pass(10, 1e-200), pass(15, 1e200)).passesCannotCertify(), "overflowing extrapolation")
	assert.False(t, log(pass(15, 2e-2), pass(15, 1e-2)).passesCannotCertify(), "two passes at one iteration")
	// Relative target: 1e-3 x 2.5 = 2.5e-3.
	tr.op = Options{Stopping: Stopping{RelEpsilon: 1e-3}}
	assert.False(t, log(pass(10, 1e-2), pass(15, 5e-3)).passesCannotCertify())
	assert.True(t, log(pass(10, 4e-2), pass(15, 3e-2)).passesCannotCertify())
}
