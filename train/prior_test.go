package train

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/sparse"
	"github.com/sparsetag/sparsetag/train/internal/traintest"
)

// priorProblem is a tiny random chain problem (enumerable) with a random
// prior w0 of the model's layout.
func priorProblem(rng *rand.Rand, trial int) (*sparse.Corpus, func() *chain.Model, []float64) {
	L := 2 + trial%2
	real := trial%3 == 2
	numPair := 0
	if trial%2 == 1 {
		numPair = 2
	}
	c := rareCorpus(rng, 12, 4, 12, numPair, L, real)
	newModel := func() *chain.Model {
		m, err := chain.NewModel(labelNames(L), c.NumUnary, numPair, true, nil)
		if err != nil {
			panic(err)
		}
		return m
	}
	w0 := make([]float64, len(newModel().W))
	for j := range w0 {
		if rng.IntN(2) == 0 { // a sparse old model, as L1 makes them
			w0[j] = rng.NormFloat64()
		}
	}
	return c, newModel, w0
}

// primalPrior is P(v) = NLL(w0 + v) + l1 ||v||_1 + l2/2 ||v||^2 by
// enumeration, for the full solution w = w0 + v.
func primalPrior(m *chain.Model, w, w0 []float64, c *sparse.Corpus, l1, l2 float64) float64 {
	p := traintest.NLL(m, w, c)
	for j := range w {
		v := w[j] - w0[j]
		p += l1*math.Abs(v) + l2/2*v*v
	}
	return p
}

// TestPriorCertifiedGap trains with a prior (docs/prior.md) on tiny random
// chains, with each solver and with and without screening, at a loose
// gap, and checks against a solve to 1e-12 without screening:
//
//   - the brute-force primal of the tight solution is its reported one, and
//     the loose run's true suboptimality (by enumeration) is at most its
//     certified gap;
//   - both solutions lie within the certified radius sqrt(2G/l2) of each
//     other (screened == unscreened within the gap bound);
//   - every feature the screened run removed keeps w_j = w0_j exactly, and
//     the tight unscreened solution has |w_j - w0_j| within its radius.
func TestPriorCertifiedGap(t *testing.T) {
	if testing.Short() {
		t.Skip("trains to a gap of 1e-12")
	}
	rng := rand.New(rand.NewPCG(38, 1))
	screened, moved := 0, 0
	for trial := 0; trial < 4; trial++ {
		c, newModel, w0 := priorProblem(rng, trial)
		for _, c1 := range []float64{0.3, 1, 3} {
			pb := Problem{SumForm: true, C1: c1, C2: 0.2, Prior: w0}
			tight := newModel()
			rt, err := Train(context.Background(), tight, c, keepWorkingSet(Options{Problem: pb,
				Stopping: Stopping{Epsilon: 1e-12, MaxIter: 20000}, Method: Method{Screen: ScreenNone}, Resources: Resources{Threads: 1}}))
			if err != nil {
				t.Fatal(err)
			}
			if !rt.Converged {
				t.Fatalf("trial %d c1 %v: tight solve not converged (%s, gap %v)", trial, c1, rt.StopReason, rt.Gap)
			}
			pstar := primalPrior(tight, tight.W, w0, c, rt.Beta, rt.Lambda2)
			approxScalar(t, "tight primal", pstar, rt.Primal, 1e-9, 1e-9)
			radT := math.Sqrt(2 * rt.Gap / rt.Lambda2)
			for j := range tight.W {
				if tight.W[j] != w0[j] {
					moved++
				}
			}
			for _, meth := range []Method{{Solver: SolverWorkingSet}, {Solver: SolverFull}, {Solver: SolverFull, Screen: ScreenNone}} {
				m := newModel()
				res, err := Train(context.Background(), m, c, keepWorkingSet(Options{Problem: pb,
					Stopping: Stopping{Epsilon: 1e-4}, Method: meth, Resources: Resources{Threads: 1}}))
				if err != nil {
					t.Fatal(err)
				}
				p := primalPrior(m, m.W, w0, c, res.Beta, res.Lambda2)
				approxScalar(t, "primal", p, res.Primal, 1e-9, 1e-9)
				if sub := p - pstar; sub > res.Gap*(1+1e-9)+1e-12 {
					t.Fatalf("trial %d c1 %v %v: suboptimality %v above the certified gap %v", trial, c1, meth, sub, res.Gap)
				}
				rad := math.Sqrt(2*res.Gap/res.Lambda2) + radT
				dist := 0.0
				for j := range m.W {
					d := m.W[j] - tight.W[j]
					dist += d * d
				}
				if math.Sqrt(dist) > rad*(1+1e-9)+1e-12 {
					t.Fatalf("trial %d c1 %v %v: distance %v to the tight solution above the certified radius %v", trial, c1, meth, math.Sqrt(dist), rad)
				}
				for j := range m.W {
					if !res.ScreenedSet.Has(j) {
						continue
					}
					screened++
					if m.W[j] != w0[j] || math.Abs(tight.W[j]-w0[j]) > radT {
						t.Fatalf("trial %d c1 %v %v: feature %d screened, but w = %v, tight %v, prior %v", trial, c1, meth, j, m.W[j], tight.W[j], w0[j])
					}
				}
			}
		}
	}
	t.Logf("%d screened decisions checked, %d weights moved from the prior", screened, moved)
	if screened == 0 || moved == 0 {
		t.Fatalf("vacuous: %d screened, %d moved", screened, moved)
	}
}

// TestPriorZeroIsColdStart: a zero prior trains the same bits as a cold
// start without one.
func TestPriorZeroIsColdStart(t *testing.T) {
	rng := rand.New(rand.NewPCG(38, 2))
	c, newModel, w0 := priorProblem(rng, 1)
	clear(w0)
	a, b := newModel(), newModel()
	pb := Problem{SumForm: true, C1: 0.5, C2: 0.2}
	if _, err := Train(context.Background(), a, c, Options{Problem: pb, Method: Method{ColdStart: true}}); err != nil {
		t.Fatal(err)
	}
	if _, err := Train(context.Background(), b, c, Options{Problem: Problem{SumForm: true, C1: 0.5, C2: 0.2, Prior: w0}}); err != nil {
		t.Fatal(err)
	}
	for j := range a.W {
		if a.W[j] != b.W[j] {
			t.Fatalf("w[%d] = %v cold, %v with a zero prior", j, a.W[j], b.W[j])
		}
	}
}

// TestPriorRefused: what a prior does not take is refused with a message.
func TestPriorRefused(t *testing.T) {
	rng := rand.New(rand.NewPCG(38, 3))
	c, newModel, w0 := priorProblem(rng, 0)
	m := newModel()
	for _, tc := range []struct {
		op   Options
		want string
	}{
		{Options{Problem: Problem{Prior: w0}, Method: Method{Init: w0}}, "Init and Prior"},
		{Options{Problem: Problem{Prior: w0}, Method: Method{Screen: ScreenPaper}}, "not proven with a prior"},
		{Options{Problem: Problem{Prior: w0[1:]}}, "prior weights have length"},
	} {
		_, err := Train(context.Background(), m, c, tc.op)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("got %v, want an error with %q", err, tc.want)
		}
	}
}
