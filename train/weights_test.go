package train

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/floats"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/sparse"
	"github.com/sparsetag/sparsetag/train/certificate"
	"github.com/sparsetag/sparsetag/train/internal/traintest"
)

// Sequence weights (Options.Weights) with the certified trainer: the
// weighted primal P_s(w) = (1/n) sum_i s_i NLL_i(w) + l1 ||w||_1 + l2/2
// ||w||^2 is computed here by enumerating every label sequence
// (traintest.WeightedNLL), independently of the objective.

func randomSeqWeights(rng *rand.Rand, n int) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = 0.2 + 3*rng.Float64()
	}
	return s
}

// weightedPrimal returns P_s(w) by enumeration.
func weightedPrimal(m *chain.Model, w []float64, c *sparse.Corpus, s []float64, l1, l2 float64) float64 {
	return traintest.WeightedNLL(m, w, c, s) + l1*floats.Norm(w, 1) + 0.5*l2*floats.Dot(w, w)
}

// weightedOptimum solves the weighted problem to 1e-13 with the full
// solver and no screening (the reference), checks the solver's primal
// against enumeration, and returns w* and P_s(w*).
func weightedOptimum(t *testing.T, c *sparse.Corpus, s []float64, attrs int, prob Problem) (*chain.Model, []float64, float64, *Result) {
	t.Helper()
	m, err := chain.NewModel(labelNames(3), attrs, 0, true, nil)
	require.NoError(t, err)
	prob.Weights = s
	res, err := Train(context.Background(), m, c, Options{Problem: prob, Stopping: Stopping{Epsilon: 1e-13, MaxIter: 20000},
		Method: Method{Screen: ScreenNone, Solver: SolverFull}})
	require.NoError(t, err)
	pStar := weightedPrimal(m, m.W, c, s, res.Beta, res.Lambda2)
	assert.InDelta(t, pStar, res.Primal, 1e-11*max(1, pStar), "the solver's weighted primal against enumeration")
	return m, append([]float64(nil), m.W...), pStar, res
}

// TestWeightedCertifiedGap: with random positive sequence weights, every
// full pass's certified gap (the plain gap or the mixture certificate) is
// at least P_s(w) - P_s* by enumeration, for both solver policies with the
// Pinsker and static rules and the warm start; the screened solve's
// weights are those of the unscreened optimum within the distance its
// final gap allows (P_s is l2-strongly convex: ||w - w*||^2 <= 2 gap /
// l2); every screened feature is zero at w*; and the result is the same
// bits for 1 and 4 threads.
func TestWeightedCertifiedGap(t *testing.T) {
	rng := rand.New(rand.NewPCG(36, 10))
	const attrs = 24
	c := randomCorpus(rng, 50, 5, attrs, 0, 3, false)
	s := randomSeqWeights(rng, c.Len())
	for _, prob := range []Problem{{BetaRatio: 0.05}, {C1: 2, C2: 0.5}} {
		_, wStar, pStar, ref := weightedOptimum(t, c, s, attrs, prob)
		tight := math.Sqrt(2 * 1e-13 / ref.Lambda2)
		for _, cfg := range []struct {
			solver Solver
			cold   bool
		}{{SolverFull, true}, {SolverWorkingSet, true}, {SolverWorkingSet, false}} {
			var bits []float64
			for _, threads := range []int{1, 4} {
				m, err := chain.NewModel(labelNames(3), attrs, 0, true, nil)
				require.NoError(t, err)
				p := prob
				p.Weights = s
				res, err := Train(context.Background(), m, c, keepWorkingSet(Options{Problem: p, Stopping: Stopping{Epsilon: 1e-10, MaxIter: 5000},
					Method: Method{Solver: cfg.solver, ColdStart: cfg.cold}, Resources: Resources{Threads: threads}}))
				require.NoError(t, err)
				require.Equal(t, StopGap, res.StopReason)
				passes := res.Passes()
				require.Greater(t, len(passes), 1)
				for _, it := range passes {
					require.GreaterOrEqual(t, it.Gap, it.Primal-pStar-1e-13, "%+v: pass at iteration %d certifies less than the suboptimality", cfg, it.Iter)
				}
				sub := weightedPrimal(m, m.W, c, s, res.Beta, res.Lambda2) - pStar
				require.LessOrEqual(t, sub, res.Gap+1e-13, "%+v", cfg)
				dist := math.Sqrt(2*(res.Gap+1e-13)/res.Lambda2) + tight
				for j := range wStar {
					require.InDelta(t, wStar[j], m.W[j], dist, "%+v: weight %d", cfg, j)
				}
				require.Positive(t, res.Screened, "%+v: nothing screened: the rules were not exercised", cfg)
				for j := range wStar {
					if res.ScreenedSet.Has(j) {
						require.LessOrEqual(t, math.Abs(wStar[j]), tight, "%+v: screened feature %d is %v at the optimum", cfg, j, wStar[j])
					}
				}
				if bits == nil {
					bits = append([]float64(nil), m.W...)
				} else {
					for j := range bits {
						require.Equal(t, math.Float64bits(bits[j]), math.Float64bits(m.W[j]), "%+v: threads change weight %d", cfg, j)
					}
				}
			}
		}
	}
}

