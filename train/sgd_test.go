package train

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/sparse"
	"github.com/sparsetag/sparsetag/train/warmstart"
)

// sgdProblem returns a model layout and a random corpus with pair
// attributes (so that every block of the layout takes part).
func sgdProblem(t testing.TB, seed uint64, n, numAttr, numPair, L int, real bool) (*chain.Model, *sparse.Corpus) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	c := randomCorpus(rng, n, 6, numAttr, numPair, L, real)
	m, err := chain.NewModel(labelNames(L), numAttr, numPair, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	return m, c
}

// plantedCorpus returns a corpus of n sequences whose labels follow their
// attributes (the label of a position is its first attribute mod L, with
// probability 0.8), so that the optimum is far from zero.
func plantedCorpus(seed uint64, n, numAttr, L int) *sparse.Corpus {
	rng := rand.New(rand.NewPCG(seed, 3))
	c := &sparse.Corpus{NumUnary: numAttr}
	for i := 0; i < n; i++ {
		T := 1 + rng.IntN(6)
		unary := make([][]int32, T)
		labels := make([]int32, T)
		for t := range unary {
			for a := 0; a < numAttr; a++ {
				if rng.Float64() < 0.25 {
					unary[t] = append(unary[t], int32(a))
				}
			}
			labels[t] = int32(rng.IntN(L))
			if len(unary[t]) > 0 && rng.Float64() < 0.8 {
				labels[t] = unary[t][0] % int32(L)
			}
		}
		c.AppendSequence(unary, nil, nil, nil, labels)
	}
	return c
}

// preparedTrainer returns a trainer ready to solve with op, and the
// average-form penalty of op.
func preparedTrainer(t testing.TB, m *chain.Model, c *sparse.Corpus, op Options) (*trainer, float64, float64) {
	t.Helper()
	tr := newTrainer(m, c, op.defaults())
	if err := tr.prepare(context.Background()); err != nil {
		t.Fatal(err)
	}
	pen, err := tr.lambdas(tr.op.Beta, tr.op.BetaRatio)
	if err != nil {
		t.Fatal(err)
	}
	tr.setPenalty(pen, false) // as solve does before the warm start
	return tr, pen.l1, pen.l2
}

// primalAt returns P(w) = L(w) + lam2/2 ||w||^2 + lam1 ||w||_1 over every
// feature of the trainer's feature set (w full size).
func primalAt(t testing.TB, tr *trainer, w []float64, lam1, lam2 float64) float64 {
	t.Helper()
	loss := pricePoint(t, tr, w).loss
	return loss + lam2/2*floats.Dot(w, w) + lam1*floats.Norm(w, 1)
}

// warmDense runs the trainer's warm start and returns its point, full size.
func warmDense(t testing.TB, tr *trainer, onEpoch func(warmstart.Point)) ([]float64, *WarmStart) {
	t.Helper()
	p, info, err := tr.warmStart(context.Background(), tr.fs.Unscreened(nil), onEpoch)
	if err != nil {
		t.Fatal(err)
	}
	return p.dense(len(tr.m.W)), info
}

// TestWarmStartLowersObjective: from P(0), every epoch of the warm start
// lowers the exact average-form objective on average, and the last epoch
// ends below the first.
func TestWarmStartLowersObjective(t *testing.T) {
	for _, tc := range []struct {
		name string
		op   Options
		real bool
	}{
		{"paper form", Options{Problem: Problem{BetaRatio: 0.05}, Method: Method{WarmEpochs: 6}}, false},
		{"sum form, real values, static screening", Options{Problem: Problem{SumForm: true, C1: 0.5, C2: 1}, Method: Method{WarmEpochs: 6}}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, c := sgdProblem(t, 3, 150, 30, 2, 3, tc.real)
			tr, lam1, lam2 := preparedTrainer(t, m, c, tc.op)
			p := []float64{primalAt(t, tr, make([]float64, len(m.W)), lam1, lam2)}
			var ws []([]float64)
			_, info := warmDense(t, tr, func(p warmstart.Point) {
				ws = append(ws, sparsePoint{idx: p.Idx, val: p.Val}.dense(len(m.W)))
			})
			if info.Epochs != tc.op.WarmEpochs || len(ws) != tc.op.WarmEpochs {
				t.Fatalf("ran %d epochs (%d callbacks), want %d", info.Epochs, len(ws), tc.op.WarmEpochs)
			}
			for _, w := range ws {
				p = append(p, primalAt(t, tr, w, lam1, lam2))
			}
			E := len(p) - 1
			t.Logf("P by epoch: %.6f (eta0 %g, %d trials)", p, info.Eta0, info.Trials)
			if !(p[1] < p[0]) || !(p[E] < p[1]) {
				t.Fatalf("P by epoch %v: want P(1) < P(0) and P(%d) < P(1)", p, E)
			}
			rises := 0
			for e := 1; e <= E; e++ {
				if p[e] > p[e-1] {
					rises++
				}
			}
			if rises > E/3 {
				t.Fatalf("P rose in %d of %d epochs: %v", rises, E, p)
			}
		})
	}
}

