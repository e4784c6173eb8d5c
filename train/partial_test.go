package train

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/sparse"
)

// partialProblem is a random chain corpus with the labels of a third of
// its positions hidden (every label allowed) and of another third a set
// of two labels.
func partialProblem(rng *rand.Rand) (*sparse.Corpus, *LabelSets, func() *chain.Model) {
	const L = 3
	c := rareCorpus(rng, 30, 5, 10, 0, L, false)
	s := NewLabelSets(c.Positions(), L)
	for p := range c.Positions() {
		y := int(c.Labels[p])
		switch rng.IntN(3) {
		case 0:
			s.Allow(p, y)
		case 1:
			s.AllowAll(p)
		default:
			s.Allow(p, y)
			s.Allow(p, (y+1)%L)
		}
	}
	return c, s, func() *chain.Model {
		m, err := chain.NewModel(labelNames(L), c.NumUnary, 0, true, nil)
		if err != nil {
			panic(err)
		}
		return m
	}
}

// TestPartialTrain: training on partial labels is deterministic (the same
// bits twice and for any number of threads), stops on the Delta rule,
// lowers the objective from its start at zero, and runs the full solver
// without screening.
func TestPartialTrain(t *testing.T) {
	rng := rand.New(rand.NewPCG(38, 4))
	c, s, newModel := partialProblem(rng)
	var ws [][]float64
	for _, threads := range []int{1, 1, 2} {
		m := newModel()
		res, err := Train(context.Background(), m, c, Options{Problem: Problem{C1: 0.1, C2: 0.1, Allowed: s},
			Resources: Resources{Threads: threads}})
		if err != nil {
			t.Fatal(err)
		}
		if res.StopReason != StopDelta || res.Solver != SolverFull || res.Screen != ScreenNone || res.Screened != 0 {
			t.Fatalf("stop %s, solver %s, screen %s, %d screened: want the Delta rule, the full solver, no screening", res.StopReason, res.Solver, res.Screen, res.Screened)
		}
		if first, last := res.Iterations[0].Primal, res.Primal; !(last < first) {
			t.Fatalf("objective %v at the end, %v at zero", last, first)
		}
		ws = append(ws, m.W)
	}
	for k := 1; k < len(ws); k++ {
		for j := range ws[0] {
			if ws[k][j] != ws[0][j] {
				t.Fatalf("run %d: w[%d] = %v, run 0: %v (not deterministic)", k, j, ws[k][j], ws[0][j])
			}
		}
	}
}

// TestPartialRefused: a gap target, a screening rule, the working set, a
// certificate and Path are refused with partial labels, with a message
// that says why.
func TestPartialRefused(t *testing.T) {
	rng := rand.New(rand.NewPCG(38, 5))
	c, s, newModel := partialProblem(rng)
	for _, op := range []Options{
		{Stopping: Stopping{RelEpsilon: 1e-3}},
		{Stopping: Stopping{Epsilon: 1e-6}},
		{Method: Method{Screen: ScreenPinsker}},
		{Method: Method{Solver: SolverWorkingSet}},
		{Method: Method{Certificate: CertificateMixture}},
	} {
		op.Allowed = s
		_, err := Train(context.Background(), newModel(), c, op)
		if err == nil || !strings.Contains(err.Error(), "non-convex") {
			t.Errorf("%+v: got %v, want a refusal that says the objective is non-convex", op.Method, err)
		}
	}
	if _, err := Path(context.Background(), newModel(), c, Options{Problem: Problem{Allowed: s}}, PathOptions{K: 3}, nil); err == nil {
		t.Error("Path with partial labels: no error")
	}
}