// TestWeightedMixtureCertifies: the mixture certificate of the weighted
// objective (past passes and gold labelings of the weighted loss) is at
// least P_s(w) - P_s* by enumeration and at most the point's own gap, at
// points around the optimum.
func TestWeightedMixtureCertifies(t *testing.T) {
	rng := rand.New(rand.NewPCG(36, 11))
	const attrs = 30
	c := randomCorpus(rng, 60, 5, attrs, 0, 3, false)
	s := randomSeqWeights(rng, c.Len())
	prob := Problem{BetaRatio: 0.05}
	m, wStar, pStar, _ := weightedOptimum(t, c, s, attrs, prob)
	prob.Weights = s
	tr, err := setup(context.Background(), m, c, Options{Problem: prob, Method: Method{Screen: ScreenNone, Solver: SolverFull}})
	require.NoError(t, err)
	pen, err := tr.lambdas(0, prob.BetaRatio)
	require.NoError(t, err)
	tr.setPenalty(pen, false)
	improved := 0
	for trial := range 16 {
		scale := math.Pow(10, -1-float64(trial%4))
		var pts []pricedPoint
		for range 1 + certificate.Passes {
			w := make([]float64, len(wStar))
			for j, v := range wStar {
				if v != 0 || rng.IntN(10) == 0 {
					w[j] = v + scale*rng.NormFloat64()
				}
			}
			pts = append(pts, pricePoint(t, tr, w))
		}
		cur := pts[0]
		assert.InDelta(t, traintest.WeightedNLL(m, cur.w, c, s), cur.loss, 1e-11, "weighted loss")
		r := supportRun(tr, cur.w)
		for k := len(pts) - 1; k >= 1; k-- {
			r.mU = pts[k].m
			mw := 0.0
			for _, j := range r.u {
				mw += pts[k].m[j] * pts[k].w[j]
			}
			r.dual.Push(pts[k].m, pts[k].loss, mw)
		}
		r.mU = cur.m
		own := fyGap(cur.w, cur.m, pen.l1, pen.l2)
		mix := mixGap(tr, r, own, cur.loss)
		subopt := weightedPrimal(m, cur.w, c, s, pen.l1, pen.l2) - pStar
		assert.GreaterOrEqual(t, own, subopt*(1-1e-9)-1e-14, "trial %d: the plain gap is below the suboptimality", trial)
		assert.GreaterOrEqual(t, mix, subopt*(1-1e-9)-1e-14, "trial %d: the mixture is below the suboptimality", trial)
		assert.LessOrEqual(t, mix, own*(1+1e-12), "trial %d", trial)
		if mix < 0.9*own {
			improved++
		}
	}
	assert.Positive(t, improved, "the mixture never improved on the point's own gap")
}

// TestWeightTwoIsDuplicate: in the sum form, a weight of 2 on a sequence
// is the same problem as the corpus with that sequence twice (sum_i s_i
// NLL_i + C1 ||w||_1 + C2 ||w||^2), so both solves reach the same optimum
// to solver tolerance.
func TestWeightTwoIsDuplicate(t *testing.T) {
	rng := rand.New(rand.NewPCG(36, 12))
	const attrs = 20
	c := randomCorpus(rng, 30, 5, attrs, 1, 3, true)
	s := make([]float64, c.Len())
	for i := range s {
		s[i] = 1
	}
	s[7] = 2
	dup := traintest.Duplicate(c, 7)
	train := func(c *sparse.Corpus, s []float64) (*chain.Model, *Result) {
		m, err := chain.NewModel(labelNames(3), attrs, 1, true, nil)
		require.NoError(t, err)
		res, err := Train(context.Background(), m, c, Options{Problem: Problem{C1: 0.5, C2: 0.5, Weights: s}, Stopping: Stopping{Epsilon: 1e-12, MaxIter: 5000}})
		require.NoError(t, err)
		return m, res
	}
	a, ra := train(c, s)
	b, rb := train(dup, nil)
	// Each gap bounds the sum-form suboptimality by n gap, hence ||w - w*||^2
	// <= n gap / C2 (the sum form is 2 C2-strongly convex).
	tol := math.Sqrt(float64(c.Len())*ra.Gap/0.5) + math.Sqrt(float64(dup.Len())*rb.Gap/0.5)
	require.Less(t, tol, 1e-4)
	for j := range a.W {
		require.InDelta(t, b.W[j], a.W[j], tol, "weight %d", j)
	}
	require.Positive(t, a.NonZero())
}

// TestWeightsRefused: weights of the wrong length or not above 0, and with
// partial labels or the paper's rule, are errors.
func TestWeightsRefused(t *testing.T) {
	rng := rand.New(rand.NewPCG(36, 13))
	c := randomCorpus(rng, 4, 3, 3, 0, 2, false)
	for _, tc := range []struct {
		name string
		op   Options
	}{
		{"short", Options{Problem: Problem{Weights: []float64{1, 1}}}},
		{"zero", Options{Problem: Problem{Weights: []float64{1, 0, 1, 1}}}},
		{"nan", Options{Problem: Problem{Weights: []float64{1, math.NaN(), 1, 1}}}},
		{"paper", Options{Problem: Problem{Weights: []float64{1, 1, 1, 1}}, Method: Method{Screen: ScreenPaper}}},
		{"partial", Options{Problem: Problem{Weights: []float64{1, 1, 1, 1}, Allowed: NewLabelSets(c.Positions(), 2)}}},
	} {
		m, err := chain.NewModel(labelNames(2), 3, 0, true, nil)
		require.NoError(t, err)
		_, err = Train(context.Background(), m, c, tc.op)
		require.Error(t, err, tc.name)
	}
}
