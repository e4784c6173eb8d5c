package owlqn

import (
	"errors"
	"fmt"
	"math"
)

// Func evaluates the smooth part f of the objective: it writes ∇f(x) into
// grad (len(x), every element) and returns f(x). It must not modify or
// retain x or grad. It may return an error (for example when a context is
// cancelled), which aborts the current Iterate, New or Reevaluate.
type Func func(x, grad []float64) (float64, error)

// Settings configures an Optimizer. The zero value of every field except L1
// selects its default.
type Settings struct {
	// M is the number of (s, y) pairs the L-BFGS memory keeps. If M is 0,
	// it defaults to 10. The optimizer holds (2M+6)·n float64s for
	// dimension n.
	M int
	// L1 is the weight of the l1 term, L1 >= 0. With L1 = 0 the optimizer
	// is plain L-BFGS.
	L1 float64
	// MaxLineSearch is the maximum number of function evaluations (trial
	// steps) of one line search. If 0, it defaults to 30.
	MaxLineSearch int
	// Armijo is the sufficient decrease constant c of the line search,
	// 0 < c < 1. If 0, it defaults to 1e-4.
	Armijo float64
	// Backtrack is the factor the step is multiplied by after a rejected
	// trial, 0 < Backtrack < 1. If 0, it defaults to 0.5.
	Backtrack float64
	// Threads is the number of goroutines the optimizer's own vector work
	// (two-loop recursion, memory update, pseudo-gradient, projections,
	// line-search trial points) runs on; 0 or 1 means the calling
	// goroutine only. Each vector kernel starts Threads-1 goroutines and
	// waits for them; none outlives the call. Vectors shorter than 65536
	// elements are always processed serially. The iterates do not depend
	// on Threads: every sum is formed over fixed chunks of the index
	// range, added in chunk order, so the results are bit-identical for
	// any value.
	Threads int
}

const (
	defaultM             = 10
	defaultMaxLineSearch = 30
	defaultArmijo        = 1e-4
	defaultBacktrack     = 0.5
)

// withDefaults returns s with zero fields replaced by their defaults, or an
// error naming the first invalid field.
func (s Settings) withDefaults() (Settings, error) {
	if s.M == 0 {
		s.M = defaultM
	}
	if s.MaxLineSearch == 0 {
		s.MaxLineSearch = defaultMaxLineSearch
	}
	if s.Armijo == 0 {
		s.Armijo = defaultArmijo
	}
	if s.Backtrack == 0 {
		s.Backtrack = defaultBacktrack
	}
	switch {
	case s.Threads < 0:
		return s, fmt.Errorf("owlqn: Settings.Threads = %d, want >= 0", s.Threads)
	case s.M < 0:
		return s, fmt.Errorf("owlqn: Settings.M = %d, want >= 0", s.M)
	case !(s.L1 >= 0) || math.IsInf(s.L1, 1):
		return s, fmt.Errorf("owlqn: Settings.L1 = %g, want finite and >= 0", s.L1)
	case s.MaxLineSearch < 0:
		return s, fmt.Errorf("owlqn: Settings.MaxLineSearch = %d, want >= 0", s.MaxLineSearch)
	case !(s.Armijo > 0 && s.Armijo < 1):
		return s, fmt.Errorf("owlqn: Settings.Armijo = %g, want in (0, 1)", s.Armijo)
	case !(s.Backtrack > 0 && s.Backtrack < 1):
		return s, fmt.Errorf("owlqn: Settings.Backtrack = %g, want in (0, 1)", s.Backtrack)
	}
	return s, nil
}

var (
	// ErrLineSearch is returned by Iterate when no trial step satisfied the
	// sufficient decrease condition within Settings.MaxLineSearch
	// evaluations, or when the step became too small to move x. Near the
	// optimum this usually means that F cannot be decreased further at
	// floating-point precision.
	ErrLineSearch = errors.New("owlqn: line search failed")
	// ErrNotFinite is returned by New and Reevaluate when f or its gradient
	// is NaN or infinite at the current point, and by Iterate when the
	// gradient at the current point is, so that no direction exists.
	ErrNotFinite = errors.New("owlqn: objective or gradient not finite")
)

