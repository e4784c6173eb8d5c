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

// pricedPoint is a point with what a full pass over every feature knows of
// it: L(w) and m = -grad L(w).
type pricedPoint struct {
	w    []float64
	loss float64
	m    []float64
}

// price evaluates L and m at w over every feature of the model.
func pricePoint(t testing.TB, tr *trainer, w []float64) pricedPoint {
	t.Helper()
	all := tr.fs.AllSlice()
	tr.obj.SetActive(all, false)
	x := make([]float64, len(all))
	sparse.Gather(x, w, all)
	loss, m, err := tr.obj.Loss(context.Background(), x)
	require.NoError(t, err)
	return pricedPoint{w: w, loss: loss, m: append([]float64(nil), m...)}
}

// mixGap is the mixture certificate of the pass r has priced, as the
// loop's price forms it.
func mixGap(tr *trainer, r *run, gap, loss float64) float64 {
	return r.mix.Gap(&r.dual, r.pass(), tr.pen.l1, tr.pen.l2, gap, loss)
}

// supportRun returns a run over every feature of the trainer's set (u)
// whose support is that of the full-size w.
func supportRun(tr *trainer, w []float64) *run {
	r := &run{tr: tr, u: tr.fs.AllSlice()}
	for q, j := range r.u {
		if w[j] != 0 {
			r.supp, r.suppW = append(r.supp, int32(q)), append(r.suppW, w[j])
		}
	}
	return r
}

// bruteKL returns (1/n) sum_i KL(p_{a,i} || p_{b,i}) by enumerating every
// label sequence.
func bruteKL(m *chain.Model, a, b []float64, c *sparse.Corpus) float64 {
	total := 0.0
	for i := 0; i < c.Len(); i++ {
		sa, sb := traintest.Scores(m, a, c, i), traintest.Scores(m, b, c, i)
		za, zb := floats.LogSumExp(sa), floats.LogSumExp(sb)
		for y := range sa {
			lpa, lpb := sa[y]-za, sb[y]-zb
			total += math.Exp(lpa) * (lpa - lpb)
		}
	}
	return total / float64(c.Len())
}

// TestMixtureBregmanIsKL: the D_k of the mixture certificate, L(w) - L(w_k)
// + m_k . (w - w_k), equals the average KL(p_{w_k} || p_w) computed by
// enumerating every label sequence (chains with pair features, real values).
func TestMixtureBregmanIsKL(t *testing.T) {
	rng := rand.New(rand.NewPCG(81, 82))
	for _, tc := range []struct {
		pair int
		real bool
	}{{0, false}, {2, true}} {
		c := randomCorpus(rng, 12, 4, 5, tc.pair, 3, tc.real)
		m, err := chain.NewModel(labelNames(3), 5, tc.pair, true, nil)
		require.NoError(t, err)
		tr := newTrainer(m, c, (&Options{Resources: Resources{Threads: 1}}).defaults())
		tr.fs.SetModel(tr.op.ObservedPairs)
		for range 3 {
			w, wk := make([]float64, len(m.W)), make([]float64, len(m.W))
			for j := range w {
				w[j], wk[j] = rng.NormFloat64(), rng.NormFloat64()
			}
			p, pk := pricePoint(t, tr, w), pricePoint(t, tr, wk)
			d := p.loss - pk.loss
			for j := range w {
				d += pk.m[j] * (w[j] - wk[j])
			}
			assert.InDelta(t, bruteKL(m, wk, w, c), d, 1e-10, "pairs %d", tc.pair)
		}
	}
}

// solvedProblem is a small chain problem (3 labels, no pairs) solved to
// 1e-13 with the full solver, and a trainer at its penalty for pricing
// other points.
type solvedProblem struct {
	tr         *trainer
	m          *chain.Model
	c          *sparse.Corpus
	wStar      []float64
	lam1, lam2 float64
	pStar      float64
}

func newSolvedProblem(t *testing.T, rng *rand.Rand, n, attrs int) *solvedProblem {
	t.Helper()
	c := randomCorpus(rng, n, 5, attrs, 0, 3, false)
	m, err := chain.NewModel(labelNames(3), attrs, 0, true, nil)
	require.NoError(t, err)
	op := Options{Problem: Problem{BetaRatio: 0.05}, Stopping: Stopping{Epsilon: 1e-13, MaxIter: 20000}, Method: Method{Screen: ScreenNone, Solver: SolverFull}}
	_, err = Train(context.Background(), m, c, op)
	require.NoError(t, err)
	sp := &solvedProblem{m: m, c: c, wStar: append([]float64(nil), m.W...)}
	sp.tr = newTrainer(m, c, op.defaults())
	require.NoError(t, sp.tr.prepare(context.Background()))
	pen, err := sp.tr.lambdas(0, op.BetaRatio)
	require.NoError(t, err)
	sp.lam1, sp.lam2 = pen.l1, pen.l2
	sp.tr.setPenalty(pen, false)
	sp.pStar = sp.primal(pricePoint(t, sp.tr, sp.wStar))
	return sp
}

