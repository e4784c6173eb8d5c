package owlqn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
)

// restrictable is a test problem whose Func can be restricted to a subset of
// its coordinates, as the trainer restricts its objective after screening.
type restrictable interface {
	eval(x, g []float64) (float64, error)
	compact(keep []int32)
}

// logistic is binary logistic regression with an L2 term, a smooth,
// non-quadratic f closer to a CRF likelihood than least squares:
//
//	f(w) = Σ_i log(1 + exp(-y_i a_i·w)) + ½ l2 ||w||².
type logistic struct {
	A          []float64
	y          []float64
	rows, cols int
	l2         float64
	active     []int32
	m          []float64 // per-row scratch
}

func newLogistic(rng *rand.Rand, rows, cols int, l2 float64) *logistic {
	p := &logistic{A: make([]float64, rows*cols), y: make([]float64, rows), rows: rows, cols: cols, l2: l2, m: make([]float64, rows)}
	truth := make([]float64, cols)
	for j := range truth {
		if rng.IntN(4) == 0 {
			truth[j] = rng.NormFloat64() * 3
		}
	}
	for i := range rows {
		var s float64
		for j := range cols {
			a := rng.NormFloat64()
			p.A[i*cols+j] = a
			s += a * truth[j]
		}
		p.y[i] = 1
		if s+rng.NormFloat64() < 0 {
			p.y[i] = -1
		}
	}
	p.active = make([]int32, cols)
	for j := range p.active {
		p.active[j] = int32(j)
	}
	return p
}

func (p *logistic) eval(x, g []float64) (float64, error) {
	var f float64
	for i := range p.rows {
		row := p.A[i*p.cols : (i+1)*p.cols]
		var z float64
		for k, j := range p.active {
			z += row[j] * x[k]
		}
		z *= p.y[i]
		// log(1+exp(-z)) and its derivative -σ(-z), computed stably.
		if z > 0 {
			f += math.Log1p(math.Exp(-z))
			p.m[i] = -p.y[i] * math.Exp(-z) / (1 + math.Exp(-z))
		} else {
			f += -z + math.Log1p(math.Exp(z))
			p.m[i] = -p.y[i] / (1 + math.Exp(z))
		}
	}
	for k, j := range p.active {
		var s float64
		for i := range p.rows {
			s += p.A[i*p.cols+int(j)] * p.m[i]
		}
		g[k] = s + p.l2*x[k]
		f += 0.5 * p.l2 * x[k] * x[k]
	}
	return f, nil
}

func (p *logistic) compact(keep []int32) {
	for i, k := range keep {
		p.active[i] = p.active[k]
	}
	p.active = p.active[:len(keep)]
}

// lambdaMax returns max_j |∂f/∂w_j(0)|, the smallest l1 making w = 0 optimal.
func (p *logistic) lambdaMax() float64 {
	g := make([]float64, p.cols)
	p.eval(make([]float64, p.cols), g)
	return maxAbs(g)
}

type compactCase struct {
	name  string
	l1    float64
	n     int
	fresh func() restrictable // a new, unrestricted instance
	ref   []float64           // the solution, computed independently
}

var (
	compactOnce  sync.Once
	compactCache []compactCase
)

// compactCases returns the problems of the compaction tests, built once
// (the logistic references need a long solve).
func compactCases(t testing.TB) []compactCase {
	compactOnce.Do(func() { compactCache = buildCompactCases(t) })
	if compactCache == nil {
		t.Fatal("compact test cases failed to build")
	}
	return compactCache
}

