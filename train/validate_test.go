package train

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/internal/chaintest"
)

// TestOptionsValidate: Validate refuses each option that makes no sense
// whatever the data, naming it, and accepts the zero Options (the
// defaults) and DefaultOptions.
func TestOptionsValidate(t *testing.T) {
	for _, c := range []struct {
		name string
		op   Options
		want string
	}{
		{"negative c1", Options{Problem: Problem{SumForm: true, C1: -5, C2: 1}}, "c1 = -5"},
		{"zero c2 with screening", Options{Problem: Problem{SumForm: true, C1: 1}, Method: Method{Screen: ScreenPinsker}}, "derived with an L2 term"},
		{"negative epsilon", Options{Stopping: Stopping{Epsilon: -1}}, "epsilon = -1"},
		{"NaN beta", Options{Problem: Problem{Beta: math.NaN()}}, "beta = NaN"},
		{"infinite alpha", Options{Problem: Problem{Alpha: math.Inf(1)}}, "alpha = +Inf"},
		{"negative delta", Options{Stopping: Stopping{Delta: -0.1}}, "delta = -0.1"},
		{"negative gamma", Options{Method: Method{Gamma: -1}}, "gamma = -1"},
		{"negative max-iter", Options{Stopping: Stopping{MaxIter: -1}}, "max-iter"},
		{"negative threads", Options{Resources: Resources{Threads: -2}}, "threads"},
		{"unknown solver", Options{Method: Method{Solver: "newton"}}, `unknown solver "newton"`},
		{"unknown screen", Options{Method: Method{Screen: "euclid"}}, `unknown screening rule "euclid"`},
		{"negative warm epochs", Options{Method: Method{WarmEpochs: -1}}, "set ColdStart"},
		{"both forms", Options{Problem: Problem{C1: 1, C2: 1, BetaRatio: 0.01}}, "both forms"},
		{"both forms, SumForm", Options{Problem: Problem{SumForm: true, C1: 1, C2: 1, Alpha: 2}}, "both forms"},
		{"ratio at beta_max", Options{Problem: Problem{BetaRatio: 1}}, "at or above beta_max"},
		{"ratio above beta_max", Options{Problem: Problem{BetaRatio: 5}}, "beta ratio 5"},
		{"absurd c1", Options{Problem: Problem{C1: 1e300, C2: 1}}, "c1 = 1e+300 is absurd"},
		{"absurd c2", Options{Problem: Problem{C1: 1, C2: 1e13}}, "c2 = 1e+13 is absurd"},
		{"absurd beta", Options{Problem: Problem{Beta: 1e15}}, "beta = 1e+15 is absurd"},
	} {
		err := c.op.Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Validate() = %v, want an error with %q", c.name, err, c.want)
		}
	}
	if err := (Options{}).Validate(); err != nil {
		t.Errorf("zero Options: %v", err)
	}
	if err := DefaultOptions().Validate(); err != nil {
		t.Errorf("DefaultOptions: %v", err)
	}
}

// TestDefaultPenalty: the zero Options and C1, C2 given without SumForm
// train the sum form at exactly those penalties (beta = C1/n, alpha beta =
// 2 C2/n); the paper's form is used only when asked for.
func TestDefaultPenalty(t *testing.T) {
	enc, c, labels, err := chaintest.EncodeToy()
	if err != nil {
		t.Fatal(err)
	}
	n := float64(c.Len())
	for _, tc := range []struct {
		name       string
		op         Options
		lam1, lam2 float64 // 0: a fraction of beta_max, checked below
	}{
		{"zero", Options{}, DefaultC1 / n, 2 * DefaultC2 / n},
		{"c1 c2 without SumForm", Options{Problem: Problem{C1: 0.5, C2: 2}}, 0.5 / n, 4 / n},
		{"c2 alone", Options{Problem: Problem{C2: 3}}, 0, 6 / n},
		{"paper form", Options{Problem: Problem{BetaRatio: 0.05, Alpha: 2}}, 0, 0},
	} {
		m, err := chain.NewModel(labels, enc.Unary().Len(), enc.Pair().Len(), enc.HasTransitions(), enc)
		if err != nil {
			t.Fatal(err)
		}
		tc.op.Epsilon = 1e-6
		res, err := Train(context.Background(), m, c, tc.op)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if tc.name == "paper form" {
			tc.lam1, tc.lam2 = 0.05*res.BetaMax, 2*0.05*res.BetaMax
		}
		if res.Beta != tc.lam1 || math.Abs(res.Lambda2-tc.lam2) > 1e-15*tc.lam2 {
			t.Errorf("%s: trained at lambda1 %v, lambda2 %v; want %v, %v", tc.name, res.Beta, res.Lambda2, tc.lam1, tc.lam2)
		}
		if len(res.Warnings) != 0 {
			t.Errorf("%s: warnings %q on a sound penalty", tc.name, res.Warnings)
		}
	}
}

