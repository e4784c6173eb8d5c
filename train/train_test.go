package train

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/features"
	"github.com/sparsetag/sparsetag/sparse"
	"github.com/sparsetag/sparsetag/train/objective"
)

func trainTiny(t *testing.T, c *sparse.Corpus, L, numAttr int, op Options) (*chain.Model, *Result) {
	t.Helper()
	m, err := chain.NewModel(labelNames(L), numAttr, c.NumPair, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Train(context.Background(), m, c, op)
	if err != nil {
		t.Fatal(err)
	}
	return m, res
}

func TestTrainDeterministicAcrossThreads(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	c := randomCorpus(rng, 150, 6, 12, 0, 4, false)
	var ref []float64
	for _, threads := range []int{1, 2, 8} {
		m, _ := trainTiny(t, c, 4, 12, Options{Problem: Problem{BetaRatio: 0.2}, Stopping: Stopping{MaxIter: 60}, Resources: Resources{Threads: threads}})
		if ref == nil {
			ref = m.W
			continue
		}
		for j := range ref {
			if math.Float64bits(ref[j]) != math.Float64bits(m.W[j]) {
				t.Fatalf("threads=%d: weight %d = %v, with 1 thread %v", threads, j, m.W[j], ref[j])
			}
		}
	}
}

func TestTrainGapReachesEpsilon(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	c := randomCorpus(rng, 60, 5, 8, 0, 3, true)
	for _, rule := range []ScreenRule{ScreenNone, ScreenPinsker} {
		_, res := trainTiny(t, c, 3, 8, Options{Problem: Problem{BetaRatio: 0.3}, Stopping: Stopping{Epsilon: 1e-9}, Method: Method{Screen: rule}})
		if !res.Converged {
			t.Fatalf("%s: did not converge: %s after %d iterations, gap %g", rule, res.StopReason, len(res.Iterations), res.Gap)
		}
		for _, it := range res.Iterations {
			if !(it.Gap >= 0) {
				t.Fatalf("%s: iteration %d has gap %v", rule, it.Iter, it.Gap)
			}
		}
		first, last := res.Iterations[0].Gap, res.Gap
		if !(last <= 1e-9 && first > last) {
			t.Fatalf("%s: gap went from %g to %g", rule, first, last)
		}
	}
}

// TestScreenedEqualsUnscreened is the end-to-end identity: the screened
// model equals the unscreened one within the distance the final gaps imply,
// ||w - w*|| <= sqrt(2 G / (alpha beta)), and no feature that is non-zero in
// a tight unscreened solution was screened.
func TestScreenedEqualsUnscreened(t *testing.T) {
	for _, tc := range []struct {
		name string
		maxT int
		real bool
	}{{"chain", 6, false}, {"chain-real", 4, true}, {"multiclass", 1, true}} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(9, 10))
			c := randomCorpus(rng, 80, tc.maxT, 10, 0, 3, tc.real)
			for _, ratio := range []float64{0.9, 0.5, 0.2, 0.1} {
				const eps = 1e-10
				tight, rt := trainTiny(t, c, 3, 10, Options{Problem: Problem{BetaRatio: ratio}, Stopping: Stopping{Epsilon: 1e-13, MaxIter: 5000}, Method: Method{Screen: ScreenNone}})
				scr, rs := trainTiny(t, c, 3, 10, Options{Problem: Problem{BetaRatio: ratio}, Stopping: Stopping{Epsilon: eps, MaxIter: 5000}, Method: Method{Screen: ScreenPinsker}})
				if !rt.Converged || !rs.Converged {
					t.Fatalf("ratio %g: not converged (%s, %s)", ratio, rt.StopReason, rs.StopReason)
				}
				bound := math.Sqrt(2*rs.Gap/(rs.Alpha*rs.Beta)) + math.Sqrt(2*rt.Gap/(rt.Alpha*rt.Beta))
				dist := 0.0
				for j := range tight.W {
					d := tight.W[j] - scr.W[j]
					dist += d * d
				}
				dist = math.Sqrt(dist)
				if dist > bound {
					t.Fatalf("ratio %g: ||w_screened - w_unscreened|| = %g > bound %g", ratio, dist, bound)
				}
				if rs.Screened == 0 && ratio >= 0.5 {
					t.Errorf("ratio %g: nothing screened", ratio)
				}
				t.Logf("ratio %g: screened %d of %d, nonzero %d, dist %.2g (bound %.2g), iters %d vs %d",
					ratio, rs.Screened, rs.Dimension, rt.NonZero, dist, bound, len(rs.Iterations), len(rt.Iterations))
			}
		})
	}
}

