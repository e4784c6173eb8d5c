package train

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/sparse"
)

// TestPriorPath solves a path with a prior (docs/prior.md section 8) and
// checks, at every beta, against an independent unscreened solve with the
// same prior and penalty (Train):
//
//   - beta_max is ||m(w0)||_inf: at the first beta (beta_max) every weight
//     keeps its prior value exactly, and at the next one some weight moves
//     (v = 0 is optimal exactly when beta >= ||m(w0)||_inf);
//   - the warm-started, screened path solution lies within the certified
//     radius of the independent one, and a feature the path screened keeps
//     w_j = w0_j;
//   - the model holds the last solution, the solve's own w0 + v.
func TestPriorPath(t *testing.T) {
	rng := rand.New(rand.NewPCG(38, 4))
	for trial := 0; trial < 2; trial++ {
		c, newModel, w0 := priorProblem(rng, trial)
		for _, solver := range []Solver{SolverWorkingSet, SolverFull} {
			m := newModel()
			op := Options{Problem: Problem{SumForm: true, C1: 1, C2: 0.5, Prior: w0}, Stopping: Stopping{Epsilon: 1e-9},
				Method: Method{Solver: solver}, Resources: Resources{Threads: 1}}
			var last []float64
			moved, screened := 0, 0
			_, err := Path(context.Background(), m, c, keepWorkingSet(op), PathOptions{K: 6, MinRatio: 0.01},
				func(k int, res *Result, w []float64) error {
					last = append(last[:0], w...)
					moved = priorPathStep(t, k, res, w, w0, c, newModel)
					if k > 0 {
						screened += res.Screened
					}
					return nil
				})
			if err != nil {
				t.Fatal(err)
			}
			if moved == 0 || screened == 0 {
				t.Fatalf("trial %d %s: vacuous: %d weights moved from the prior at the smallest beta, %d screened below beta_max", trial, solver, moved, screened)
			}
			for j := range m.W {
				if m.W[j] != last[j] {
					t.Fatalf("trial %d %s: model w[%d] = %v, last solution %v", trial, solver, j, m.W[j], last[j])
				}
			}
		}
	}
}

// priorPathStep checks the path solution w at beta k against Train at its
// penalty and returns how many weights left their prior value.
func priorPathStep(t *testing.T, k int, res *Result, w, w0 []float64, c *sparse.Corpus, newModel func() *chain.Model) int {
	t.Helper()
	moved := 0
	for j := range w {
		if w[j] != w0[j] {
			moved++
		}
	}
	switch {
	case k == 0 && (moved > 0 || res.Beta != res.BetaMax):
		t.Fatalf("beta_max %v (beta %v): %d weights moved from the prior", res.BetaMax, res.Beta, moved)
	case k == 1 && moved == 0:
		t.Fatalf("beta %v below beta_max %v: no weight moved, so beta_max is not ||m(w0)||_inf", res.Beta, res.BetaMax)
	}
	ref := newModel()
	rr, err := Train(context.Background(), ref, c, keepWorkingSet(Options{Problem: Problem{Beta: res.Beta, Alpha: res.Alpha, Prior: w0},
		Stopping: Stopping{Epsilon: 1e-13, MaxIter: 20000}, Method: Method{Screen: ScreenNone}, Resources: Resources{Threads: 1}}))
	if err != nil {
		t.Fatal(err)
	}
	radRef := math.Sqrt(2 * rr.Gap / rr.Lambda2)
	dist := 0.0
	for j := range w {
		dist += (w[j] - ref.W[j]) * (w[j] - ref.W[j])
		if res.ScreenedSet != nil && res.ScreenedSet.Has(j) && (w[j] != w0[j] || math.Abs(ref.W[j]-w0[j]) > radRef) {
			t.Fatalf("beta %d: feature %d screened, but w = %v, independent %v, prior %v", k, j, w[j], ref.W[j], w0[j])
		}
	}
	if rad := math.Sqrt(2*res.Gap/res.Lambda2) + radRef; math.Sqrt(dist) > rad*(1+1e-9)+1e-12 {
		t.Fatalf("beta %d: distance %v to the independent solve above the certified radius %v", k, math.Sqrt(dist), rad)
	}
	return moved
}

// TestPriorPathPatience: with a prior the path starts at the old model,
// which may score best; patience counts from there, so a score that only
// falls stops the path after Patience betas (without a prior the rule waits
// for the score to rise above the trivial model's first, see peak.Peak).
func TestPriorPathPatience(t *testing.T) {
	rng := rand.New(rand.NewPCG(38, 5))
	c, newModel, w0 := priorProblem(rng, 0)
	for _, prior := range []bool{true, false} {
		op := Options{Problem: Problem{SumForm: true, C1: 1, C2: 0.5}, Resources: Resources{Threads: 1}}
		if prior {
			op.Prior = w0
		}
		n := 0
		falling := func([]float64) (float64, error) { n++; return -float64(n), nil }
		res, err := Path(context.Background(), newModel(), c, op, PathOptions{K: 6, MinRatio: 0.01, Score: falling, Patience: 2}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if want := map[bool]int{true: 3, false: 6}[prior]; len(res) != want {
			t.Errorf("prior %v: the path solved %d betas, want %d", prior, len(res), want)
		}
	}
}