// primal returns P at a priced point.
func (sp *solvedProblem) primal(p pricedPoint) float64 {
	return p.loss + sp.lam1*floats.Norm(p.w, 1) + 0.5*sp.lam2*floats.Dot(p.w, p.w)
}

// TestMixtureCertifies: on small chains solved to 1e-12, the mixture
// certificate of a point w with earlier points w_1..w_K is at least the
// true suboptimality P(w) - P(w*) and at most the point's own gap, and it
// is below it on iterates near the optimum (where averaging the dual pays).
func TestMixtureCertifies(t *testing.T) {
	rng := rand.New(rand.NewPCG(83, 84))
	sp := newSolvedProblem(t, rng, 60, 30)
	tr, wStar, lam1, lam2, pStar := sp.tr, sp.wStar, sp.lam1, sp.lam2, sp.pStar
	improved := 0
	for trial := range 24 {
		// Iterates around the optimum at a distance that shrinks; in every
		// third trial the current point is far and the earlier ones close
		// (then only D_k keeps the certificate above the suboptimality).
		scale := math.Pow(10, -1-float64(trial%4))
		var pts []pricedPoint
		for k := range 1 + certificate.Passes {
			if trial%3 == 2 {
				scale = map[bool]float64{true: 0.5, false: 1e-4}[k == 0]
			}
			w := make([]float64, len(wStar))
			for j, v := range wStar {
				if v != 0 || rng.IntN(10) == 0 {
					w[j] = v + scale*rng.NormFloat64()
				}
			}
			pts = append(pts, pricePoint(t, tr, w))
		}
		cur := pts[0]
		r := supportRun(tr, cur.w)
		for k := len(pts) - 1; k >= 1; k-- { // oldest first: push puts the newest in front
			r.mU = pts[k].m
			mw := 0.0
			for _, j := range r.u {
				mw += pts[k].m[j] * pts[k].w[j]
			}
			r.dual.Push(pts[k].m, pts[k].loss, mw)
		}
		r.mU = cur.m
		own := fyGap(cur.w, cur.m, lam1, lam2)
		mix := mixGap(tr, r, own, cur.loss)
		// Phi at the current point alone is its own gap: the coordinates
		// the mixture keeps include every term of it.
		assert.InDelta(t, own, r.mix.ValueAtVertex(), 1e-9*own, "trial %d", trial)
		subopt := sp.primal(cur) - pStar
		assert.GreaterOrEqual(t, mix, subopt*(1-1e-9)-1e-14, "trial %d: the certificate is below the suboptimality", trial)
		assert.LessOrEqual(t, mix, own*(1+1e-12), "trial %d", trial)
		if mix < 0.9*own {
			improved++
		}
	}
	assert.Positive(t, improved, "the mixture never improved on the point's own gap")
	t.Logf("the mixture improved the certificate by more than 10%% in %d of 24 trials", improved)
}

// TestMixtureGoldComponent: the mixture's last component, the gold
// labelings, has D = L(w) (the average KL(delta(y_i) || p_w,i), by
// enumeration) and M = 0; with no earlier pass it alone lowers the
// certificate of a point far from the optimum, which stays above the
// true suboptimality.
func TestMixtureGoldComponent(t *testing.T) {
	rng := rand.New(rand.NewPCG(85, 86))
	sp := newSolvedProblem(t, rng, 40, 20)
	tr, m, c, wStar, lam1, lam2, pStar := sp.tr, sp.m, sp.c, sp.wStar, sp.lam1, sp.lam2, sp.pStar
	for _, scale := range []float64{0, 0.3, 0.9} {
		w := make([]float64, len(wStar))
		for j, v := range wStar {
			w[j] = scale * v
		}
		cur := pricePoint(t, tr, w)
		// D of the gold labelings, by enumeration: (1/n) sum_i -log p_w(y_i).
		kl := 0.0
		for i := 0; i < c.Len(); i++ {
			s := traintest.Scores(m, w, c, i)
			kl += floats.LogSumExp(s) - goldOf(m, w, c, i)
		}
		assert.InDelta(t, cur.loss, kl/float64(c.Len()), 1e-12*max(1, cur.loss), "scale %v", scale)
		r := &run{tr: tr, u: tr.fs.AllSlice(), mU: cur.m}
		for q, j := range r.u {
			if w[j] != 0 {
				r.supp, r.suppW = append(r.supp, int32(q)), append(r.suppW, w[j])
			}
		}
		own := fyGap(w, cur.m, lam1, lam2)
		mix := mixGap(tr, r, own, cur.loss)
		assert.InDelta(t, own, r.mix.ValueAtVertex(), 1e-9*own, "scale %v", scale)
		subopt := sp.primal(cur) - pStar
		assert.GreaterOrEqual(t, mix, subopt*(1-1e-9)-1e-14, "scale %v", scale)
		assert.LessOrEqual(t, mix, own*(1+1e-12), "scale %v", scale)
		if scale == 0 {
			assert.Less(t, mix, 0.9*own, "the gold labelings did not lower the certificate at w = 0")
		}
		t.Logf("scale %v: own gap %.4g, with the gold labelings %.4g, suboptimality %.4g", scale, own, mix, subopt)
	}
}