func TestTrainOptionsValidation(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	c := randomCorpus(rng, 5, 3, 3, 0, 2, false)
	m, _ := chain.NewModel(labelNames(2), 3, 0, true, nil)
	for _, op := range []Options{
		{Problem: Problem{Alpha: math.NaN()}},
		{Problem: Problem{Beta: -1}},
		{Stopping: Stopping{Epsilon: math.Inf(1)}},
		{Problem: Problem{SumForm: true, C1: 1}, Method: Method{Screen: ScreenPinsker}}, // c2 = 0: no screening
		{Method: Method{Screen: "bogus"}},
		{Method: Method{Screen: ScreenPaper}}, // chains: refused
	} {
		if _, err := Train(context.Background(), m, c, op); err == nil {
			t.Errorf("options %+v: no error", op)
		}
	}
}

func TestTrainSumFormPureL2(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	c := randomCorpus(rng, 40, 4, 6, 0, 3, false)
	m, res := trainTiny(t, c, 3, 6, Options{Problem: Problem{SumForm: true, C1: 0, C2: 1}, Stopping: Stopping{Epsilon: 1e-10}, Method: Method{Screen: ScreenNone}})
	if !res.Converged {
		t.Fatalf("pure L2 did not converge: %s", res.StopReason)
	}
	// Optimality of sum_i NLL_i + C2 ||w||^2: grad = -n m + 2 C2 w = 0.
	o := objective.New(m, c, objective.Settings{Threads: 1})
	act := make([]int32, len(m.W))
	for j := range act {
		act[j] = int32(j)
	}
	o.SetActive(act, false)
	_, mv, err := o.Loss(context.Background(), m.W)
	if err != nil {
		t.Fatal(err)
	}
	n := float64(c.Len())
	for j := range mv {
		if g := -n*mv[j] + 2*m.W[j]; math.Abs(g) > 1e-3 {
			t.Fatalf("gradient %d = %g at the pure-L2 solution", j, g)
		}
	}
}

// TestCheckpointResumeSameModel interrupts training through a checkpoint
// (serialized and read back) and checks that resuming reaches the same
// model, bit for bit, as the uninterrupted run, with and without screening:
// the full policy (no screening), the working set, and a working set that
// became dense and handed over to the full policy before the checkpoint;
// at a small penalty (ratio 0.01) the gauge step moves at most passes, so
// the resumed run must redo it from the point before it (gauge.go), and
// the working set's mixture history must not take the checkpointed pass
// twice (its own pricing, and the resumed run's pricing of the same point).
func TestCheckpointResumeSameModel(t *testing.T) {
	for _, tc := range []struct {
		rule  ScreenRule
		dense float64
		attrs int     // 30: enough features for the mixture certificate
		ratio float64 // beta / beta_max
	}{{ScreenNone, defaultWSDenseFraction, 10, 0.2}, {ScreenPinsker, math.Inf(1), 10, 0.2}, {ScreenPinsker, defaultWSDenseFraction, 10, 0.2}, {ScreenPinsker, math.Inf(1), 30, 0.2},
		{ScreenNone, defaultWSDenseFraction, 10, 0.01}, {ScreenPinsker, math.Inf(1), 30, 0.01}} {
		rng := rand.New(rand.NewPCG(51, 52))
		c := randomCorpus(rng, 70, 5, tc.attrs, 0, 3, false)
		rule := tc.rule
		op := withTuning(Options{Problem: Problem{BetaRatio: tc.ratio}, Stopping: Stopping{Epsilon: 1e-10}, Method: Method{Screen: rule}, Hooks: Hooks{CheckpointEvery: 7}},
			func(tu *tuning) { tu.wsDenseFraction, tu.wsSwitchMin = tc.dense, 0 })
		var saves [][]byte // every checkpoint taken
		op.Checkpoint = func(ck *Checkpoint) error {
			var b bytes.Buffer
			if _, err := ck.WriteTo(&b); err != nil {
				return err
			}
			saves = append(saves, b.Bytes())
			return nil
		}
		full, resFull := trainTiny(t, c, 3, tc.attrs, op)
		if len(saves) < 2 {
			t.Fatalf("%s: %d checkpoints taken in %d iterations", rule, len(saves), len(resFull.Iterations))
		}
		t.Logf("%s, dense fraction %g: %s (%s), %d iterations, %d checkpoints", rule, tc.dense, resFull.Solver, resFull.SolverReason, resFull.NumIterations(), len(saves))
		op.Checkpoint = nil
		for _, saved := range saves {
			ck, err := ReadCheckpoint(bytes.NewReader(saved))
			if err != nil {
				t.Fatal(err)
			}
			op.Resume = ck
			resumed, resRes := trainTiny(t, c, 3, tc.attrs, op)
			at := ck.iterations[len(ck.iterations)-1].Iter
			if resRes.Solver != resFull.Solver || resRes.SolverReason != resFull.SolverReason {
				t.Fatalf("%s, resumed at %d: solver %s (%s), uninterrupted %s (%s)", rule, at, resRes.Solver, resRes.SolverReason, resFull.Solver, resFull.SolverReason)
			}
			if len(resRes.Iterations) != len(resFull.Iterations) {
				t.Fatalf("%s, resumed at %d: %d iterations, uninterrupted %d", rule, at, len(resRes.Iterations), len(resFull.Iterations))
			}
			for j := range full.W {
				if math.Float64bits(full.W[j]) != math.Float64bits(resumed.W[j]) {
					t.Fatalf("%s, resumed at %d: weight %d = %v, %v uninterrupted", rule, at, j, resumed.W[j], full.W[j])
				}
			}
			for k, it := range resFull.Iterations {
				// The same log, certificates included (the dual bound of
				// the passes before the checkpoint carries over).
				if got := resRes.Iterations[k]; got.Primal != it.Primal || got.Gap != it.Gap {
					t.Fatalf("%s, resumed at %d: line %d: primal %v gap %v, uninterrupted %v %v", rule, at, k, got.Primal, got.Gap, it.Primal, it.Gap)
				}
			}
		}
		saved := saves[len(saves)-1]
		// A corrupted checkpoint is refused.
		saved[len(saved)/2] ^= 1
		if _, err := ReadCheckpoint(bytes.NewReader(saved)); err == nil {
			t.Fatalf("%s: corrupted checkpoint accepted", rule)
		}
	}
}