func buildCompactCases(t testing.TB) []compactCase {
	var cases []compactCase
	for _, c := range []struct {
		seed       uint64
		rows, cols int
		l2, frac   float64
	}{
		{31, 60, 40, 0.1, 0.1},
		{32, 40, 120, 0.1, 0.2},
		{33, 100, 200, 1, 0.05},
	} {
		newP := func() *lsq { return newLSQ(rand.New(rand.NewPCG(c.seed, 5)), c.rows, c.cols, c.l2) }
		p := newP()
		l1 := c.frac * p.lambdaMax()
		cases = append(cases, compactCase{
			name:  fmt.Sprintf("elastic-net %dx%d l1=%.2g·λmax", c.rows, c.cols, c.frac),
			l1:    l1,
			n:     c.cols,
			fresh: func() restrictable { return newP() },
			ref:   p.coordinateDescent(l1),
		})
	}
	for _, c := range []struct {
		seed       uint64
		rows, cols int
		l2, frac   float64
	}{
		{41, 80, 50, 0.1, 0.1},
		{42, 150, 300, 0.1, 0.1},
	} {
		newP := func() *logistic { return newLogistic(rand.New(rand.NewPCG(c.seed, 5)), c.rows, c.cols, c.l2) }
		p := newP()
		l1 := c.frac * p.lambdaMax()
		// Reference: a long uncompacted run to a tight tolerance, checked
		// against the KKT conditions.
		o, err := drive(make([]float64, c.cols), p.eval, Settings{L1: l1})
		if err != nil {
			t.Fatal(err)
		}
		run(t, o, 1e-12, 20000)
		checkKKT(t, o.X(), o.Grad(), l1, 1e-9)
		cases = append(cases, compactCase{
			name:  fmt.Sprintf("logistic %dx%d l1=%.2g·λmax", c.rows, c.cols, c.frac),
			l1:    l1,
			n:     c.cols,
			fresh: func() restrictable { return newP() },
			ref:   slices.Clone(o.X()),
		})
	}
	return cases
}

// keepSet returns the complement of the coordinates that are 0 in ref with
// a strictly inactive gradient (those a safe screening rule may remove).
func (c *compactCase) keepSet() []int32 {
	p := c.fresh()
	g := make([]float64, c.n)
	p.eval(c.ref, g)
	var keep []int32
	for j, v := range c.ref {
		if v != 0 || math.Abs(g[j]) > c.l1*(1-1e-6) {
			keep = append(keep, int32(j))
		}
	}
	return keep
}

type compactResult struct {
	iters, evals int
}

// solveWithCompact runs `before` iterations on the full problem, compacts
// to keep (unless keep is nil), and runs to convergence. It checks the
// expanded solution against c.ref.
func solveWithCompact(t *testing.T, c *compactCase, before int, keep []int32, reset bool) compactResult {
	t.Helper()
	const tol = 1e-10
	p := c.fresh()
	o, err := drive(make([]float64, c.n), p.eval, Settings{L1: c.l1})
	if err != nil {
		t.Fatal(err)
	}
	iters := run(t, o, tol, before)
	if keep != nil {
		evalsBefore := o.Evaluations()
		o.Compact(keep, reset)
		p.compact(keep)
		if o.Evaluations() != evalsBefore {
			t.Fatal("Compact called the Func")
		}
		if o.Len() != len(keep) {
			t.Fatalf("Len() = %d after Compact, want %d", o.Len(), len(keep))
		}
	}
	iters += run(t, o, tol, 20000)
	full := make([]float64, c.n)
	if keep == nil {
		copy(full, o.X())
	} else {
		for i, k := range keep {
			full[k] = o.X()[i]
		}
	}
	approxEqual(t, c.name, c.ref, full, 1e-7, 1e-7)
	return compactResult{iters, o.Evaluations()}
}

// TestCompactConverges checks that compacting mid-run the coordinates that
// are zero at the optimum, with compacted or with reset memory, converges to
// the same solution, and logs the iteration counts of both modes (the
// measurement behind the trainer's default; run with -v).
func TestCompactConverges(t *testing.T) {
	cases := compactCases(t)
	var tab strings.Builder
	fmt.Fprintf(&tab, "\n%-34s %6s %5s | %-11s | %-11s | %-11s\n", "problem", "drop", "after", "no compact", "compact mem", "reset mem")
	fmt.Fprintf(&tab, "%-34s %6s %5s | %5s %5s | %5s %5s | %5s %5s\n", "", "", "iter", "iters", "evals", "iters", "evals", "iters", "evals")
	var sumC, sumR, evC, evR int
	for i := range cases {
		c := &cases[i]
		keep := c.keepSet()
		if len(keep) == c.n || len(keep) == 0 {
			t.Fatalf("%s: degenerate zero set (%d kept of %d)", c.name, len(keep), c.n)
		}
		befores := []int{3, 10, 25}
		if testing.Short() {
			befores = []int{10}
		}
		for _, before := range befores {
			base := solveWithCompact(t, c, before, nil, false)
			comp := solveWithCompact(t, c, before, keep, false)
			reset := solveWithCompact(t, c, before, keep, true)
			fmt.Fprintf(&tab, "%-34s %6d %5d | %5d %5d | %5d %5d | %5d %5d\n", c.name, c.n-len(keep), before,
				base.iters, base.evals, comp.iters, comp.evals, reset.iters, reset.evals)
			sumC += comp.iters
			sumR += reset.iters
			evC += comp.evals
			evR += reset.evals
		}
	}
	fmt.Fprintf(&tab, "total iterations: compacted memory %d, reset memory %d; evaluations: %d vs %d", sumC, sumR, evC, evR)
	t.Log(tab.String())
}