// goldOf returns the score of sequence i's gold labels under w.
func goldOf(m *chain.Model, w []float64, c *sparse.Corpus, i int) float64 {
	start, T := c.Span(i)
	y := make([]int, T)
	for t := range y {
		y[t] = int(c.Labels[start+t])
	}
	return traintest.Score(m, w, c, i, y)
}

// TestCertifiedGap: the gap of every full pass (its own, or P minus the
// best dual bound of the solve's earlier passes, whichever is smaller) is
// at least the true suboptimality, every bound Primal - Gap is below the
// optimum, and the gap never grows from one pass to the next while the
// primal does not.
func TestCertifiedGap(t *testing.T) {
	rng := rand.New(rand.NewPCG(85, 86))
	sp := newSolvedProblem(t, rng, 60, 30)
	for _, s := range []Solver{SolverFull, SolverWorkingSet} {
		m, err := chain.NewModel(labelNames(3), sp.m.Layout.NumUnary, 0, true, nil)
		require.NoError(t, err)
		res, err := Train(context.Background(), m, sp.c, keepWorkingSet(Options{Problem: Problem{BetaRatio: 0.05}, Stopping: Stopping{Epsilon: 1e-10, MaxIter: 5000}, Method: Method{Solver: s, ColdStart: true}}))
		require.NoError(t, err)
		prevP, prevG, bound, passes := math.Inf(1), math.Inf(1), math.Inf(-1), 0
		for _, it := range res.Iterations {
			if !it.Pass {
				continue
			}
			passes++
			require.GreaterOrEqual(t, it.Gap, it.Primal-sp.pStar-1e-13, "%s iteration %d: below the suboptimality", s, it.Iter)
			if it.Primal <= prevP {
				require.LessOrEqual(t, it.Gap, prevG+1e-15*max(1, it.Primal), "%s iteration %d: the gap grew", s, it.Iter)
			}
			bound = max(bound, it.Primal-it.Gap)
			require.LessOrEqual(t, bound, sp.pStar+1e-13, "%s iteration %d", s, it.Iter)
			prevP, prevG = it.Primal, it.Gap
		}
		require.Greater(t, passes, 3, "%s", s)
		require.Equal(t, StopGap, res.StopReason, "%s", s)
	}
}

// TestInnerSolveStopsOnDualBound: an inner solve ends at its first
// iteration that the solve's dual bound certifies, so that the next full
// pass stops. The bound is set by hand to P* (a valid one) after the first
// full pass; the objectives of the inner solve must stay above P* + eps up
// to its last iteration, and the last must reach it (or the check proves
// nothing).
func TestInnerSolveStopsOnDualBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(87, 88))
	sp := newSolvedProblem(t, rng, 60, 30)
	ctx := context.Background()
	for _, rel := range []float64{0.3, 0.1, 0.05, 0.02} {
		eps := rel * sp.pStar
		op := keepWorkingSet(Options{Problem: Problem{BetaRatio: 0.05}, Stopping: Stopping{Epsilon: eps, MaxIter: 5000}, Method: Method{Solver: SolverWorkingSet, ColdStart: true}})
		tr := newTrainer(sp.m, sp.c, op.defaults())
		require.NoError(t, tr.prepare(ctx))
		tr.setPenalty(penalty{l1: sp.lam1, l2: sp.lam2}, false)
		r := tr.newRun(solveInput{})
		require.NoError(t, r.start(ctx, sparsePoint{}, nil))
		gap := r.price(false)
		stop, err := r.fullPass(ctx, &gap)
		require.NoError(t, err)
		require.False(t, stop)
		r.dualBound = sp.pStar
		first := len(r.hist)
		require.NoError(t, r.innerSolve(ctx, gap))
		objs := r.hist[first:]
		require.NotEmpty(t, objs)
		for k, f := range objs[:len(objs)-1] {
			require.Greater(t, f-sp.pStar, eps, "rel %g: inner iteration %d was certified, yet the solve went on", rel, k)
		}
		require.LessOrEqual(t, objs[len(objs)-1]-sp.pStar, eps, "rel %g: the inner solve ended before the bound certified it", rel)
	}
}

// TestDualBoundIgnoresNaN: a pass whose bound is NaN leaves the solve's
// dual bound as it was (max would make it NaN for good).
func TestDualBoundIgnoresNaN(t *testing.T) {
	r := &run{dualBound: math.Inf(-1)}
	r.raiseDualBound(Iteration{Primal: math.NaN(), Gap: 1, Pass: true})
	require.True(t, math.IsInf(r.dualBound, -1))
	r.raiseDualBound(Iteration{Primal: 3, Gap: 0.5, Pass: true})
	r.raiseDualBound(Iteration{Primal: 2.9, Gap: math.NaN(), Pass: true})
	r.raiseDualBound(Iteration{Primal: 2.8, Gap: 0.4, Pass: true})
	require.Equal(t, 2.5, r.dualBound)
}