// TestMonitorStops checks that Options.Monitor sees the current weights at
// the first full pass after every MonitorEvery iterations (every multiple
// with the full policy, which prices every iterate) and can stop training.
func TestMonitorStops(t *testing.T) {
	rng := rand.New(rand.NewPCG(61, 62))
	c := randomCorpus(rng, 50, 5, 8, 0, 3, false)
	for _, solver := range []Solver{SolverFull, SolverWorkingSet} {
		calls := 0
		var seen []int
		op := Options{
			Problem:  Problem{BetaRatio: 0.1},
			Stopping: Stopping{Epsilon: 1e-12},
			Method:   Method{Solver: solver},
			Hooks: Hooks{MonitorEvery: 3, Monitor: func(it Iteration, w []float64) (bool, error) {
				calls++
				seen = append(seen, it.Iter)
				nz := 0
				for _, v := range w {
					if v != 0 {
						nz++
					}
				}
				if nz != it.NonZero {
					return false, fmt.Errorf("monitor weights have %d non-zeros, iteration says %d", nz, it.NonZero)
				}
				return calls == 2, nil
			}},
		}
		_, res := trainTiny(t, c, 3, 8, op)
		if res.StopReason != StopMonitor || len(seen) != 2 || seen[0] < 3 || seen[1]/3 <= seen[0]/3 {
			t.Fatalf("%s: stop %q after monitor calls at %v", solver, res.StopReason, seen)
		}
		if solver == SolverFull && (seen[0] != 3 || seen[1] != 6) {
			t.Fatalf("full policy: monitor calls at %v, want [3 6]", seen)
		}
	}
}

// TestObservedPairs: with CRFsuite's feature set only (attribute, label)
// pairs seen in training can be non-zero, and the feature set counts them.
func TestObservedPairs(t *testing.T) {
	rng := rand.New(rand.NewPCG(71, 72))
	c := randomCorpus(rng, 30, 4, 12, 0, 4, false)
	m, res := trainTiny(t, c, 4, 12, Options{Problem: Problem{ObservedPairs: true, BetaRatio: 0.01}, Stopping: Stopping{Epsilon: 1e-8}})
	seen := features.ObservedPairs(c, 4)
	want := seen.Count() + 4*4 // observed state pairs + all transitions
	if res.Dimension != want {
		t.Fatalf("feature set has %d features, want %d observed pairs + 16 transitions", res.Dimension, seen.Count())
	}
	nz := 0
	for j := 0; j < m.Layout.TransOffset(); j++ {
		if m.W[j] != 0 {
			nz++
			if !seen.Has(j) {
				t.Fatalf("state weight %d (attribute %d, label %d) is %g but the pair never occurs in training", j, j/4, j%4, m.W[j])
			}
		}
	}
	if nz == 0 {
		t.Fatal("no state weight is non-zero")
	}
}
