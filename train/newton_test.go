package train

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/floats"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/sparse"
	"github.com/sparsetag/sparsetag/train/internal/owlqn"
	"github.com/sparsetag/sparsetag/train/internal/traintest"
)

// bruteDualAt returns D(p_v) = sum_j h*(M_j(p_v)) - (1/n) sum_i H(p_v,i) at
// the model distributions of the full-size point v, by enumerating every
// label sequence (h*(m) = (|m| - l1)_+^2 / (2 l2), average form).
func bruteDualAt(m *chain.Model, c *sparse.Corpus, v []float64, l1, l2 float64) float64 {
	L := m.NumLabels()
	M := make([]float64, len(m.W))
	ent := 0.0
	for i := 0; i < c.Len(); i++ {
		start, T := c.Span(i)
		scores := traintest.Scores(m, v, c, i)
		z := floats.LogSumExp(scores)
		y := make([]int, T)
		gold := make([]int, T)
		for t := range gold {
			gold[t] = int(c.Labels[start+t])
		}
		addCounts(m, c, i, gold, 1, M)
		for _, s := range scores { // the order of nextPath
			p := math.Exp(s - z)
			if p > 0 {
				ent -= p * (s - z)
			}
			addCounts(m, c, i, y, -p, M)
			nextPath(y, L)
		}
	}
	n := float64(c.Len())
	d := -ent / n
	for _, mj := range M {
		if e := math.Abs(mj/n) - l1; e > 0 {
			d += e * e / (2 * l2)
		}
	}
	return d
}

// addCounts adds s F(x_i, y) to M (state and transition features).
func addCounts(m *chain.Model, c *sparse.Corpus, i int, y []int, s float64, M []float64) {
	L := m.NumLabels()
	start, _ := c.Span(i)
	for t, yt := range y {
		cols, vals := c.Unary.Row(start + t)
		for k, a := range cols {
			v := 1.0
			if vals != nil {
				v = vals[k]
			}
			M[int(a)*L+yt] += s * v
		}
		if t > 0 {
			M[m.Layout.TransOffset()+y[t-1]*L+yt] += s
		}
	}
}

// TestNewtonCandidateGapBruteForce: the Newton candidate's certificate of w
// at the dual point p_{w'}, formed from an evaluation at w' as the loop
// forms it (candidateGap), equals P(w) + D(p_{w'}) by enumeration, and is
// never below the true suboptimality, for w' far from w, near it, and at
// the optimum, where it is the suboptimality itself.
func TestNewtonCandidateGapBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	sp := newSolvedProblem(t, rng, 30, 12)
	tr, m, c := sp.tr, sp.m, sp.c
	all := tr.fs.AllSlice()
	for trial := range 12 {
		w, w1 := make([]float64, len(m.W)), make([]float64, len(m.W))
		s, s1 := 0.3/float64(1+trial%3), []float64{0, 0.01, 1}[trial%3] // s1 = 0: w' = w*
		for j, v := range sp.wStar {
			if v != 0 || rng.IntN(4) == 0 {
				w[j] = v + s*rng.NormFloat64()
			}
			if v != 0 || rng.IntN(4) == 0 {
				w1[j] = v + s1*rng.NormFloat64()
			}
		}
		p, p1 := pricePoint(t, tr, w), pricePoint(t, tr, w1) // the objective's last evaluation: at w1
		x, x1 := make([]float64, len(all)), make([]float64, len(all))
		sparse.Gather(x, w, all)
		sparse.Gather(x1, w1, all)
		m1 := make([]float64, len(all))
		sparse.Gather(m1, p1.m, all)
		f := p.loss + 0.5*sp.lam2*floats.Dot(x, x)
		f1 := p1.loss + 0.5*sp.lam2*floats.Dot(x1, x1)
		r := supportRun(tr, w)
		r.nw.block = 1 + trial%7 // m' over u in blocks of 1 to 7 features
		got := r.nw.candidateGap(r, x, x1, f, f1, m1, false)
		pw := sp.primal(p)
		want := pw + bruteDualAt(m, c, w1, sp.lam1, sp.lam2)
		assert.InDelta(t, want, got, 1e-10*math.Max(1, want), "trial %d", trial)
		// The same with m' over u formed at once in r.mU (the move's way).
		r.mU = tr.obj.Residuals(nil, r.u)
		assert.InDelta(t, got, r.nw.candidateGap(r, x, x1, f, f1, m1, true), 1e-13*math.Max(1, got), "trial %d: m' over u at once", trial)
		assert.GreaterOrEqual(t, got, (pw-sp.pStar)*(1-1e-9)-1e-13, "trial %d: below the suboptimality", trial)
		if s1 == 0 {
			// D(p_{w*}) = -P*: the candidate at the optimum certifies the
			// suboptimality itself (up to the tight solve's 1e-13).
			assert.InDelta(t, pw-sp.pStar, got, 1e-9, "trial %d: at w* the certificate is the suboptimality", trial)
		}
	}
}

