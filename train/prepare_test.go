package train

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/sparsetag/sparsetag/chain"
)

// TestBetaMaxAcrossThreads: a sum-form Train (beta_max from counts, Rnorm
// beside the range rule) gives the one thread's result (beta_max, every
// weight) bit for bit at 2 and 3 threads, with and without sequence
// weights.
func TestBetaMaxAcrossThreads(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	c := randomCorpus(rng, 120, 6, 10, 0, 4, false)
	weights := make([]float64, c.Len())
	for i := range weights {
		weights[i] = 0.25 + 2*rng.Float64()
	}
	for _, w := range [][]float64{nil, weights} {
		var refW []float64
		var refBeta float64
		for _, threads := range []int{1, 2, 3} {
			op := Options{Problem: Problem{C1: 0.5, C2: 0.5, Weights: w}, Stopping: Stopping{MaxIter: 30}, Resources: Resources{Threads: threads}}
			m, res := trainTiny(t, c, 4, 10, op)
			if !(res.BetaMax > 0) || res.Warm == nil {
				t.Fatalf("threads %d: beta_max %v, warm start %v", threads, res.BetaMax, res.Warm)
			}
			if refW == nil {
				refW, refBeta = m.W, res.BetaMax
				continue
			}
			if math.Float64bits(res.BetaMax) != math.Float64bits(refBeta) {
				t.Fatalf("weighted %v, threads %d: beta_max %v, 1 thread %v", w != nil, threads, res.BetaMax, refBeta)
			}
			for j := range refW {
				if math.Float64bits(refW[j]) != math.Float64bits(m.W[j]) {
					t.Fatalf("weighted %v, threads %d: weight %d = %v, 1 thread %v", w != nil, threads, j, m.W[j], refW[j])
				}
			}
		}
	}
}

// TestBetaMaxSchedule checks which way prepare takes to beta_max: from
// counts in the sum form, at 1 and 2 threads, agreeing with the pass to
// 1e-12 relative; from the pass, bit for bit, in the paper form (whose
// penalty is a fraction of it) and in the sum form with a prior (the model
// at w = 0 is not uniform).
func TestBetaMaxSchedule(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	c := randomCorpus(rng, 80, 5, 8, 0, 3, true)
	m, err := chain.NewModel(labelNames(3), 8, c.NumPair, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	pass := func(op Options) float64 {
		tr, err := setup(ctx, m, c, op)
		if err != nil {
			t.Fatal(err)
		}
		if err := tr.computeBetaMax(ctx); err != nil {
			t.Fatal(err)
		}
		return tr.betaMax
	}
	sum := Problem{C1: 1, C2: 1}
	prior := make([]float64, len(m.W))
	prior[1] = 0.3
	for _, tc := range []struct {
		name    string
		op      Options
		counted bool
	}{
		{"sum, 1 thread", Options{Problem: sum, Resources: Resources{Threads: 1}}, true},
		{"sum, 2 threads", Options{Problem: sum, Resources: Resources{Threads: 2}}, true},
		{"paper, 1 thread", Options{Problem: Problem{BetaRatio: 0.2}, Resources: Resources{Threads: 1}}, false},
		{"paper, 2 threads", Options{Problem: Problem{BetaRatio: 0.2}, Resources: Resources{Threads: 2}}, false},
		{"sum, prior", Options{Problem: Problem{C1: 1, C2: 1, Prior: prior}, Resources: Resources{Threads: 2}}, false},
	} {
		tr, err := setup(ctx, m, c, tc.op)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if _, got := countedBetaMax(tr.obj, tr.op); got != tc.counted {
			t.Fatalf("%s: from counts %v, want %v", tc.name, got, tc.counted)
		}
		want := pass(tc.op)
		switch {
		case !(want > 0):
			t.Fatalf("%s: the pass's beta_max %v", tc.name, want)
		case tc.counted && math.Abs(tr.betaMax-want) > 1e-12*want:
			t.Fatalf("%s: beta_max %v, the pass %v", tc.name, tr.betaMax, want)
		case !tc.counted && math.Float64bits(tr.betaMax) != math.Float64bits(want):
			t.Fatalf("%s: beta_max %v, the pass %v (bits)", tc.name, tr.betaMax, want)
		}
	}
}

// TestSetupCancelled: a run cancelled before it starts returns the
// context's error (beta_max from counts does not look at the context; the
// warm start does).
func TestSetupCancelled(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	c := randomCorpus(rng, 60, 5, 8, 0, 3, false)
	m, err := chain.NewModel(labelNames(3), 8, c.NumPair, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = Train(ctx, m, c, Options{Problem: Problem{C1: 1, C2: 1}, Resources: Resources{Threads: 2}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
}

// TestRnormMin: setup's per-attribute Rnorm table holds the full
// vector's values, and the smallest Rnorm over the feature set
// (rnormTable.min) is the minimum over every feature of the set, for
// compressed and full tables, on sets with whole attributes, single labels and none of an
// attribute's features (whose value must then not count).
func TestRnormMin(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	c := randomCorpus(rng, 40, 5, 8, 2, 3, true)
	m, err := chain.NewModel(labelNames(3), 8, c.NumPair, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := setup(context.Background(), m, c, Options{Problem: Problem{C1: 1, C2: 1}})
	if err != nil {
		t.Fatal(err)
	}
	r, err := featureRnorm(m, c, nil)
	if err != nil {
		t.Fatal(err)
	}
	full := &rnormTable{L: 3, stateLen: m.Layout.StateLen(), full: r}
	for j := range len(m.W) {
		// The per-attribute table setup made holds the full vector's values.
		if a, b := tr.rnorm.at(int32(j)), full.at(int32(j)); math.Float64bits(a) != math.Float64bits(b) {
			t.Fatalf("Rnorm of feature %d: %v, the full vector's %v", j, a, b)
		}
	}
	U := m.Layout.NumUnary
	for trial := range 200 + U {
		var set []int32
		for j := range len(m.W) {
			// Every feature but attribute trial-200's, or a random quarter.
			if (trial >= 200 && j/3 != trial-200) || rng.IntN(4) == 0 {
				set = append(set, int32(j))
			}
		}
		if trial%50 == 0 {
			set = set[:0]
		}
		tr.fs.SetAll(set)
		for _, tab := range []*rnormTable{tr.rnorm, full} {
			want := math.Inf(1)
			for _, j := range set {
				want = math.Min(want, tab.at(j))
			}
			if got := tab.min(tr.fs); got != want {
				t.Fatalf("trial %d (compressed %v): min %v, want %v", trial, tab.attr != nil, got, want)
			}
		}
	}
}
