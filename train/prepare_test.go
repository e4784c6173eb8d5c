package train

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/sparsetag/sparsetag/chain"
)

// TestBetaMaxBesideWarmStart checks the schedule of prepare.go: with
// several threads a sum-form Train computes beta_max on a second objective
// beside the warm start, and the result (beta_max, every weight) is the
// one thread's bit for bit, with and without sequence weights (which the
// second objective must be given too).
func TestBetaMaxBesideWarmStart(t *testing.T) {
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

// TestBetaMaxLater checks that the schedule is taken: with 2 threads the
// sum form's setup leaves the pass running and beta_max unset until the
// join, which sets the one thread's value; a path (not single) and the
// paper form compute it at once.
func TestBetaMaxLater(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	c := randomCorpus(rng, 80, 5, 8, 0, 3, false)
	m, err := chain.NewModel(labelNames(3), 8, c.NumPair, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	sum := Problem{C1: 1, C2: 1}
	ref, err := setup(context.Background(), m, c, Options{Problem: sum, Resources: Resources{Threads: 1}}, true)
	if err != nil || ref.later != nil || !(ref.betaMax > 0) {
		t.Fatalf("1 thread: err %v, later %v, beta_max %v", err, ref.later, ref.betaMax)
	}
	tr, err := setup(context.Background(), m, c, Options{Problem: sum, Resources: Resources{Threads: 2}}, true)
	if err != nil || tr.later == nil || tr.betaMax != 0 {
		t.Fatalf("2 threads: err %v, later %v, beta_max %v before the join", err, tr.later, tr.betaMax)
	}
	if err := tr.later.join(&tr.betaMax); err != nil || tr.betaMax != ref.betaMax || !tr.later.joined {
		t.Fatalf("join: err %v, beta_max %v, want %v", err, tr.betaMax, ref.betaMax)
	}
	for name, op := range map[string]Options{
		"path":  {Problem: sum, Resources: Resources{Threads: 2}},
		"paper": {Problem: Problem{BetaRatio: 0.2}, Resources: Resources{Threads: 2}},
	} {
		tr, err := setup(context.Background(), m, c, op, name == "paper")
		if err != nil || tr.later != nil || !(tr.betaMax > 0) {
			t.Fatalf("%s: err %v, later %v, beta_max %v", name, err, tr.later, tr.betaMax)
		}
	}
}

// TestBetaMaxLaterCancelled: a cancelled run with the beta_max pass in the
// background returns the context's error (the pass is joined, not left
// running).
func TestBetaMaxLaterCancelled(t *testing.T) {
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