// newtonTuned returns op with the Newton candidate nt (eps 1e-4).
func newtonTuned(op Options, nt newtonTuning) Options {
	nt.eps = 1e-4
	return withTuning(keepWorkingSet(op), func(tu *tuning) {
		tu.newton = nt
	})
}

// TestNewtonBoundSafeInSolve: with the Newton candidate, every full pass's
// certified gap stays an upper bound of its point's suboptimality (Primal -
// Gap <= P*, P* from a full solve to 1e-13), on chains, real values and
// pair features, at every pass or near the stop, with 1 to 10 products; and
// the solve stops on the gap within the certified distance of the optimum.
func TestNewtonBoundSafeInSolve(t *testing.T) {
	for _, tc := range []struct {
		name       string
		maxT, pair int
		real       bool
	}{{"chain", 6, 0, false}, {"chain-real", 4, 0, true}, {"pairs", 5, 3, false}} {
		rng := rand.New(rand.NewPCG(43, 44))
		c := randomCorpus(rng, 80, tc.maxT, 30, tc.pair, 3, tc.real)
		for _, ratio := range []float64{0.1, 0.01} {
			base := Options{Problem: Problem{BetaRatio: ratio}, Stopping: Stopping{Epsilon: 1e-10, MaxIter: 20000}, Method: Method{Solver: SolverWorkingSet}}
			_, rt := trainTiny(t, c, 3, 30, Options{Problem: Problem{BetaRatio: ratio}, Stopping: Stopping{Epsilon: 1e-13, MaxIter: 20000}, Method: Method{Screen: ScreenNone, Solver: SolverFull}})
			require.True(t, rt.Converged)
			for _, v := range []newtonTuning{{k: 1}, {k: 3}, {k: 5}, {k: 10, near: 2.5}, {k: 10},
				{k: 2, kMax: 10, ratio: 2.5}, {k: 1, kMax: 8}, {k: 10, kMax: 20, ratio: 2.5, near: 2.5}} {
				_, res := trainTiny(t, c, 3, 30, newtonTuned(base, v))
				require.True(t, res.Converged, "%s %g %v", tc.name, ratio, v)
				for _, it := range res.Iterations {
					if it.Pass {
						assert.LessOrEqual(t, it.Primal-it.Gap, rt.Primal+1e-13, "%s ratio %g %v iter %d: the bound is above the optimum", tc.name, ratio, v, it.Iter)
					}
				}
				assert.LessOrEqual(t, res.Primal-rt.Primal, res.Gap+1e-13, "%s ratio %g %v", tc.name, ratio, v)
			}
		}
	}
}

