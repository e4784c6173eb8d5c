package warmstart

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/inference"
	"github.com/sparsetag/sparsetag/internal/chaintest"
	"github.com/sparsetag/sparsetag/internal/lattice"
	"github.com/sparsetag/sparsetag/sparse"
	"github.com/sparsetag/sparsetag/train/objective"
)

var (
	approxEqual  = chaintest.ApproxEqual
	approxScalar = chaintest.ApproxScalar
)

// eagerSGD is the reference of the warm start's steps: every step updates
// every feature, O(d), in the units of w, following the formulas at the
// top of sgd.go literally.
type eagerSGD struct {
	m      *chain.Model
	c      *sparse.Corpus
	l1, l2 float64
	frozen sparse.Bitset
	weight []float64 // sequence weights (nil: unit): step i moves by eta s_i g
	w, q   []float64
	u      float64
	scr    lattice.Scratch
	ws     *inference.Workspace
}

// step runs one step on sequence i with step size eta and returns NLL_i
// before it.
func (e *eagerSGD) step(i int, eta float64) float64 {
	lat := lattice.Score(&e.scr, e.m.Layout, e.w, e.c, i)
	logZ := inference.ForwardBackward(e.ws, lat)
	start, T := e.c.Span(i)
	nll := logZ - objective.GoldScore(lat, e.c.Labels[start:start+T])
	g := e.gradient(i, lat)
	if e.weight != nil {
		nll *= e.weight[i]
		for j := range g {
			g[j] *= e.weight[i]
		}
	}
	shrink := 1 - eta*e.l2
	e.u = shrink*e.u + eta*e.l1
	for j := range e.w {
		if e.frozen != nil && e.frozen.Has(j) {
			continue
		}
		e.w[j] = shrink*e.w[j] - eta*g[j]
		e.q[j] *= shrink
		z := e.w[j]
		if z > 0 {
			e.w[j] = math.Max(0, z-(e.u+e.q[j]))
		} else if z < 0 {
			e.w[j] = math.Min(0, z+(e.u-e.q[j]))
		}
		e.q[j] += e.w[j] - z
	}
	return nll
}

// gradient returns grad NLL_i at w, full size, computed feature by
// feature from the marginals.
func (e *eagerSGD) gradient(i int, lat *inference.Lattice) []float64 {
	m, c := e.m, e.c
	L := m.NumLabels()
	g := make([]float64, len(e.w))
	start, T := c.Span(i)
	node := e.ws.Node()
	edge := make([]float64, L*L)
	for t := 0; t < T; t++ {
		y := int(c.Labels[start+t])
		cols, vals := c.Unary.Row(start + t)
		for k, a := range cols {
			v := 1.0
			if vals != nil {
				v = vals[k]
			}
			for yy := 0; yy < L; yy++ {
				g[m.Layout.StateIndex(int(a), yy)] += v * node[t*L+yy]
			}
			g[m.Layout.StateIndex(int(a), y)] -= v
		}
		if t == 0 {
			continue
		}
		yp := int(c.Labels[start+t-1])
		e.ws.EdgeAt(edge, lat, t)
		for p := 0; p < L; p++ {
			for q := 0; q < L; q++ {
				g[m.Layout.TransIndex(p, q)] += edge[p*L+q]
			}
		}
		g[m.Layout.TransIndex(yp, y)]--
		pc, pv := c.Pair.Row(start + t)
		for k, a := range pc {
			v := 1.0
			if pv != nil {
				v = pv[k]
			}
			for p := 0; p < L; p++ {
				for q := 0; q < L; q++ {
					g[m.Layout.PairIndex(int(a), p, q)] += v * edge[p*L+q]
				}
			}
			g[m.Layout.PairIndex(int(a), yp, y)] -= v
		}
	}
	return g
}

