package owlqn

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
)

// approxEqual fails the test unless got and want have the same length, are
// finite, and agree element-wise within abs or rel tolerance; it names the
// first bad index (testify's InDeltaSlice passes on a shorter actual).
func approxEqual(t testing.TB, name string, want, got []float64, abs, rel float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: len = %d, want %d", name, len(got), len(want))
	}
	for i := range want {
		if math.IsNaN(got[i]) || math.IsInf(got[i], 0) || math.IsNaN(want[i]) || math.IsInf(want[i], 0) {
			t.Fatalf("%s[%d]: got %v, want %v (not finite)", name, i, got[i], want[i])
		}
		if !scalar.EqualWithinAbsOrRel(got[i], want[i], abs, rel) {
			t.Fatalf("%s[%d] = %.17g, want %.17g (abs %g, rel %g)", name, i, got[i], want[i], abs, rel)
		}
	}
}

// approxScalar is approxEqual for one number.
func approxScalar(t testing.TB, name string, want, got, abs, rel float64) {
	t.Helper()
	approxEqual(t, name, []float64{want}, []float64{got}, abs, rel)
}

// lsq is the elastic-net smooth part f(x) = ½||Ax - b||² + ½ l2 ||x||² on a
// dense row-major A (rows × cols), restricted to the columns in cols (all
// columns when the optimizer has not been compacted). Evaluation allocates
// nothing.
type lsq struct {
	A          []float64
	b          []float64
	rows, cols int
	l2         float64
	active     []int32   // optimizer coordinate i is column active[i]
	r          []float64 // residual scratch, len rows
	calls      int
}

func newLSQ(rng *rand.Rand, rows, cols int, l2 float64) *lsq {
	p := &lsq{A: make([]float64, rows*cols), b: make([]float64, rows), rows: rows, cols: cols, l2: l2, r: make([]float64, rows)}
	// A sparse-ish ground truth so that the lasso has a mixed zero pattern.
	truth := make([]float64, cols)
	for j := range truth {
		if rng.IntN(3) == 0 {
			truth[j] = rng.NormFloat64() * 2
		}
	}
	for i := range rows {
		var s float64
		for j := range cols {
			a := rng.NormFloat64()
			p.A[i*cols+j] = a
			s += a * truth[j]
		}
		p.b[i] = s + 0.5*rng.NormFloat64()
	}
	p.active = make([]int32, cols)
	for j := range p.active {
		p.active[j] = int32(j)
	}
	return p
}

func (p *lsq) eval(x, grad []float64) (float64, error) {
	p.calls++
	if len(x) != len(p.active) {
		return 0, errors.New("lsq: dimension mismatch")
	}
	var f float64
	for i := range p.rows {
		row := p.A[i*p.cols : (i+1)*p.cols]
		s := -p.b[i]
		for k, j := range p.active {
			s += row[j] * x[k]
		}
		p.r[i] = s
		f += 0.5 * s * s
	}
	for k, j := range p.active {
		var g float64
		for i := range p.rows {
			g += p.A[i*p.cols+int(j)] * p.r[i]
		}
		grad[k] = g + p.l2*x[k]
		f += 0.5 * p.l2 * x[k] * x[k]
	}
	return f, nil
}

// compact restricts the problem to the optimizer coordinates in keep.
func (p *lsq) compact(keep []int32) {
	for i, k := range keep {
		p.active[i] = p.active[k]
	}
	p.active = p.active[:len(keep)]
}

// lambdaMax returns max_j |A_jᵀ b|, the smallest l1 for which x = 0 is optimal.
func (p *lsq) lambdaMax() float64 {
	var m float64
	for j := range p.cols {
		var s float64
		for i := range p.rows {
			s += p.A[i*p.cols+j] * p.b[i]
		}
		m = max(m, math.Abs(s))
	}
	return m
}

// coordinateDescent solves min ½||Ax-b||² + ½ l2||x||² + l1||x||_1 by cyclic
// coordinate descent with soft thresholding, an algorithm independent of
// OWL-QN:  x_j = S(A_jᵀ r_j, l1) / (||A_j||² + l2), r_j the partial residual.
func (p *lsq) coordinateDescent(l1 float64) []float64 {
	x := make([]float64, p.cols)
	r := make([]float64, p.rows) // r = b - A x
	copy(r, p.b)
	norms := make([]float64, p.cols)
	for j := range p.cols {
		for i := range p.rows {
			a := p.A[i*p.cols+j]
			norms[j] += a * a
		}
	}
	for sweep := 0; sweep < 100000; sweep++ {
		var change float64
		for j := range p.cols {
			var rho float64
			for i := range p.rows {
				rho += p.A[i*p.cols+j] * (r[i] + p.A[i*p.cols+j]*x[j])
			}
			nx := math.Copysign(math.Max(math.Abs(rho)-l1, 0), rho) / (norms[j] + p.l2)
			if d := nx - x[j]; d != 0 {
				for i := range p.rows {
					r[i] -= p.A[i*p.cols+j] * d
				}
				change = math.Max(change, math.Abs(d))
				x[j] = nx
			}
		}
		if change < 1e-15 {
			break
		}
	}
	return x
}