// TestCertModelMinimize: the model certificate's minimizer (semismooth
// Newton on a piecewise quadratic) has a zero gradient by finite
// differences of its value, and no random point nearby has a lower value;
// its value at 0 is |r|^2/(2 l2) plus the violations of the rest.
func TestCertModelMinimize(t *testing.T) {
	rng := rand.New(rand.NewPCG(45, 46))
	for trial := range 20 {
		nA, k := 40, 1+trial%6
		free := []int32{}
		for p := range nA {
			if rng.IntN(2) == 0 {
				free = append(free, int32(p))
			}
		}
		cm := certModel{free: free, l1: 0.5, l2: 0.01 + rng.Float64()}
		for range k {
			v, w := make([]float64, len(free)), make([]float64, nA)
			for q := range v {
				v[q] = rng.NormFloat64()
			}
			for p := range w {
				w[p] = rng.NormFloat64()
			}
			ns := newtonState{v: cm.V}
			if ns.orthonormalize(v) {
				cm.V, cm.W = append(cm.V, v), append(cm.W, w)
			}
		}
		cm.r = make([]float64, len(free))
		for q := range cm.r {
			cm.r[q] = rng.NormFloat64()
		}
		cm.m = make([]float64, nA)
		zero := 0.0
		for p := range cm.m {
			cm.m[p] = rng.NormFloat64() * 0.6
		}
		for q := range cm.r {
			zero += cm.r[q] * cm.r[q] / (2 * cm.l2)
		}
		isFree := map[int32]bool{}
		for _, p := range free {
			isFree[p] = true
		}
		for p, mp := range cm.m {
			if e := math.Abs(mp) - cm.l1; !isFree[int32(p)] && e > 0 {
				zero += e * e / (2 * cm.l2)
			}
		}
		c, val := cm.minimize(make([]float64, len(cm.V)))
		checkModelValue(t, rng, &cm, isFree, trial)
		assert.InDelta(t, zero, cm.eval(make([]float64, len(c)), nil, nil), 1e-9*zero, "trial %d", trial)
		assert.InDelta(t, val, cm.eval(c, nil, nil), 1e-12*math.Max(1, val))
		h := 1e-6
		for i := range c {
			cp, cn := append([]float64(nil), c...), append([]float64(nil), c...)
			cp[i] += h
			cn[i] -= h
			g := (cm.eval(cp, nil, nil) - cm.eval(cn, nil, nil)) / (2 * h)
			assert.InDelta(t, 0, g, 1e-5*math.Max(1, val), "trial %d: gradient %d", trial, i)
		}
		for range 50 {
			cp := append([]float64(nil), c...)
			for i := range cp {
				cp[i] += 0.1 * rng.NormFloat64()
			}
			assert.GreaterOrEqual(t, cm.eval(cp, nil, nil), val*(1-1e-12), "trial %d", trial)
		}
	}
}

// checkModelValue checks the model (prepared) at random coefficients
// against its terms summed coordinate by coordinate.
func checkModelValue(t *testing.T, rng *rand.Rand, cm *certModel, isFree map[int32]bool, trial int) {
	t.Helper()
	for range 5 {
		cr := make([]float64, len(cm.V))
		for i := range cr {
			cr[i] = rng.NormFloat64()
		}
		d, wc := make([]float64, len(cm.free)), make([]float64, len(cm.m))
		for i, ci := range cr {
			floats.AddScaled(d, ci, cm.V[i])
			floats.AddScaled(wc, ci, cm.W[i])
		}
		want := 0.5 * certRidge * cm.l2 * floats.Dot(cr, cr)
		q := 0
		for p := range cm.m {
			if isFree[int32(p)] {
				want += 0.5*d[q]*wc[p] + (cm.r[q]+wc[p])*(cm.r[q]+wc[p])/(2*cm.l2)
				q++
			} else if e := math.Abs(cm.m[p]-wc[p]) - cm.l1; e > 0 {
				want += e * e / (2 * cm.l2)
			}
		}
		assert.InDelta(t, want, cm.eval(cr, nil, nil), 1e-10*math.Max(1, want), "trial %d: the model's value", trial)
	}
}