// Optimizer minimizes F(x) = f(x) + l1*||x||_1 by OWL-QN, one iteration per
// call of Iterate. It is not safe for concurrent use.
type Optimizer struct {
	fn  Func
	set Settings
	ops *vecops // nil: serial kernels

	x, g   []float64 // current point and ∇f there
	xt, gt []float64 // trial point and its gradient (line search scratch)
	pg     []float64 // pseudo-gradient at x
	d      []float64 // search direction
	mem    memory

	f, obj float64 // f(x) and F(x)
	stale  bool    // x changed (Compact) since f and g were computed
	iter   int
	evals  int
}

// New copies x0, evaluates fn there and returns an optimizer positioned at
// x0. It returns an error if the settings are invalid, x0 is empty, fn fails
// or its value or gradient at x0 is not finite.
func New(x0 []float64, fn Func, s Settings) (*Optimizer, error) {
	o, err := newOptimizer(x0, fn, s)
	if err != nil {
		return nil, err
	}
	if err := o.Reevaluate(); err != nil {
		return nil, err
	}
	return o, nil
}

// NewEvaluated is New for a caller that already has f(x0) and its gradient
// g0 (for example from a pass that priced a larger problem at the same
// point): it copies them instead of calling fn at x0. The caller is
// responsible for f and g0 belonging to x0 exactly.
func NewEvaluated(x0 []float64, f float64, g0 []float64, fn Func, s Settings) (*Optimizer, error) {
	if len(g0) != len(x0) {
		return nil, errors.New("owlqn: gradient and point lengths differ")
	}
	if math.IsNaN(f) || math.IsInf(f, 0) || !finite(g0) {
		return nil, ErrNotFinite
	}
	o, err := newOptimizer(x0, fn, s)
	if err != nil {
		return nil, err
	}
	copy(o.g, g0)
	o.f = f
	o.obj = f + o.set.L1*o.ops.norm1(o.x)
	return o, nil
}

// newOptimizer allocates an optimizer positioned at x0, not evaluated.
func newOptimizer(x0 []float64, fn Func, s Settings) (*Optimizer, error) {
	s, err := s.withDefaults()
	if err != nil {
		return nil, err
	}
	if len(x0) == 0 {
		return nil, errors.New("owlqn: empty starting point")
	}
	if fn == nil {
		panic("owlqn: nil Func")
	}
	n := len(x0)
	buf := make([]float64, 6*n)
	vec := func(i int) []float64 { return buf[i*n : (i+1)*n : (i+1)*n] }
	o := &Optimizer{
		fn:  fn,
		set: s,
		x:   vec(0), g: vec(1),
		xt: vec(2), gt: vec(3),
		pg: vec(4), d: vec(5),
		mem: newMemory(s.M, n),
	}
	copy(o.x, x0)
	o.ops = newVecops(s.Threads, n)
	return o, nil
}

// Close does nothing: an optimizer holds no goroutines or other resources
// between calls. It is kept so that existing callers compile; new code need
// not call it.
func (o *Optimizer) Close() {}

