package train

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/floats"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/sparse"
	"github.com/sparsetag/sparsetag/train/internal/traintest"
)

// bruteL1Dual returns, by enumerating every label sequence, D(theta) =
// -(1/n) sum_i s_i H(theta_i) at theta_i = c p_w,i + (1 - c) delta(y_i)
// and ||m_s(theta)||_inf, for c = min(1, l1 / ||m_s(p_w)||_inf) rounded
// down as noL2Gap rounds it: the dual point of the pure-L1 certificate,
// from the definitions.
func bruteL1Dual(m *chain.Model, w []float64, c *sparse.Corpus, s []float64, l1 float64) (dual, mInf float64) {
	n := float64(c.Len())
	type seq struct {
		p     []float64
		feats [][]float64
		gold  int
	}
	var seqs []seq
	mp := make([]float64, len(w))
	for i := 0; i < c.Len(); i++ {
		scores := traintest.Scores(m, w, c, i)
		lz := floats.LogSumExp(scores)
		start, T := c.Span(i)
		y := make([]int, T)
		sq := seq{}
		for k := 0; ; k++ {
			sq.p = append(sq.p, math.Exp(scores[k]-lz))
			f := make([]float64, len(w))
			for j := range f { // F_j(x_i, y) by the definition's score: w = e_j
				e := make([]float64, len(w))
				e[j] = 1
				f[j] = traintest.Score(m, e, c, i, y)
			}
			sq.feats = append(sq.feats, f)
			gold := true
			for t := range y {
				gold = gold && y[t] == int(c.Labels[start+t])
			}
			if gold {
				sq.gold = k
			}
			if !chainNext(y, m.NumLabels()) {
				break
			}
		}
		for k, f := range sq.feats {
			for j, v := range f {
				mp[j] -= s[i] * sq.p[k] * v / n
				if k == sq.gold {
					mp[j] += s[i] * v / n
				}
			}
		}
		seqs = append(seqs, sq)
	}
	inf := 0.0
	for _, v := range mp {
		inf = math.Max(inf, math.Abs(v))
	}
	cc := 1.0
	if inf > l1 {
		cc = l1 / inf * (1 - 1e-12)
	}
	mt := make([]float64, len(w))
	for i, sq := range seqs {
		h := 0.0
		for k, p := range sq.p {
			th := cc * p
			if k == sq.gold {
				th += 1 - cc
			}
			if th > 0 {
				h -= th * math.Log(th)
			}
			for j, v := range sq.feats[k] {
				mt[j] -= s[i] * th * v / n
				if k == sq.gold {
					mt[j] += s[i] * v / n
				}
			}
		}
		dual -= s[i] * h / n
	}
	for _, v := range mt {
		mInf = math.Max(mInf, math.Abs(v))
	}
	return dual, mInf
}

func chainNext(y []int, L int) bool { return nextPath(y, L) }

