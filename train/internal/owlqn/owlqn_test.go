package owlqn

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize/functions"
)

// rosenbrockStart returns the classical starting point (-1.2, 1, -1.2, 1, ...).
func rosenbrockStart(n int) []float64 {
	x0 := make([]float64, n)
	for i := range x0 {
		x0[i] = -1.2
		if i%2 == 1 {
			x0[i] = 1
		}
	}
	return x0
}

func rosenbrockFunc() Func {
	fun := functions.ExtendedRosenbrock{}
	return func(x, g []float64) (float64, error) {
		fun.Grad(g, x)
		return fun.Func(x), nil
	}
}

// TestL1ZeroExtendedRosenbrock checks plain L-BFGS (l1 = 0) against the known
// minimizer (1, ..., 1), f = 0, of gonum's ExtendedRosenbrock; gonum_test.go
// also compares with gonum's own L-BFGS.
func TestL1ZeroExtendedRosenbrock(t *testing.T) {
	for _, n := range []int{2, 10} {
		x0 := rosenbrockStart(n)
		o, err := drive(x0, rosenbrockFunc(), Settings{})
		if err != nil {
			t.Fatal(err)
		}
		iters := run(t, o, 1e-10, 2000)
		ones := make([]float64, n)
		for i := range ones {
			ones[i] = 1
		}
		approxEqual(t, "owlqn vs (1,...,1)", ones, o.X(), 1e-8, 0)
		if !(o.F() < 1e-16) {
			t.Fatalf("n=%d: f = %g, want < 1e-16", n, o.F())
		}
		t.Logf("ExtendedRosenbrock n=%d: %d iterations, %d evaluations", n, iters, o.Evaluations())
	}
}

// spdQuadratic returns f(x) = ½ xᵀAx - bᵀx with A = CᵀC/n + I (strongly
// convex) as a Func and as value(x, g) (g may be nil), and its exact
// minimizer A⁻¹b from a dense solve.
func spdQuadratic(rng *rand.Rand, n int) (fn Func, value func(x, g []float64) float64, xstar []float64) {
	C := mat.NewDense(n, n, nil)
	for i := range n {
		for j := range n {
			C.Set(i, j, rng.NormFloat64())
		}
	}
	A := mat.NewDense(n, n, nil)
	A.Mul(C.T(), C)
	A.Scale(1/float64(n), A)
	for i := range n {
		A.Set(i, i, A.At(i, i)+1)
	}
	b := make([]float64, n)
	for i := range b {
		b[i] = rng.NormFloat64()
	}
	var xs mat.VecDense
	if err := xs.SolveVec(A, mat.NewVecDense(n, b)); err != nil {
		panic(err)
	}
	ax := make([]float64, n)
	value = func(x, g []float64) float64 {
		axv := mat.NewVecDense(n, ax)
		axv.MulVec(A, mat.NewVecDense(n, x))
		var f float64
		for i := range x {
			f += 0.5*x[i]*ax[i] - b[i]*x[i]
			if g != nil {
				g[i] = ax[i] - b[i]
			}
		}
		return f
	}
	fn = func(x, g []float64) (float64, error) { return value(x, g), nil }
	return fn, value, xs.RawVector().Data
}

func TestL1ZeroStronglyConvexQuadratic(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 1))
	const n = 30
	fn, _, xstar := spdQuadratic(rng, n)
	x0 := make([]float64, n)
	o, err := drive(x0, fn, Settings{M: 5})
	if err != nil {
		t.Fatal(err)
	}
	run(t, o, 1e-12, 1000)
	approxEqual(t, "owlqn vs A⁻¹b", xstar, o.X(), 1e-10, 1e-10)
}

func TestL1Lasso(t *testing.T) {
	for _, tc := range []struct {
		name       string
		seed       uint64
		rows, cols int
		l2, frac   float64 // l1 = frac * lambdaMax
	}{
		{"lasso overdetermined", 1, 40, 15, 0, 0.1},
		{"lasso underdetermined", 2, 15, 40, 0, 0.2},
		{"elastic net", 3, 30, 30, 0.5, 0.15},
		{"elastic net, strong l1", 4, 30, 20, 1, 0.6},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newLSQ(rand.New(rand.NewPCG(tc.seed, 7)), tc.rows, tc.cols, tc.l2)
			l1 := tc.frac * p.lambdaMax()
			ref := p.coordinateDescent(l1)
			o, err := drive(make([]float64, tc.cols), p.eval, Settings{L1: l1})
			if err != nil {
				t.Fatal(err)
			}
			iters := run(t, o, 1e-11, 5000)
			checkKKT(t, o.X(), o.Grad(), l1, 1e-8)
			approxEqual(t, "owlqn vs coordinate descent", ref, o.X(), 1e-8, 0)
			zeros := 0
			for j, v := range ref {
				if (v == 0) != (o.X()[j] == 0) {
					t.Fatalf("zero pattern differs at %d: cd %g, owlqn %g", j, v, o.X()[j])
				}
				if v == 0 {
					zeros++
				}
			}
			if zeros == 0 || zeros == tc.cols {
				t.Fatalf("degenerate test problem: %d zeros of %d", zeros, tc.cols)
			}
			t.Logf("%s: %d zeros of %d, %d iterations, %d evaluations", tc.name, zeros, tc.cols, iters, o.Evaluations())
		})
	}
}

