package owlqn

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// denseBFGSFrom is denseBFGS from H0 = γ diag(h), γ = s·y / (y·diag(h) y)
// of the newest pair: the explicit update, independent of the recursion.
func denseBFGSFrom(n int, h []float64, ss, ys [][]float64) *mat.Dense {
	last := len(ss) - 1
	sy, yhy := 0.0, 0.0
	for j := range n {
		sy += ss[last][j] * ys[last][j]
		yhy += ys[last][j] * ys[last][j] * h[j]
	}
	H := mat.NewDense(n, n, nil)
	for i := range n {
		H.Set(i, i, sy/yhy*h[i])
	}
	return bfgsUpdates(H, n, ss, ys)
}

// TestTwoLoopDiagMatchesDenseBFGS: the recursion with a diagonal H0 gives
// -H q of the explicit BFGS update from γ diag(h), over several memory
// sizes and diagonals spread over six orders of magnitude; with an empty
// memory, -diag(h) q.
func TestTwoLoopDiagMatchesDenseBFGS(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 2))
	const n = 7
	C := mat.NewDense(n, n, nil)
	for i := range n {
		for j := range n {
			C.Set(i, j, rng.NormFloat64())
		}
	}
	var B mat.Dense
	B.Mul(C.T(), C)
	for i := range n {
		B.Set(i, i, B.At(i, i)+1)
	}
	h := make([]float64, n)
	for j := range h {
		h[j] = math.Pow(10, 6*rng.Float64()-3)
	}
	q := make([]float64, n)
	for j := range q {
		q[j] = rng.NormFloat64()
	}
	d := make([]float64, n)
	mem := newMemory(3, n)
	twoLoopDiag(d, q, &mem, h)
	for j := range d {
		approxScalar(t, "empty memory: d", -h[j]*q[j], d[j], 0, 1e-15)
	}
	for _, tc := range []struct{ m, pushes int }{{1, 1}, {3, 2}, {3, 5}, {5, 5}} {
		mem := newMemory(tc.m, n)
		zero := make([]float64, n)
		var ss, ys [][]float64
		for range tc.pushes {
			s := make([]float64, n)
			for j := range s {
				s[j] = rng.NormFloat64()
			}
			yv := mat.NewVecDense(n, nil)
			yv.MulVec(&B, mat.NewVecDense(n, s))
			y := yv.RawVector().Data
			if !mem.update(nil, s, zero, y, zero) {
				t.Fatalf("update rejected a pair with s·y > 0")
			}
			ss, ys = append(ss, s), append(ys, y)
		}
		if len(ss) > tc.m {
			ss, ys = ss[len(ss)-tc.m:], ys[len(ys)-tc.m:]
		}
		var want mat.VecDense
		want.MulVec(denseBFGSFrom(n, h, ss, ys), mat.NewVecDense(n, q))
		want.ScaleVec(-1, &want)
		twoLoopDiag(d, q, &mem, h)
		approxEqual(t, "d", want.RawVector().Data, d, 1e-10, 1e-10)
	}
}

// TestSetDiagonalSeparableQuadratic: on f(x) = ½ Σ a_j x_j² - b·x with
// curvatures a_j from 1e-4 to 1e2, the diagonal h = 1/a with first step 1
// reaches the minimizer b/a in one iteration, where the plain start (a
// steepest-descent step) is far from it; the first trial point is x0 -
// step0 diag(h) ∇f; after iters accepted iterations the diagonal is gone.
func TestSetDiagonalSeparableQuadratic(t *testing.T) {
	a := []float64{1e-4, 3e-3, 0.1, 1, 20, 100}
	b := []float64{1e-4, -2e-3, 0.3, -1, 5, 50}
	n := len(a)
	eval := func(x, g []float64) float64 {
		f := 0.0
		for j := range x {
			f += 0.5*a[j]*x[j]*x[j] - b[j]*x[j]
			g[j] = a[j]*x[j] - b[j]
		}
		return f
	}
	start := func(h []float64, iters int, step0 float64) *Optimizer {
		x0, g0 := make([]float64, n), make([]float64, n)
		f0 := eval(x0, g0)
		o, err := New(x0, f0, g0, Settings{})
		if err != nil {
			t.Fatal(err)
		}
		if h != nil {
			if err := o.SetDiagonal(h, iters, step0); err != nil {
				t.Fatal(err)
			}
		}
		return o
	}
	step := func(o *Optimizer) {
		for {
			x, g, err := o.Next()
			if err != nil || x == nil {
				t.Fatalf("Next: %v", err)
			}
			if o.Tell(eval(x, g)) {
				return
			}
		}
	}
	h := make([]float64, n)
	for j := range h {
		h[j] = 1 / a[j]
	}
	o := start(h, 2, 0.5)
	x, _, err := o.Next()
	if err != nil {
		t.Fatal(err)
	}
	for j := range x {
		approxScalar(t, "first trial", 0.5*h[j]*b[j], x[j], 0, 1e-15)
	}
	o = start(h, 2, 1)
	step(o)
	for j := range a {
		approxScalar(t, "after one diagonal step", b[j]/a[j], o.X()[j], 0, 1e-12)
	}
	if o.diag.h == nil {
		t.Fatal("the diagonal ended after 1 of 2 iterations")
	}
	step(o)
	if o.diag.h != nil {
		t.Fatal("the diagonal outlived its 2 iterations")
	}
	plain := start(nil, 0, 0)
	step(plain)
	if x := plain.X(); math.Abs(x[0]-b[0]/a[0]) < 0.5 {
		t.Fatalf("the plain start reached x_0 = %g (minimizer %g): the test does not separate", x[0], b[0]/a[0])
	}
}

// TestSetDiagonalRejects: a diagonal of the wrong length, an element not
// above 0 or not finite, or a first step not above 0 is an error.
func TestSetDiagonalRejects(t *testing.T) {
	o, err := New([]float64{0, 0}, 0, []float64{1, 1}, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		h     []float64
		step0 float64
	}{{[]float64{1}, 1}, {[]float64{1, 0}, 1}, {[]float64{1, math.NaN()}, 1}, {[]float64{1, math.Inf(1)}, 1},
		{[]float64{1, 1}, 0}, {[]float64{1, 1}, math.NaN()}} {
		if o.SetDiagonal(tc.h, 1, tc.step0) == nil {
			t.Errorf("SetDiagonal(%v, 1, %v) accepted", tc.h, tc.step0)
		}
	}
}