// TestCompactKeepsExactValues checks that compacting coordinates that are 0
// keeps F, Grad and Objective equal to a fresh evaluation of the restricted
// problem without calling the Func, and that compacting a non-zero
// coordinate marks the optimizer stale and is repaired by Iterate.
func TestCompactKeepsExactValues(t *testing.T) {
	c := compactCases(t)[0]
	p := c.fresh()
	o, err := drive(make([]float64, c.n), p.eval, Settings{L1: c.l1})
	if err != nil {
		t.Fatal(err)
	}
	run(t, o, 0, 8)
	var zeroKeep, nonzeroKeep []int32
	droppedNonzero := false
	for j, v := range o.X() {
		if v != 0 || j%3 != 0 {
			zeroKeep = append(zeroKeep, int32(j))
		}
		if j%5 != 0 {
			nonzeroKeep = append(nonzeroKeep, int32(j))
		} else if v != 0 {
			droppedNonzero = true
		}
	}
	if len(zeroKeep) == c.n || !droppedNonzero {
		t.Fatal("test setup: nothing to drop")
	}

	evals := o.Evaluations()
	o.Compact(zeroKeep, false)
	p.compact(zeroKeep)
	if o.Stale() || o.Evaluations() != evals {
		t.Fatalf("Compact of zero coordinates: stale = %v, evaluations %d -> %d", o.Stale(), evals, o.Evaluations())
	}
	g := make([]float64, o.Len())
	f, _ := p.eval(o.X(), g)
	approxScalar(t, "F after Compact", f, o.F(), 1e-12, 1e-12)
	approxEqual(t, "Grad after Compact", g, o.Grad(), 1e-12, 1e-12)
	approxScalar(t, "Objective after Compact", f+c.l1*norm1(o.X()), o.Objective(), 1e-12, 1e-12)

	// Map nonzeroKeep (indices into the original vector) to the current one.
	var keep2 []int32
	for i, k := range zeroKeep {
		if slices.Contains(nonzeroKeep, k) {
			keep2 = append(keep2, int32(i))
		}
	}
	o.Compact(keep2, true)
	p.compact(keep2)
	if !o.Stale() {
		t.Fatal("Compact zeroed a non-zero coordinate but Stale() is false")
	}
	if err := o.Iterate(); err != nil {
		t.Fatal(err)
	}
	if o.Stale() {
		t.Fatal("still stale after Iterate")
	}
	g = g[:o.Len()]
	f, _ = p.eval(o.X(), g)
	approxScalar(t, "F after stale Iterate", f, o.F(), 1e-12, 1e-12)
	approxEqual(t, "Grad after stale Iterate", g, o.Grad(), 1e-12, 1e-12)
}

func TestCompactPanicsOnBadKeep(t *testing.T) {
	fn := func(x, g []float64) (float64, error) { clear(g); return 0, nil }
	for _, keep := range [][]int32{{1, 0}, {0, 0}, {-1}, {3}} {
		o, err := drive(make([]float64, 3), fn, Settings{})
		if err != nil {
			t.Fatal(err)
		}
		func() {
			defer func() {
				if r := recover(); r == nil {
					t.Errorf("Compact(%v) did not panic", keep)
				}
			}()
			o.Compact(keep, false)
		}()
	}
}

func TestCompactAllocs(t *testing.T) {
	c := compactCases(t)[0]
	p := c.fresh()
	o, err := drive(make([]float64, c.n), p.eval, Settings{L1: c.l1})
	if err != nil {
		t.Fatal(err)
	}
	run(t, o, 0, 12)
	keep := make([]int32, o.Len())
	for i := range keep {
		keep[i] = int32(i)
	}
	// Keeping every coordinate exercises the whole compaction path.
	if a := testing.AllocsPerRun(20, func() { o.Compact(keep, false) }); a != 0 {
		t.Errorf("Compact allocates %g times", a)
	}
}