// TestIteratesStayInOrthant checks on a lasso run that no coordinate jumps
// from one side of 0 to the other in a single iteration: OWL-QN only moves
// it to 0 first [3, p. 35].
func TestIteratesStayInOrthant(t *testing.T) {
	p := newLSQ(rand.New(rand.NewPCG(9, 9)), 25, 25, 0.1)
	o, err := drive(make([]float64, 25), p.eval, Settings{L1: 0.1 * p.lambdaMax()})
	if err != nil {
		t.Fatal(err)
	}
	prev := slices.Clone(o.X())
	for k := 0; k < 200; k++ {
		if err := o.Iterate(); err != nil {
			break
		}
		for j, v := range o.X() {
			if v*prev[j] < 0 {
				t.Fatalf("iteration %d: x[%d] went from %g to %g", k, j, prev[j], v)
			}
		}
		copy(prev, o.X())
	}
}

// recorder wraps a Func and remembers the last point and gradient it was
// called with, like a trainer's cache.
type recorder struct {
	fn        Func
	lastX     []float64
	lastGrad  []float64
	lastF     float64
	calls     int
	failAfter int // if > 0, fail every call after this many
}

var errInjected = errors.New("injected failure")

func (r *recorder) eval(x, g []float64) (float64, error) {
	r.calls++
	if r.failAfter > 0 && r.calls > r.failAfter {
		return 0, errInjected
	}
	f, err := r.fn(x, g)
	r.lastX = append(r.lastX[:0], x...)
	r.lastGrad = append(r.lastGrad[:0], g...)
	r.lastF = f
	return f, err
}

func TestLastEvaluationIsAcceptedPoint(t *testing.T) {
	for _, l1 := range []float64{0, 0.05, 0.3} {
		p := newLSQ(rand.New(rand.NewPCG(11, 3)), 20, 30, 0.2)
		rec := &recorder{fn: p.eval}
		o, err := drive(make([]float64, 30), rec.eval, Settings{L1: l1 * p.lambdaMax(), M: 4})
		if err != nil {
			t.Fatal(err)
		}
		sawBacktrack := false
		for k := 0; k < 300; k++ {
			before := o.Evaluations()
			err := o.Iterate()
			if err != nil {
				if !errors.Is(err, ErrLineSearch) {
					t.Fatal(err)
				}
				break
			}
			if o.Evaluations()-before > 1 {
				sawBacktrack = true
			}
			if o.Evaluations() != rec.calls {
				t.Fatalf("Evaluations() = %d, fn called %d times", o.Evaluations(), rec.calls)
			}
			if !slices.Equal(rec.lastX, o.X()) || !slices.Equal(rec.lastGrad, o.Grad()) || rec.lastF != o.F() {
				t.Fatalf("l1=%g iteration %d: last evaluation was not at the accepted point", l1, k)
			}
		}
		if !sawBacktrack {
			t.Fatalf("l1=%g: no iteration backtracked, the test does not exercise rejected trials", l1)
		}
	}
}

func TestFailureKeepsLastValidPoint(t *testing.T) {
	p := newLSQ(rand.New(rand.NewPCG(12, 3)), 20, 10, 0)
	rec := &recorder{fn: p.eval, failAfter: 4}
	o, err := drive(make([]float64, 10), rec.eval, Settings{L1: 0.1})
	if err != nil {
		t.Fatal(err)
	}
	var x, g []float64
	var f, obj float64
	for {
		x, g, f, obj = slices.Clone(o.X()), slices.Clone(o.Grad()), o.F(), o.Objective()
		if err = o.Iterate(); err != nil {
			break
		}
	}
	if !errors.Is(err, errInjected) {
		t.Fatalf("err = %v, want the injected error wrapped", err)
	}
	if !slices.Equal(x, o.X()) || !slices.Equal(g, o.Grad()) || f != o.F() || obj != o.Objective() {
		t.Fatal("state changed by a failed iteration")
	}
	if o.Iterations() == 0 {
		t.Fatal("no successful iteration before the injected failure")
	}

	// ErrLineSearch also keeps the point: a MaxLineSearch of 1 with a huge
	// first step fails on the first iteration.
	rec = &recorder{fn: p.eval}
	o, err = drive(make([]float64, 10), rec.eval, Settings{MaxLineSearch: 1})
	if err != nil {
		t.Fatal(err)
	}
	// Steepest descent with step 1/||g|| on ½||Ax-b||² overshoots when
	// ||A||² is large; scale A up to make sure.
	for i := range p.A {
		p.A[i] *= 100
	}
	if err := o.Reevaluate(); err != nil {
		t.Fatal(err)
	}
	x, g, f = slices.Clone(o.X()), slices.Clone(o.Grad()), o.F()
	if err := o.Iterate(); !errors.Is(err, ErrLineSearch) {
		t.Fatalf("err = %v, want ErrLineSearch", err)
	}
	if !slices.Equal(x, o.X()) || !slices.Equal(g, o.Grad()) || f != o.F() {
		t.Fatal("state changed by a failed line search")
	}
	if slices.Equal(rec.lastX, o.X()) {
		t.Fatal("the rejected trial should have been the last evaluation")
	}
}