// run iterates until the pseudo-gradient's max-norm is at most tol, Iterate
// fails with ErrLineSearch (treated as convergence at working precision) or
// maxIter iterations; it returns the number of iterations made.
func run(t testing.TB, o *driven, tol float64, maxIter int) int {
	t.Helper()
	pg := make([]float64, o.Len())
	for k := 0; k < maxIter; k++ {
		pg = pg[:o.Len()]
		pseudoGradient(pg, o.X(), o.Grad(), o.set.L1)
		if o.Stale() {
			// Grad is out of date; let Iterate re-evaluate first.
		} else if maxAbs(pg) <= tol {
			return k
		}
		if err := o.Iterate(); err != nil {
			if errors.Is(err, ErrLineSearch) {
				t.Logf("run: ErrLineSearch after %d iterations at max|pg| = %g", k, maxAbs(pg))
				return k
			}
			t.Fatalf("Iterate %d: %v", k, err)
		}
	}
	return maxIter
}

func maxAbs(v []float64) float64 {
	var m float64
	for _, x := range v {
		m = math.Max(m, math.Abs(x))
	}
	return m
}

// checkKKT checks the optimality conditions of min f + l1||x||_1 given
// g = ∇f(x): g_j = -l1 sign(x_j) where x_j != 0, |g_j| <= l1 where x_j = 0,
// within tol*max(1, l1).
func checkKKT(t testing.TB, x, g []float64, l1, tol float64) {
	t.Helper()
	tol *= max(1, l1)
	for j, xj := range x {
		if xj != 0 {
			if d := math.Abs(g[j] + l1*math.Copysign(1, xj)); !(d <= tol) {
				t.Fatalf("KKT: x[%d] = %g, grad = %g, want grad = %g (off by %g)", j, xj, g[j], -l1*math.Copysign(1, xj), d)
			}
		} else if !(math.Abs(g[j]) <= l1+tol) {
			t.Fatalf("KKT: x[%d] = 0, |grad| = %g > l1 = %g", j, math.Abs(g[j]), l1)
		}
	}
}

// Func is the smooth objective the tests drive the optimizer with.
type Func func(x, grad []float64) (float64, error)

// driven is an Optimizer with an objective attached: Iterate and Reevaluate
// are the loops a caller of the reverse-communication API writes.
type driven struct {
	*Optimizer
	fn    Func
	evals int
	stale bool // Compact moved X; the next Iterate re-evaluates first
}

// drive evaluates fn at x0 and starts an optimizer there.
func drive(x0 []float64, fn Func, s Settings) (*driven, error) {
	g := make([]float64, len(x0))
	f, err := fn(x0, g)
	if err != nil {
		return nil, err
	}
	o, err := New(x0, f, g, s)
	if err != nil {
		return nil, err
	}
	return &driven{Optimizer: o, fn: fn, evals: 1}, nil
}

// Iterate runs one OWL-QN iteration: trial points until one is accepted.
func (d *driven) Iterate() error {
	if d.stale {
		if err := d.Reevaluate(); err != nil {
			return err
		}
	}
	for {
		x, g, err := d.Next()
		if err != nil || x == nil {
			return err
		}
		f, err := d.fn(x, g)
		d.evals++
		if err != nil {
			return fmt.Errorf("owlqn: line search: %w", err)
		}
		if d.Tell(f) {
			return nil
		}
	}
}

// Reevaluate evaluates fn at X and rebases the optimizer there.
func (d *driven) Reevaluate() error {
	g := make([]float64, len(d.X()))
	f, err := d.fn(d.X(), g)
	d.evals++
	if err != nil {
		return fmt.Errorf("owlqn: evaluating at current point: %w", err)
	}
	if err := d.Rebase(f, g); err != nil {
		return err
	}
	d.stale = false
	return nil
}

// Compact compacts the optimizer and remembers whether X moved.
func (d *driven) Compact(keep []int32, resetMemory bool) {
	if d.Optimizer.Compact(keep, resetMemory) {
		d.stale = true
	}
}

func (d *driven) Evaluations() int { return d.evals }
func (d *driven) Len() int         { return len(d.X()) }
func (d *driven) Stale() bool      { return d.stale }

// PseudoGradient returns ◇F at X.
func (d *driven) PseudoGradient(dst []float64) []float64 {
	dst = append(dst[:0], d.X()...)
	pseudoGradient(dst, d.X(), d.Grad(), d.set.L1)
	return dst
}

// resume evaluates fn at the snapshot's point and resumes from it.
func resume(st State, fn Func, s Settings) (*driven, error) {
	g := make([]float64, len(st.X))
	f, err := fn(st.X, g)
	if err != nil {
		return nil, err
	}
	o, err := Resume(st, f, g, s)
	if err != nil {
		return nil, err
	}
	return &driven{Optimizer: o, fn: fn, evals: 1}, nil
}