// TestPenaltyWarnings: a penalty at or above beta_max (every weight zero)
// and one that leaves no state weight are each said, with what to try.
func TestPenaltyWarnings(t *testing.T) {
	enc, c, labels, err := chaintest.EncodeToy()
	if err != nil {
		t.Fatal(err)
	}
	train := func(op Options) (*chain.Model, *Result) {
		m, err := chain.NewModel(labels, enc.Unary().Len(), enc.Pair().Len(), enc.HasTransitions(), enc)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Train(context.Background(), m, c, op)
		if err != nil {
			t.Fatal(err)
		}
		return m, res
	}
	m, res := train(Options{Problem: Problem{C1: 1e9, C2: 1}})
	if m.NonZero() != 0 || len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "at or above beta_max") {
		t.Errorf("c1 = 1e9: %d non-zero, warnings %q; want none and a beta_max warning", m.NonZero(), res.Warnings)
	}
	// Just below beta_max only the features of the largest |m_j(0)| can
	// move; if none of them is a state weight, the model ignores its input.
	m, res = train(Options{Problem: Problem{BetaRatio: 0.999}, Stopping: Stopping{Epsilon: 1e-9}})
	hasState := slices.ContainsFunc(m.State, func(v float64) bool { return v != 0 })
	warned := len(res.Warnings) == 1 && strings.Contains(res.Warnings[0], "no state weight is non-zero")
	if hasState == warned {
		t.Errorf("beta ratio 0.999: state weights non-zero %v, warnings %q", hasState, res.Warnings)
	}
	m, res = train(Options{Problem: Problem{C1: 1e9, C2: 1}})
	m.State[0] = 1 // warnings reads the model: a state weight silences the second warning only
	if w := warnings(m, res, c.Len()); len(w) != 1 || !strings.Contains(w[0], "beta_max") {
		t.Errorf("warnings = %q", w)
	}
	res.Beta = res.BetaMax / 2
	if w := warnings(m, res, c.Len()); len(w) != 0 {
		t.Errorf("a state weight and beta < beta_max: warnings %q", w)
	}
	m.State[0] = 0
	if w := warnings(m, res, c.Len()); len(w) != 1 || !strings.Contains(w[0], "no state weight") {
		t.Errorf("no state weight: warnings %q", w)
	}
}

// TestMemoryLimitMessage: a run over the limit is refused with both sizes
// in readable units (not "0 MiB" for a small limit), and the working-set
// solver is suggested only when it is not already running.
func TestMemoryLimitMessage(t *testing.T) {
	enc, c, labels, err := chaintest.EncodeToy()
	if err != nil {
		t.Fatal(err)
	}
	m, err := chain.NewModel(labels, enc.Unary().Len(), enc.Pair().Len(), enc.HasTransitions(), enc)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		solver  Solver
		suggest bool
	}{{"", false}, {SolverWorkingSet, false}, {SolverFull, true}} {
		_, err := Train(context.Background(), m, c, Options{Method: Method{Solver: tc.solver}, Resources: Resources{MemoryLimit: 1000}})
		if err == nil || !strings.Contains(err.Error(), "more than the memory limit 1000 B") ||
			strings.Contains(err.Error(), "the working-set solver") != tc.suggest {
			t.Errorf("solver %q: %v", tc.solver, err)
		}
	}
	for b, want := range map[int64]string{1000: "1000 B", 1024: "1.0 KiB", 374 << 20: "374.0 MiB", 3 << 30: "3.0 GiB"} {
		if got := bytesString(b); got != want {
			t.Errorf("bytesString(%d) = %q, want %q", b, got, want)
		}
	}
}