// newtonAt returns a run of sp's problem at the full-size point w (every
// feature active, the pass priced) after the candidate of tuning nt has
// been tried there at a gap target eps (tr.op.Epsilon), and P and the own
// gap at w (the try may have moved X).
func newtonAt(t *testing.T, sp *solvedProblem, w []float64, nt newtonTuning, eps float64) (*run, float64, float64) {
	t.Helper()
	tr := sp.tr
	all := tr.fs.AllSlice()
	ctx := context.Background()
	tu := tr.op.tuned()
	tu.newton = nt
	tr.op.tune = &tu
	tr.op.Epsilon, tr.op.RelEpsilon = eps, 0
	tr.obj.SetActive(slices.Clone(all), true)
	x := make([]float64, len(all))
	sparse.Gather(x, w, all)
	grad := make([]float64, len(x))
	f, m, err := tr.evaluate(ctx, x, grad)
	require.NoError(t, err)
	r := supportRun(tr, w)
	r.policy, r.dualBound = SolverWorkingSet, math.Inf(-1)
	r.m, r.mU = m, append([]float64(nil), m...)
	r.opt, err = owlqn.New(x, f, grad, tr.optSettings())
	require.NoError(t, err)
	own := fyGap(x, m, sp.lam1, sp.lam2)
	gap, pw := own, r.opt.Objective()
	require.NoError(t, r.nw.try(ctx, r, &gap))
	return r, pw, own
}

// perturbed returns w* with each non-zero weight scaled by 1 + s N(0, 1).
func perturbed(sp *solvedProblem, rng *rand.Rand, s float64) []float64 {
	w := make([]float64, len(sp.wStar))
	for j, v := range sp.wStar {
		if v != 0 {
			w[j] = v * (1 + s*rng.NormFloat64())
		}
	}
	return w
}

// TestNewtonCandidateTight: near the optimum of a small chain problem, the
// candidate with a Krylov space as large as the free set (the quadratic
// model's exact Newton step) certifies within 1.5x the true suboptimality,
// far below the point's own gap; with one product it is never below the
// suboptimality either.
func TestNewtonCandidateTight(t *testing.T) {
	rng := rand.New(rand.NewPCG(47, 48))
	sp := newSolvedProblem(t, rng, 60, 12)
	for trial := range 6 {
		w := perturbed(sp, rng, 0.01)
		k := []int{1, 200}[trial%2]
		r, pw, own := newtonAt(t, sp, w, newtonTuning{k: k, eps: 1e-4}, 1e-13)
		cert := pw - r.dualBound
		sub := pw - sp.pStar
		assert.GreaterOrEqual(t, cert, sub*(1-1e-9)-1e-13, "trial %d", trial)
		if k > 1 {
			assert.LessOrEqual(t, cert, 1.5*sub, "trial %d: own gap %g, suboptimality %g", trial, own, sub)
			assert.Less(t, cert, own/3, "trial %d", trial)
		}
		t.Logf("k %d (basis %d of %d free): own gap %.3e, candidate %.3e, suboptimality %.3e", k, len(r.nw.v), len(r.nw.free), own, cert, sub)
	}
}

// prefixModel returns the model certificate's minimum over the first i
// vectors of the attempt's basis and the model's suboptimality there,
// from a cold start.
func prefixModel(r *run, i int) (float64, float64) {
	ns := &r.nw
	cm := certModel{V: ns.v[:i], W: ns.hv[:i], free: ns.free, r: ns.r, m: ns.mA, l1: r.tr.pen.l1, l2: r.tr.pen.l2}
	_, g := cm.minimize(make([]float64, i))
	return g, cm.sub()
}