// TestPureL1Certified: with c2 = 0 every full pass's gap equals P_s(w) +
// D_s(theta) at the scaled mixture theta, computed by enumeration from
// the definitions, theta is feasible (||m_s(theta)||_inf <= beta), and so
// every bound Primal - Gap is below every primal the solve reaches (weak
// duality); the run stops on the gap, with and without sequence weights,
// and the solution is sparse.
func TestPureL1Certified(t *testing.T) {
	rng := rand.New(rand.NewPCG(36, 20))
	const attrs = 8
	c := randomCorpus(rng, 12, 4, attrs, 0, 3, false)
	for _, s := range [][]float64{nil, randomSeqWeights(rng, c.Len())} {
		m, err := chain.NewModel(labelNames(3), attrs, 0, true, nil)
		require.NoError(t, err)
		var checked int
		var prim []float64
		var bounds []float64
		ws := s
		if ws == nil {
			ws = make([]float64, c.Len())
			for i := range ws {
				ws[i] = 1
			}
		}
		l1 := 0.3 / float64(c.Len())
		// The solve certifies each pass with the best dual bound so far
		// (run.certified): P - max over its passes of -D. Pass 0 is at w = 0
		// (cold start).
		d0, _ := bruteL1Dual(m, make([]float64, len(m.W)), c, ws, l1)
		bound := -d0
		op := Options{Problem: Problem{C1: 0.3, C2: 0, Weights: s}, Stopping: Stopping{Epsilon: 1e-9, MaxIter: 3000},
			Method: Method{ColdStart: true}}
		op.Monitor = func(it Iteration, w []float64) (bool, error) {
			p := traintest.WeightedNLL(m, w, c, ws) + l1*floats.Norm(w, 1)
			d, mInf := bruteL1Dual(m, w, c, ws, l1)
			require.LessOrEqual(t, mInf, l1*(1+1e-12), "the dual point is infeasible")
			require.InDelta(t, it.Primal, p, 1e-10*max(1, p), "primal")
			bound = max(bound, -d)
			require.InDelta(t, p-bound, it.Gap, 1e-9, "the gap is P minus the best bound -D of the passes, by enumeration")
			checked++
			return false, nil
		}
		op.MonitorEvery = 1
		res, err := Train(context.Background(), m, c, op)
		require.NoError(t, err)
		require.Equal(t, StopGap, res.StopReason)
		require.Greater(t, checked, 3)
		for _, it := range res.Passes() {
			prim = append(prim, it.Primal)
			bounds = append(bounds, it.Primal-it.Gap)
		}
		best := floats.Min(prim)
		for k, b := range bounds {
			require.LessOrEqual(t, b, best+1e-12, "pass %d: the bound is above a primal value", k)
		}
		require.Less(t, m.NonZero(), len(m.W), "pure L1 left no weight at zero")
		require.Positive(t, m.NonZero())
	}
}

// TestNoPenalty: c1 = c2 = 0 trains without a gap and stops on CRFsuite's
// gradient test (Epsilon), the Delta rule or MaxIter; the gradient test of
// the last pass is ||m|| / max(1, ||w||) at the solution. Options that
// need an L2 term are refused without one.
func TestNoPenalty(t *testing.T) {
	rng := rand.New(rand.NewPCG(36, 21))
	c := randomCorpus(rng, 20, 4, 6, 0, 3, true)
	m, err := chain.NewModel(labelNames(3), 6, 0, true, nil)
	require.NoError(t, err)
	res, err := Train(context.Background(), m, c, Options{Problem: Problem{SumForm: true}, Stopping: Stopping{MaxIter: 200}})
	require.NoError(t, err)
	require.Contains(t, []StopReason{StopGap, StopDelta, StopMaxIter}, res.StopReason)
	last := res.Passes()[len(res.Passes())-1]
	h := 1e-6
	g := 0.0
	for j := range m.W {
		w := append([]float64(nil), m.W...)
		w[j] += h
		fp := traintest.NLL(m, w, c)
		w[j] -= 2 * h
		fm := traintest.NLL(m, w, c)
		d := (fp - fm) / (2 * h)
		g += d * d
	}
	want := math.Sqrt(g) / math.Max(1, floats.Norm(m.W, 2))
	require.InDelta(t, want, last.Gap, 1e-6+1e-3*want)
	for _, bad := range []Options{
		{Problem: Problem{C1: 1, SumForm: true}, Method: Method{Screen: ScreenPinsker}},
		{Problem: Problem{C1: 1, SumForm: true}, Method: Method{Solver: SolverWorkingSet}},
		{Problem: Problem{C1: 1, SumForm: true}, Method: Method{Certificate: CertificateMixture}},
		{Problem: Problem{SumForm: true}, Stopping: Stopping{RelEpsilon: 1e-3}},
	} {
		require.Error(t, bad.Validate(), "%+v", bad)
	}
}
