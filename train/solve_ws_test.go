package train

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWorkingSetMatchesFull: the working-set solver reaches the optimum of
// the whole problem: its model is within the distance the two final gaps
// allow of a tight full-solver model, on chains, real values, pair
// features and T = 1, at several penalties, and nothing non-zero in the
// full solution was screened.
func TestWorkingSetMatchesFull(t *testing.T) {
	t.Run("fused", func(t *testing.T) { testWorkingSetMatchesFull(t, keepWorkingSet) })
	// The column pass and the per-reference shard buffers.
	t.Run("columns", func(t *testing.T) {
		testWorkingSetMatchesFull(t, func(op Options) Options {
			return withTuning(keepWorkingSet(op), func(tu *tuning) { tu.fusedBudget = -1 })
		})
	})
}

// testWorkingSetMatchesFull runs TestWorkingSetMatchesFull with the
// tuning that tune gives its options.
func testWorkingSetMatchesFull(t *testing.T, tune func(Options) Options) {
	for _, tc := range []struct {
		name       string
		maxT, pair int
		real       bool
	}{{"chain", 6, 0, false}, {"chain-real", 4, 0, true}, {"pairs", 5, 3, false}, {"multiclass", 1, 0, true}} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(19, 20))
			c := randomCorpus(rng, 80, tc.maxT, 30, tc.pair, 3, tc.real)
			for _, ratio := range []float64{0.5, 0.1, 0.01, 0.001} {
				tight, rt := trainTiny(t, c, 3, 30, tune(Options{Problem: Problem{BetaRatio: ratio}, Stopping: Stopping{Epsilon: 1e-13, MaxIter: 20000}, Method: Method{Screen: ScreenNone, Solver: SolverFull}}))
				ws, rw := trainTiny(t, c, 3, 30, tune(Options{Problem: Problem{BetaRatio: ratio}, Stopping: Stopping{Epsilon: 1e-10, MaxIter: 20000}, Method: Method{Solver: SolverWorkingSet}}))
				require.True(t, rt.Converged, "ratio %g: full solver: %s", ratio, rt.StopReason)
				require.True(t, rw.Converged, "ratio %g: working set: %s after %d passes, gap %g", ratio, rw.StopReason, len(rw.Iterations), rw.Gap)
				assert.Equal(t, SolverWorkingSet, rw.Solver)
				bound := math.Sqrt(2*rw.Gap/(rw.Alpha*rw.Beta)) + math.Sqrt(2*rt.Gap/(rt.Alpha*rt.Beta))
				dist := 0.0
				for j := range tight.W {
					d := tight.W[j] - ws.W[j]
					dist += d * d
					if rw.ScreenedSet.Has(j) {
						assert.Zero(t, tight.W[j], "ratio %g: feature %d screened but non-zero", ratio, j)
					}
				}
				assert.LessOrEqual(t, math.Sqrt(dist), bound, "ratio %g", ratio)
				t.Logf("ratio %g: passes %d, inner %d, full iters %d, nonzero %d/%d, screened %d (static %d)",
					ratio, len(rw.Iterations), rw.Iterations[len(rw.Iterations)-1].Iter, len(rt.Iterations), rw.NonZero, rw.Dimension, rw.Screened, rw.ScreenedStatic)
			}
		})
	}
}

// TestWorkingSetDeterministicAcrossThreads: the working-set solver gives
// bit-identical models for any number of threads.
func TestWorkingSetDeterministicAcrossThreads(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	c := randomCorpus(rng, 150, 6, 40, 2, 4, false)
	var ref []float64
	for _, threads := range []int{1, 2, 8} {
		m, res := trainTiny(t, c, 4, 40, keepWorkingSet(Options{Problem: Problem{SumForm: true, C1: 0.5, C2: 0.5}, Stopping: Stopping{MaxIter: 300}, Method: Method{Solver: SolverWorkingSet}, Resources: Resources{Threads: threads}}))
		require.Equal(t, SolverWorkingSet, res.Solver)
		if ref == nil {
			ref = m.W
			continue
		}
		for j := range ref {
			require.Equal(t, math.Float64bits(ref[j]), math.Float64bits(m.W[j]), "threads=%d: weight %d", threads, j)
		}
	}
}

// TestNumIterations: the log has a line for every OWL-QN iteration of
// both policies (Iter runs through 0..NumIterations, repeated only by a
// full pass at the point of the line before it), and the working set makes
// fewer full passes than iterations.
func TestNumIterations(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	c := randomCorpus(rng, 80, 6, 30, 0, 3, false)
	for _, s := range []Solver{SolverFull, SolverWorkingSet} {
		var lines []Iteration
		_, res := trainTiny(t, c, 3, 30, keepWorkingSet(Options{
			Problem:  Problem{BetaRatio: 0.01},
			Stopping: Stopping{Epsilon: 1e-10, MaxIter: 20000},
			Method:   Method{Solver: s},
			Hooks:    Hooks{Progress: func(it Iteration) { lines = append(lines, it) }},
		}))
		require.Equal(t, s, res.Solver)
		require.Equal(t, lines, res.Iterations, "%s: Progress sees every line", s)
		n := res.NumIterations()
		assert.Positive(t, n, "%s", s)
		next := 0
		for k, it := range lines {
			switch {
			case it.Iter == next:
				next++
			case k > 0 && it.Iter == lines[k-1].Iter && it.Pass:
			default:
				t.Fatalf("%s: line %d has Iter %d, want %d (or a full pass repeating %d)", s, k, it.Iter, next, lines[max(k-1, 0)].Iter)
			}
		}
		assert.Equal(t, n+1, next, "%s: every iteration has a line", s)
		assert.True(t, lines[len(lines)-1].Pass, "%s: the last line is a full pass", s)
		if s == SolverWorkingSet {
			assert.Less(t, res.NumPasses(), n, "fewer full passes than iterations")
		} else {
			assert.Equal(t, n, res.NumPasses(), "the full policy prices every iteration")
		}
	}
}