// TestNewtonAdaptiveBasis: with kMax > k the attempt's basis is the
// smallest of at least k vectors at which the model says enough (its
// certificate within the target and within ratio x its suboptimality),
// kMax, or the end of the Krylov space; over the nested bases the model's
// certificate does not rise and its suboptimality does not fall; and with
// the whole space the suboptimality is r.(H_FF + l2 I)^-1 r/2, H_FF formed
// column by column from forward differences of m along unit vectors.
func TestNewtonAdaptiveBasis(t *testing.T) {
	rng := rand.New(rand.NewPCG(49, 50))
	sp := newSolvedProblem(t, rng, 60, 12)
	checked := 0
	for trial := range 12 {
		w := perturbed(sp, rng, 0.02)
		sub := sp.primal(pricePoint(t, sp.tr, w)) - sp.pStar
		nt := newtonTuning{k: 1 + trial%3, kMax: 4 + trial%5*4, ratio: []float64{0, 1.3, 2.5, 5}[trial%4], eps: 1e-4}
		eps := sub * []float64{1.05, 2, 20}[trial%3]
		r, _, _ := newtonAt(t, sp, w, nt, eps)
		j := len(r.nw.v)
		require.GreaterOrEqual(t, j, 1)
		enoughAt := func(i int) (bool, float64, float64) {
			g, s := prefixModel(r, i)
			return g <= eps*(1-1e-7) && (nt.ratio == 0 || g <= nt.ratio*s*(1-1e-7)), g, s
		}
		prevG, prevS := math.Inf(1), 0.0
		for i := max(nt.k, 1); i <= j; i++ {
			ok, g, s := enoughAt(i)
			if i < j {
				assert.False(t, ok, "trial %d: enough at %d of %d (model %g, sub %g, target %g)", trial, i, j, g, s, eps)
			}
			assert.LessOrEqual(t, g, prevG*(1+1e-9), "trial %d: the model's certificate rose at %d", trial, i)
			assert.GreaterOrEqual(t, s, prevS*(1-1e-9), "trial %d: the model's suboptimality fell at %d", trial, i)
			prevG, prevS = g, s
		}
		if j < nt.kMax && !r.nw.spanEnded() {
			g, s := prefixModel(r, j)
			assert.True(t, g <= eps*(1+1e-7) && (nt.ratio == 0 || g <= nt.ratio*s*(1+1e-7)),
				"trial %d: stopped at %d without enough (model %g, sub %g, target %g)", trial, j, g, s, eps)
			checked++
		}
	}
	assert.Greater(t, checked, 3, "too few attempts stopped by the rule")

	// The model's suboptimality over the whole space against H_FF.
	w := perturbed(sp, rng, 0.02)
	all := sp.tr.fs.AllSlice()
	x := make([]float64, len(all))
	sparse.Gather(x, w, all)
	r, pw, _ := newtonAt(t, sp, w, newtonTuning{k: 200, eps: 1e-4}, 1e-13)
	ns := &r.nw
	require.True(t, ns.spanEnded(), "the basis should span the Krylov space")
	n := len(ns.free)
	h := make([]float64, n*n)
	for q, k := range ns.free {
		xe := slices.Clone(x)
		xe[k] += 1e-4
		_, m, err := sp.tr.obj.Loss(context.Background(), xe)
		require.NoError(t, err)
		for q2, p := range ns.free {
			h[q2*n+q] = (ns.mA[p] - m[p]) / 1e-4
		}
	}
	for q := range n {
		for q2 := range q {
			a := 0.5 * (h[q*n+q2] + h[q2*n+q])
			h[q*n+q2], h[q2*n+q] = a, a
		}
		h[q*n+q] += sp.lam2
	}
	want := 0.5 * dot(gaussSolve(h, slices.Clone(ns.r), n), ns.r)
	_, got := prefixModel(r, len(ns.v))
	assert.InDelta(t, want, got, 1e-5*want, "basis %d of %d free", len(ns.v), n)
	t.Logf("model suboptimality %.6e over the Krylov space (%d of %d), %.6e from H_FF; true %.6e", got, len(ns.v), n, want, pw-sp.pStar)
}

// spanEnded reports whether the basis holds the whole Krylov space: the
// next vector, H times the last one over F, is within krylovTol of its
// span (krylov would stop there).
func (ns *newtonState) spanEnded() bool {
	if len(ns.v) == 0 {
		return true
	}
	last := ns.hv[len(ns.hv)-1]
	v := make([]float64, len(ns.free))
	for q, k := range ns.free {
		v[q] = last[k]
	}
	return !ns.orthonormalize(v)
}