// Iterate performs one OWL-QN iteration (see the package documentation):
// pseudo-gradient, two-loop direction, direction projection, backtracking
// line search along the orthant-projected path and memory update.
//
// When it returns nil, X, Grad, F and Objective describe the accepted point
// and the last call Iterate made to the Func was at that point, so the
// caller's cache of its last evaluation is that of X(). If the pseudo-
// gradient is exactly zero, X is optimal: Iterate returns nil without
// calling the Func or changing anything. If the point is stale after
// Compact, Iterate first calls Reevaluate.
//
// On failure it returns ErrLineSearch, ErrNotFinite or the (wrapped) error
// of the Func, and keeps the last valid point: X, Grad, F and Objective are
// unchanged. The caller's cache may then be stale (it holds the evaluation
// at a rejected trial point); call Reevaluate to refresh it.
func (o *Optimizer) Iterate() error {
	if o.stale {
		if err := o.Reevaluate(); err != nil {
			return err
		}
	}
	l1 := o.set.L1
	pgNorm := math.Sqrt(o.ops.pseudoGradient(o.pg, o.x, o.g, l1))
	if pgNorm == 0 {
		return nil
	}
	if math.IsNaN(pgNorm) || math.IsInf(pgNorm, 0) {
		return ErrNotFinite
	}

	twoLoop(o.ops, o.d, o.pg, &o.mem)
	// With l1 > 0, projectDirection; then d·pg, in the same pass.
	// After projection every non-zero d_j has the sign of -pg_j, so
	// d·pg < 0 unless d vanished; without l1, d·g < 0 as long as H stays
	// positive definite. If rounding broke this, restart from steepest
	// descent with an empty memory.
	if !(o.ops.projectDot(o.d, o.pg, l1 > 0) < 0) {
		o.mem.reset()
		o.ops.lin(o.d, o.pg, 0, nil, -1, nil)
	}
	// First step: 1/||◇F|| when the memory is empty (the direction is
	// then -◇F, so the first trial moves x by a distance of 1), the
	// natural quasi-Newton step 1 otherwise.
	step := 1.0
	if o.mem.count == 0 {
		step = 1 / pgNorm
	}
	ft, objt, evals, err := lineSearch(o.ops, o.fn, o.x, o.g, o.pg, o.d, o.xt, o.gt, o.obj, l1, step, &o.set)
	o.evals += evals
	if err != nil {
		if err == ErrLineSearch {
			return err
		}
		return fmt.Errorf("owlqn: line search: %w", err)
	}
	o.mem.update(o.ops, o.xt, o.x, o.gt, o.g)
	o.x, o.xt = o.xt, o.x
	o.g, o.gt = o.gt, o.g
	o.f, o.obj = ft, objt
	o.iter++
	return nil
}

// Reevaluate calls the Func at X and replaces F, Grad and Objective, for
// example after the smooth objective changed (a new L2 weight) or after a
// Compact that zeroed non-zero coordinates. The memory is kept; call
// ResetMemory as well if the curvature changed a lot. On error the previous
// values are kept. After a nil return, the last call to the Func was at X().
func (o *Optimizer) Reevaluate() error {
	f, err := o.fn(o.x, o.gt)
	o.evals++
	if err != nil {
		return fmt.Errorf("owlqn: evaluating at current point: %w", err)
	}
	if math.IsNaN(f) || math.IsInf(f, 0) || !finite(o.gt) {
		return ErrNotFinite
	}
	o.g, o.gt = o.gt, o.g
	o.f = f
	o.obj = f + o.set.L1*o.ops.norm1(o.x)
	o.stale = false
	return nil
}

func finite(v []float64) bool {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}

// X returns the current point. It aliases internal storage: read-only for
// the caller, valid until the next Iterate, Reevaluate or Compact.
func (o *Optimizer) X() []float64 { return o.x }

// Grad returns ∇f at X (the gradient of the smooth part only). It aliases
// internal storage like X.
func (o *Optimizer) Grad() []float64 { return o.g }

// F returns f(X), the smooth part of the objective.
func (o *Optimizer) F() float64 { return o.f }

// Objective returns F(X) = f(X) + l1*||X||_1.
func (o *Optimizer) Objective() float64 { return o.obj }