// TestSGDLazyMatchesEager: the lazy bookkeeping (scale, cumulative
// penalty in the units of v, penalties caught up on visit, rescales)
// gives the weights and per-step losses of the eager O(d) steps, on a
// tiny problem with real values, pair attributes and frozen features.
func TestSGDLazyMatchesEager(t *testing.T) {
	m, c := sgdProblem(t, 13, 10, 6, 2, 3, true)
	l1, l2 := 0.05, 0.04
	frozen := sparse.NewBitset(len(m.W))
	for _, j := range []int{0, 1, 2, 7, m.Layout.TransIndex(1, 2), m.Layout.PairIndex(1, 0, 0)} {
		frozen.Set(j) // attribute 0 whole (dead), parts of others
	}
	var free []int32
	for j := range len(m.W) {
		if !frozen.Has(j) {
			free = append(free, int32(j))
		}
	}
	lazy := newSGD(m, c, l1, l2, frozen, free)
	lazy.minScale = 0.97 // rescale every few steps
	eager := &eagerSGD{m: m, c: c, l1: l1, l2: l2, frozen: frozen, w: make([]float64, len(m.W)), q: make([]float64, len(m.W)),
		ws: inference.NewWorkspace(c.MaxLen(), m.NumLabels())}
	rng := rand.New(rand.NewPCG(1, 2))
	rescales := 0
	for k := 0; k < 60; k++ {
		i, eta := rng.IntN(c.Len()), 0.8/(1+float64(k)/float64(c.Len()))
		before := lazy.a
		got, want := lazy.step(i, -1, eta), eager.step(i, eta)
		if before != 1 && lazy.a == 1-min(eta*l2, sgdMaxL2Shrink) {
			rescales++ // the scale was folded into v (a = 1) before this step's shrink
		}
		approxScalar(t, "NLL", want, got, 1e-12, 1e-10)
	}
	if rescales == 0 {
		t.Fatal("no rescale happened: the test does not cover it")
	}
	p := lazy.weights()
	w := make([]float64, len(m.W))
	sparse.Scatter(w, p.Val, p.Idx)
	nz := 0
	for j := range w {
		if frozen.Has(j) && w[j] != 0 {
			t.Fatalf("frozen feature %d has weight %v", j, w[j])
		}
		if eager.w[j] != 0 {
			nz++
		}
	}
	if nz == 0 || nz == len(w)-frozen.Count() {
		t.Fatalf("%d non-zero weights of %d: the penalty's clipping is not exercised", nz, len(w))
	}
	approxEqual(t, "weights", eager.w, w, 1e-12, 1e-9)
}

// sgdProblem returns a model layout and a random corpus with pair
// attributes (so that every block of the layout takes part).
func sgdProblem(t testing.TB, seed uint64, n, numAttr, numPair, L int, real bool) (*chain.Model, *sparse.Corpus) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	c := chaintest.RandomCorpus(rng, n, 6, numAttr, numPair, L, real)
	m, err := chain.NewModel(chaintest.LabelNames(L), numAttr, numPair, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	return m, c
}

// TestSGDWeightedMatchesEager: with sequence weights, the lazy steps give
// the per-step weighted losses s_i NLL_i and the weights of the eager
// reference whose step i moves by eta s_i grad NLL_i (the weighted
// objective's sample term), and differ from the unweighted run.
func TestSGDWeightedMatchesEager(t *testing.T) {
	m, c := sgdProblem(t, 36, 10, 6, 2, 3, true)
	l1, l2 := 0.03, 0.04
	rng := rand.New(rand.NewPCG(36, 2))
	weight := make([]float64, c.Len())
	for i := range weight {
		weight[i] = 0.2 + 3*rng.Float64()
	}
	free := make([]int32, len(m.W))
	for j := range free {
		free[j] = int32(j)
	}
	lazy := newSGD(m, c, l1, l2, nil, free)
	lazy.weight = weight
	plain := newSGD(m, c, l1, l2, nil, free)
	eager := &eagerSGD{m: m, c: c, l1: l1, l2: l2, weight: weight, w: make([]float64, len(m.W)), q: make([]float64, len(m.W)),
		ws: inference.NewWorkspace(c.MaxLen(), m.NumLabels())}
	for k := 0; k < 40; k++ {
		i, eta := rng.IntN(c.Len()), 0.5/(1+float64(k)/float64(c.Len()))
		got, want := lazy.step(i, -1, eta), eager.step(i, eta)
		plain.step(i, -1, eta)
		approxScalar(t, "weighted NLL", want, got, 1e-12, 1e-10)
	}
	p := lazy.weights()
	w := make([]float64, len(m.W))
	sparse.Scatter(w, p.Val, p.Idx)
	approxEqual(t, "weights", eager.w, w, 1e-12, 1e-9)
	q := plain.weights()
	u := make([]float64, len(m.W))
	sparse.Scatter(u, q.Val, q.Idx)
	diff := 0.0
	for j := range u {
		diff = math.Max(diff, math.Abs(u[j]-w[j]))
	}
	if diff < 1e-3 {
		t.Fatalf("the weights changed the warm start by %v only", diff)
	}
}