// TestWarmStartApproachesOptimum checks the scale of the penalty per
// step: many epochs of the warm start end near the optimum of the
// average-form objective (a penalty off by a factor of n, or applied per
// sequence instead of per epoch, would end far from it), in objective and
// in weights.
func TestWarmStartApproachesOptimum(t *testing.T) {
	c := plantedCorpus(5, 100, 12, 3)
	m, err := chain.NewModel(labelNames(3), 12, 0, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	op := Options{Problem: Problem{BetaRatio: 0.05}, Stopping: Stopping{Epsilon: 1e-10}, Method: Method{WarmEpochs: 60}}
	opt, _ := chain.NewModel(m.Labels, m.Layout.NumUnary, m.Layout.NumPair, true, nil)
	res, err := Train(context.Background(), opt, c, Options{Problem: Problem{BetaRatio: op.BetaRatio}, Stopping: Stopping{Epsilon: op.Epsilon}})
	if err != nil {
		t.Fatal(err)
	}
	tr, lam1, lam2 := preparedTrainer(t, m, c, op)
	w, _ := warmDense(t, tr, nil)
	p0 := primalAt(t, tr, make([]float64, len(m.W)), lam1, lam2)
	pw := primalAt(t, tr, w, lam1, lam2)
	t.Logf("P(0) %.6f, P(sgd) %.6f, P* %.6f", p0, pw, res.Primal)
	if excess := (pw - res.Primal) / (p0 - res.Primal); !(excess < 0.01) {
		t.Errorf("P(sgd) - P* is %.3g of P(0) - P*, want < 0.01", excess)
	}
	d := make([]float64, len(w))
	floats.SubTo(d, w, opt.W)
	if r := floats.Norm(d, 2) / floats.Norm(opt.W, 2); !(r < 0.1) {
		t.Errorf("||w_sgd - w*|| / ||w*|| = %.3g, want < 0.1", r)
	}
}

// TestWarmStartDeterministic: the warm start and the model trained from it
// are bit-identical from run to run and whatever the number of threads.
func TestWarmStartDeterministic(t *testing.T) {
	m, c := sgdProblem(t, 9, 120, 25, 2, 3, false)
	train := func(threads int) ([]float64, *Result) {
		mm, _ := chain.NewModel(m.Labels, m.Layout.NumUnary, m.Layout.NumPair, true, nil)
		res, err := Train(context.Background(), mm, c, Options{Problem: Problem{SumForm: true, C1: 0.5, C2: 1}, Method: Method{WarmEpochs: 3}, Resources: Resources{Threads: threads}})
		if err != nil {
			t.Fatal(err)
		}
		return mm.W, res
	}
	w1, r1 := train(1)
	if r1.Warm == nil || r1.Warm.Epochs != 3 {
		t.Fatalf("Result.Warm = %+v, want 3 epochs", r1.Warm)
	}
	for _, threads := range []int{1, 2} {
		w, _ := train(threads)
		for j := range w {
			if math.Float64bits(w[j]) != math.Float64bits(w1[j]) {
				t.Fatalf("threads %d: weight %d is %v, first run %v", threads, j, w[j], w1[j])
			}
		}
	}
	tr, _, _ := preparedTrainer(t, m, c, Options{Method: Method{WarmEpochs: 2}})
	a, _ := warmDense(t, tr, nil)
	b, _ := warmDense(t, tr, nil)
	for j := range a {
		if math.Float64bits(a[j]) != math.Float64bits(b[j]) {
			t.Fatalf("warm start weight %d: %v then %v", j, a[j], b[j])
		}
	}
}

// TestWarmStartReachesSameOptimum: training from the warm start stops at
// the optimum of training from zero, within the certified gaps.
func TestWarmStartReachesSameOptimum(t *testing.T) {
	for _, solver := range []Solver{SolverWorkingSet, SolverFull} {
		t.Run(string(solver), func(t *testing.T) {
			m, c := sgdProblem(t, 11, 150, 30, 2, 3, false)
			train := func(warm int) ([]float64, *Result) {
				mm, _ := chain.NewModel(m.Labels, m.Layout.NumUnary, m.Layout.NumPair, true, nil)
				res, err := Train(context.Background(), mm, c, Options{Problem: Problem{BetaRatio: 0.05}, Stopping: Stopping{Epsilon: 1e-7}, Method: Method{Solver: solver, WarmEpochs: max(warm, 0), ColdStart: warm < 0}})
				if err != nil {
					t.Fatal(err)
				}
				if !res.Converged {
					t.Fatalf("warm %d: stopped by %s", warm, res.StopReason)
				}
				return mm.W, res
			}
			wc, rc := train(-1)
			ww, rw := train(4)
			if rc.Warm != nil || rw.Warm == nil {
				t.Fatalf("Result.Warm: cold %+v, warm %+v", rc.Warm, rw.Warm)
			}
			t.Logf("iterations: cold %d, warm %d", rc.NumIterations(), rw.NumIterations())
			// ||w - w*|| <= sqrt(2 G / (alpha beta)) for each solution.
			bound := math.Sqrt(2*rw.Gap/rw.Lambda2) + math.Sqrt(2*rc.Gap/rc.Lambda2)
			d := make([]float64, len(wc))
			floats.SubTo(d, ww, wc)
			if dist := floats.Norm(d, 2); dist > bound {
				t.Fatalf("warm and cold solutions differ by %g > %g", dist, bound)
			}
			if diff := math.Abs(rw.Primal - rc.Primal); diff > rw.Gap+rc.Gap {
				t.Fatalf("objectives %v and %v differ by more than the gaps", rw.Primal, rc.Primal)
			}
		})
	}
}

// TestWarmStartDefault: the zero Options run DefaultWarmEpochs epochs and
// ColdStart none; both validate; the log's clock starts with the warm
// start.
func TestWarmStartDefault(t *testing.T) {
	if got := DefaultOptions().WarmEpochs; got != DefaultWarmEpochs {
		t.Fatalf("DefaultOptions().WarmEpochs = %d, want %d", got, DefaultWarmEpochs)
	}
	m, c := sgdProblem(t, 13, 40, 10, 0, 3, false)
	for _, cold := range []bool{false, true} {
		if err := (Options{Method: Method{ColdStart: cold}}).Validate(); err != nil {
			t.Fatalf("ColdStart %v: %v", cold, err)
		}
		mm, _ := chain.NewModel(m.Labels, m.Layout.NumUnary, m.Layout.NumPair, true, nil)
		res, err := Train(context.Background(), mm, c, Options{Stopping: Stopping{MaxIter: 3}, Method: Method{ColdStart: cold}})
		if err != nil {
			t.Fatal(err)
		}
		if ran := res.Warm != nil; ran == cold {
			t.Fatalf("ColdStart %v: warm start ran: %v", cold, ran)
		}
		if !cold && res.Warm.Epochs != DefaultWarmEpochs {
			t.Fatalf("the default warm start ran %d epochs, want %d", res.Warm.Epochs, DefaultWarmEpochs)
		}
		if !cold && res.Iterations[0].Seconds < res.Warm.Seconds {
			t.Fatalf("the log's first line at %vs, before the warm start's %vs ended", res.Iterations[0].Seconds, res.Warm.Seconds)
		}
	}
}

// dense returns the point as a vector of d features (tests compare points
// full size).
func (p sparsePoint) dense(d int) []float64 {
	w := make([]float64, d)
	sparse.Scatter(w, p.val, p.idx)
	return w
}