// PseudoGradient appends the pseudo-gradient ◇F(X) of F = f + l1*||x||_1 to
// dst[:0] and returns it: the minimum-norm subgradient of F at X, zero exactly
// at a minimizer. Its norm is a cheap stopping test; with l1 = 0 it is Grad.
// The result is out of date while Stale reports true.
func (o *Optimizer) PseudoGradient(dst []float64) []float64 {
	dst = append(dst[:0], o.x...) // grow to Len, then overwrite
	o.ops.pseudoGradient(dst, o.x, o.g, o.set.L1)
	return dst
}

// L1 returns the current l1 weight.
func (o *Optimizer) L1() float64 { return o.set.L1 }

// Len returns the current dimension (it shrinks with Compact).
func (o *Optimizer) Len() int { return len(o.x) }

// Iterations returns the number of successful calls to Iterate that moved
// the point.
func (o *Optimizer) Iterations() int { return o.iter }

// Evaluations returns the number of calls to the Func so far, including the
// one made by New.
func (o *Optimizer) Evaluations() int { return o.evals }

// Stale reports whether F, Grad and Objective are out of date because
// Compact zeroed a non-zero coordinate. Reevaluate (or the next Iterate,
// which calls it) clears it.
func (o *Optimizer) Stale() bool { return o.stale }

// Compact removes coordinates: keep lists the surviving indices, strictly
// increasing, into the current vector. X, Grad and every stored (s, y) pair
// are shrunk in place, without allocation; the dropped coordinates are
// fixed at 0 from now on, and the Func must evaluate the restricted problem
// on vectors of length len(keep) from the next call on.
//
// If every dropped coordinate of X is 0, the restricted problem has the
// same value at the compacted X and its gradient is the compacted gradient,
// so F, Grad and Objective stay exact and the Func is not called. Otherwise
// the dropped coordinates are zeroed, Stale reports true and the caller
// should call Reevaluate (Iterate does it first if the caller did not).
//
// If resetMemory is true the memory is cleared; otherwise each pair is
// compacted, its curvature s·y recomputed on the surviving coordinates, and
// pairs whose curvature is no longer positive are dropped.
//
// Compact panics if keep is not strictly increasing within [0, Len()).
func (o *Optimizer) Compact(keep []int32, resetMemory bool) {
	n := len(o.x)
	prev := int32(-1)
	for _, k := range keep {
		if k <= prev || int(k) >= n {
			panic("owlqn: Compact: keep must be strictly increasing indices in [0, Len())")
		}
		for j := prev + 1; j < k; j++ {
			if o.x[j] != 0 {
				o.stale = true
			}
		}
		prev = k
	}
	for j := int(prev) + 1; j < n; j++ {
		if o.x[j] != 0 {
			o.stale = true
		}
	}
	if resetMemory {
		o.mem.reset()
	}
	o.mem.compact(o.ops, keep, o.x, o.g)
	m := len(keep)
	o.x, o.g = o.x[:m], o.g[:m]
	o.xt, o.gt = o.xt[:m], o.gt[:m]
	o.pg, o.d = o.pg[:m], o.d[:m]
	if !o.stale {
		// Dropped coordinates were 0: ||x||_1 is unchanged, but
		// recompute it to stay bit-identical with a fresh evaluation.
		o.obj = o.f + o.set.L1*o.ops.norm1(o.x)
	}
}

// SetL1 changes the l1 weight (for a warm start along a regularization
// path) and clears the memory, whose pairs came from a different orthant
// structure. f and Grad do not depend on l1, so no evaluation is needed;
// Objective is updated. It panics if l1 is negative, NaN or infinite.
func (o *Optimizer) SetL1(l1 float64) {
	if !(l1 >= 0) || math.IsInf(l1, 1) {
		panic("owlqn: SetL1: l1 must be finite and >= 0")
	}
	o.set.L1 = l1
	o.obj = o.f + l1*o.ops.norm1(o.x)
	o.mem.reset()
}

// ResetMemory clears the L-BFGS memory: the next iteration starts with a
// steepest descent step along the pseudo-gradient.
func (o *Optimizer) ResetMemory() { o.mem.reset() }