// BenchmarkIterate measures the optimizer's own cost per iteration (the
// Func is a cheap separable quadratic) at trainer-like dimensions.
func BenchmarkIterate(b *testing.B) {
	for _, n := range []int{1_000, 100_000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 1))
			q := quad{c: make([]float64, n), a: make([]float64, n)}
			for j := range n {
				q.c[j] = math.Exp(2 * rng.NormFloat64()) // ill-conditioned
				q.a[j] = rng.NormFloat64()
			}
			o, err := drive(make([]float64, n), q.eval, Settings{L1: 0.5})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if err := o.Iterate(); err != nil {
					// Converged: restart from 0 with an empty memory.
					b.StopTimer()
					clear(o.x)
					o.mem.reset()
					if err := o.Reevaluate(); err != nil {
						b.Fatal(err)
					}
					b.StartTimer()
				}
			}
		})
	}
}

// BenchmarkIterateLarge measures the optimizer's own work per iteration at
// n = 2,000,000 (the Func is a cheap separable quadratic, so the two-loop
// recursion, memory update, projections and line-search kernels dominate)
// with Threads = 1 and 2.
func BenchmarkIterateLarge(b *testing.B) {
	const n = 2_000_000
	rng := rand.New(rand.NewPCG(1, 1))
	q := quad{c: make([]float64, n), a: make([]float64, n)}
	for j := range n {
		q.c[j] = math.Exp(2 * rng.NormFloat64()) // ill-conditioned
		q.a[j] = rng.NormFloat64()
	}
	for _, threads := range []int{1, 2} {
		b.Run(fmt.Sprintf("threads=%d", threads), func(b *testing.B) {
			o, err := drive(make([]float64, n), q.eval, Settings{L1: 0.5, Threads: threads})
			if err != nil {
				b.Fatal(err)
			}
			for range 10 { // fill the memory (M = 10)
				if err := o.Iterate(); err != nil {
					b.Fatal(err)
				}
			}
			evals := o.Evaluations()
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if err := o.Iterate(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(o.Evaluations()-evals)/float64(b.N), "evals/op")
		})
	}
}

func TestNewErrors(t *testing.T) {
	ok := func(x, g []float64) (float64, error) { return 0, nil }
	for _, tc := range []struct {
		name string
		x0   []float64
		fn   Func
		s    Settings
	}{
		{"empty", nil, ok, Settings{}},
		{"negative l1", []float64{1}, ok, Settings{L1: -1}},
		{"NaN l1", []float64{1}, ok, Settings{L1: math.NaN()}},
		{"negative M", []float64{1}, ok, Settings{M: -1}},
		{"Armijo 1", []float64{1}, ok, Settings{Armijo: 1}},
		{"Backtrack 2", []float64{1}, ok, Settings{Backtrack: 2}},
		{"fn error", []float64{1}, func(x, g []float64) (float64, error) { return 0, errInjected }, Settings{}},
		{"NaN f", []float64{1}, func(x, g []float64) (float64, error) { return math.NaN(), nil }, Settings{}},
		{"Inf grad", []float64{1}, func(x, g []float64) (float64, error) { g[0] = math.Inf(1); return 0, nil }, Settings{}},
	} {
		if o, err := drive(tc.x0, tc.fn, tc.s); err == nil || o != nil {
			t.Errorf("%s: New returned (%v, %v), want an error", tc.name, o, err)
		}
	}
}

// TestIterateAllocs checks that a warm optimizer's Iterate allocates nothing
// when the Func allocates nothing.
func TestIterateAllocs(t *testing.T) {
	x0 := rosenbrockStart(100)
	fn := rosenbrockFunc()
	for _, l1 := range []float64{0, 0.01} {
		o, err := drive(x0, fn, Settings{L1: l1})
		if err != nil {
			t.Fatal(err)
		}
		for range 15 { // fill the memory so the ring wraps
			if err := o.Iterate(); err != nil {
				t.Fatal(err)
			}
		}
		before := o.Iterations()
		allocs := testing.AllocsPerRun(50, func() {
			if err := o.Iterate(); err != nil {
				t.Fatal(err)
			}
		})
		if allocs != 0 {
			t.Errorf("l1=%g: %g allocations per Iterate, want 0", l1, allocs)
		}
		if got := o.Iterations() - before; got != 51 {
			t.Errorf("l1=%g: %d iterations made during the measure, want 51 (the optimizer converged early?)", l1, got)
		}
	}
}
