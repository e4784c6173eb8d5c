package train

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPathBetas(t *testing.T) {
	b := PathBetas(2, 3, 0.25)
	want := []float64{2, 1, 0.5} // 2 * 0.25^(i/2)
	approxEqual(t, "betas", want, b, 1e-15, 1e-15)
}

// TestPathMatchesIndependentSolves checks that warm-started, screened path
// solutions equal cold unscreened solves at the same beta, and that no
// feature that is non-zero in the tight solution was ever screened.
func TestPathMatchesIndependentSolves(t *testing.T) {
	for _, tc := range []struct {
		name   string
		maxT   int
		rule   ScreenRule
		solver Solver
	}{{"chain-pinsker", 5, ScreenPinsker, SolverFull}, {"chain-working-set", 5, ScreenPinsker, SolverWorkingSet},
		{"multiclass-working-set", 1, ScreenPinsker, SolverWorkingSet},
		{"multiclass-paper", 1, ScreenPaper, SolverFull}, {"multiclass-both", 1, ScreenBoth, SolverFull}} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(31, 32))
			c := randomCorpus(rng, 60, tc.maxT, 8, 0, 3, true)
			m, _ := chain.NewModel(labelNames(3), 8, 0, true, nil)
			const eps = 1e-10
			var screenedAny bool
			_, err := Path(context.Background(), m, c, keepWorkingSet(Options{Stopping: Stopping{Epsilon: eps}, Method: Method{Screen: tc.rule, Solver: tc.solver}}), PathOptions{K: 8, MinRatio: 0.01},
				func(k int, res *Result, w []float64) error {
					ref, _ := chain.NewModel(labelNames(3), 8, 0, true, nil)
					rr, err := Train(context.Background(), ref, c, keepWorkingSet(Options{Problem: Problem{Beta: res.Beta}, Stopping: Stopping{Epsilon: 1e-13, MaxIter: 5000}, Method: Method{Screen: ScreenNone}}))
					if err != nil {
						return err
					}
					bound := math.Sqrt(2*res.Gap/(res.Alpha*res.Beta)) + math.Sqrt(2*rr.Gap/(rr.Alpha*rr.Beta))
					d := 0.0
					for j := range w {
						d += (w[j] - ref.W[j]) * (w[j] - ref.W[j])
						if ref.W[j] != 0 && res.ScreenedSet != nil && res.ScreenedSet.Has(j) {
							t.Errorf("beta %d: feature %d is %g in the tight solution but was screened", k, j, ref.W[j])
						}
					}
					if math.Sqrt(d) > bound {
						t.Errorf("beta %d: distance %g > bound %g", k, math.Sqrt(d), bound)
					}
					if res.Solver != tc.solver {
						t.Errorf("beta %d: solver %s, want %s", k, res.Solver, tc.solver)
					}
					if res.Screened > 0 {
						screenedAny = true
					}
					return nil
				})
			if err != nil {
				t.Fatal(err)
			}
			if !screenedAny {
				t.Error("nothing was screened along the path")
			}
		})
	}
}

// TestPathSelect: with a Score, the path stops once the score has been
// below its best for Patience betas, reports every score, and leaves the
// best-scoring solution in the model.
func TestPathSelect(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	c := randomCorpus(rng, 60, 5, 8, 0, 3, true)
	m, _ := chain.NewModel(labelNames(3), 8, 0, true, nil)
	// A score that peaks at the 4th beta: minus the distance of the number
	// of non-zero weights to that solution's.
	var sols [][]float64
	var nnz []int
	_, err := Path(context.Background(), m, c, Options{Stopping: Stopping{Epsilon: 1e-8}, Method: Method{Solver: SolverWorkingSet}}, PathOptions{K: 10, MinRatio: 0.001}, func(_ int, res *Result, w []float64) error {
		sols, nnz = append(sols, slices.Clone(w)), append(nnz, res.NonZero)
		return nil
	})
	require.NoError(t, err)
	require.Len(t, sols, 10)
	const peak = 3
	score := func(w []float64) (float64, error) {
		return -math.Abs(float64(countNonZero(w) - nnz[peak])), nil
	}
	m2, _ := chain.NewModel(labelNames(3), 8, 0, true, nil)
	res, err := Path(context.Background(), m2, c, Options{Stopping: Stopping{Epsilon: 1e-8}, Method: Method{Solver: SolverWorkingSet}}, PathOptions{K: 10, MinRatio: 0.001, Score: score, Patience: 2}, nil)
	require.NoError(t, err)
	best := Selected(res)
	for _, r := range res {
		require.NotNil(t, r.Score)
	}
	assert.Equal(t, nnz[best], nnz[peak], "the chosen solution has the peak's support size")
	assert.LessOrEqual(t, len(res), best+1+2, "stopped within patience of the best")
	assert.Equal(t, countNonZero(m2.W), nnz[best], "the model holds the chosen solution")
	dist := 0.0
	for j := range m2.W {
		dist += (m2.W[j] - sols[best][j]) * (m2.W[j] - sols[best][j])
	}
	assert.Less(t, math.Sqrt(dist), 1e-3, "same path, same solution within the gap")

	_, err = Path(context.Background(), m2, c, Options{Stopping: Stopping{Epsilon: 1e-8}}, PathOptions{K: 3, Score: func([]float64) (float64, error) { return 0, errors.New("boom") }}, nil)
	assert.ErrorContains(t, err, "boom")
}

// TestPathSumFormAndBetas: a sum-form path fixes alpha = 2 C2/C1; explicit
// betas are solved as given and must decrease.
func TestPathSumFormAndBetas(t *testing.T) {
	rng := rand.New(rand.NewPCG(43, 44))
	c := randomCorpus(rng, 40, 4, 6, 0, 3, false)
	m, _ := chain.NewModel(labelNames(3), 6, 0, true, nil)
	betas := []float64{0.05, 0.02, 0.01}
	res, err := Path(context.Background(), m, c, Options{Problem: Problem{SumForm: true, C1: 1, C2: 3}, Stopping: Stopping{Epsilon: 1e-8}}, PathOptions{Betas: betas}, nil)
	require.NoError(t, err)
	require.Len(t, res, 3)
	for i, r := range res {
		assert.Equal(t, betas[i], r.Beta)
		assert.InDelta(t, 6.0, r.Alpha, 1e-12)
	}
	_, err = Path(context.Background(), m, c, Options{Stopping: Stopping{Epsilon: 1e-8}}, PathOptions{Betas: []float64{0.01, 0.02}}, nil)
	assert.ErrorContains(t, err, "decreasing")
	_, err = Path(context.Background(), m, c, Options{Problem: Problem{SumForm: true, C1: 0, C2: 1}}, PathOptions{}, nil)
	assert.ErrorContains(t, err, "C1 > 0")
}

// TestPathRefusesShortInit: an initial point of the wrong length is an
// error, as in Train, not a panic.
func TestPathRefusesShortInit(t *testing.T) {
	m, c := sgdProblem(t, 5, 20, 6, 0, 3, false)
	_, err := Path(context.Background(), m, c, Options{Method: Method{Init: make([]float64, len(m.W)-1)}}, PathOptions{K: 2, MinRatio: 0.1}, nil)
	require.ErrorContains(t, err, "initial weights have length")
}
