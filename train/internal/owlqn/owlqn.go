package owlqn

import (
	"errors"
	"fmt"
	"math"
)

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

	// forceParallel makes the kernels take the parallel path whatever the
	// length of the vectors (tests only: the results are the same).
	forceParallel bool
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
	// ErrLineSearch is returned by Next when no trial step satisfied the
	// sufficient decrease condition within Settings.MaxLineSearch
	// evaluations, or when the step became too small to move x. X, F and
	// Grad keep the last accepted point. Near the optimum this usually
	// means that F cannot be decreased further at floating-point
	// precision.
	ErrLineSearch = errors.New("owlqn: line search failed")
	// ErrNotFinite is returned by New and Rebase when the caller's value or
	// gradient is NaN or infinite, and by Next when the pseudo-gradient at
	// X is, so that no direction exists.
	ErrNotFinite = errors.New("owlqn: objective or gradient not finite")
)

// Optimizer minimizes F(x) = f(x) + l1*||x||_1 by OWL-QN in reverse
// communication: it never calls f. The caller evaluates f and ∇f at the
// points it is handed (Next) and hands the value back (Tell). It is not
// safe for concurrent use.
type Optimizer struct {
	set Settings
	ops *vecops // nil: serial kernels

	x, g   []float64 // current point and ∇f there
	xt, gt []float64 // trial point and its gradient (the caller fills gt)
	pg     []float64 // pseudo-gradient at x
	d      []float64 // search direction
	mem    memory

	f, obj float64   // f(x) and F(x)
	diag   diagStart // SetDiagonal's initial inverse Hessian, while it lasts
	iter   int

	// The line search in progress (searching: a trial was handed out and
	// not yet told, or a rejected trial waits for the next one).
	searching bool
	told      bool    // Tell was called for the current trial
	step      float64 // the current trial's step length α
	tries     int     // trials of this line search so far
	dec       float64 // ◇F(x)·(xt - x) of the current trial
	dl1, n1   float64 // ||xt||_1 - ||x||_1 and ||xt||_1
}

// New returns an optimizer positioned at x0, where the caller evaluated
// f(x0) = f0 and ∇f(x0) = g0 (both are copied). It returns an error if the
// settings are invalid, x0 is empty, g0 has another length or f0 or g0 is
// not finite.
func New(x0 []float64, f0 float64, g0 []float64, s Settings) (*Optimizer, error) {
	s, err := s.withDefaults()
	if err != nil {
		return nil, err
	}
	n := len(x0)
	switch {
	case n == 0:
		return nil, errors.New("owlqn: empty starting point")
	case len(g0) != n:
		return nil, errors.New("owlqn: gradient and point lengths differ")
	case math.IsNaN(f0) || math.IsInf(f0, 0) || !finite(g0):
		return nil, ErrNotFinite
	}
	buf := make([]float64, 6*n)
	vec := func(i int) []float64 { return buf[i*n : (i+1)*n : (i+1)*n] }
	o := &Optimizer{
		set: s,
		x:   vec(0), g: vec(1),
		xt: vec(2), gt: vec(3),
		pg: vec(4), d: vec(5),
		mem: newMemory(s.M, n),
	}
	copy(o.x, x0)
	copy(o.g, g0)
	minLen := parMinLen
	if s.forceParallel {
		minLen = 0
	}
	o.ops = newVecops(s.Threads, n, minLen)
	o.f = f0
	o.obj = f0 + s.L1*o.ops.norm1(o.x)
	return o, nil
}

// Next returns the next point at which the caller must evaluate f: x, to
// read, and grad, into which the caller writes ∇f(x) (every element)
// before it calls Tell with f(x). Both alias internal storage and are valid
// until the next call to Tell.
//
// When no line search is in progress, Next starts an iteration (see the
// package documentation): pseudo-gradient, two-loop direction, direction
// projection and the first trial point. After a rejected trial it returns
// the next, backtracked one. If the pseudo-gradient at X is exactly zero, X
// minimizes F: Next returns nil slices and a nil error. It returns
// ErrLineSearch when the line search used up Settings.MaxLineSearch trials
// or the step no longer moves x, and ErrNotFinite when the pseudo-gradient
// is not finite; X, F and Grad then keep the last accepted point and the
// next call starts a new iteration from it. A trial handed out and never
// told (the caller's evaluation failed) is abandoned the same way.
func (o *Optimizer) Next() (x, grad []float64, err error) {
	if o.searching && !o.told {
		// The caller never told the last trial (its evaluation failed):
		// abandon that line search.
		o.searching = false
	}
	if !o.searching {
		ok, err := o.startIteration()
		if !ok || err != nil {
			return nil, nil, err
		}
	}
	if o.tries >= o.set.MaxLineSearch {
		o.searching = false
		return nil, nil, ErrLineSearch
	}
	// dec = ◇F(x)·(x' - x), < 0 because x' - x agrees in sign with d,
	// which agrees with -◇F(x) after projectDirection.
	var moved bool
	o.dec, o.dl1, o.n1, moved = o.ops.trial(o.xt, o.x, o.d, o.pg, o.step, o.set.L1 > 0)
	if !moved {
		// The step underflowed: x' == x satisfies (A) trivially but
		// makes no progress.
		o.searching = false
		return nil, nil, ErrLineSearch
	}
	o.told = false
	return o.xt, o.gt, nil
}

// startIteration computes the pseudo-gradient and the search direction at
// X and the first step length. It reports false when X is optimal.
func (o *Optimizer) startIteration() (bool, error) {
	l1 := o.set.L1
	pgNorm := math.Sqrt(o.ops.pseudoGradient(o.pg, o.x, o.g, l1))
	if pgNorm == 0 {
		return false, nil
	}
	if math.IsNaN(pgNorm) || math.IsInf(pgNorm, 0) {
		return false, ErrNotFinite
	}
	if o.diag.h != nil {
		twoLoopDiag(o.d, o.pg, &o.mem, o.diag.h)
	} else {
		twoLoop(o.ops, o.d, o.pg, &o.mem)
	}
	// With l1 > 0, projectDirection; then d·pg, in the same pass. After
	// projection every non-zero d_j has the sign of -pg_j, so d·pg < 0
	// unless d vanished; without l1, d·g < 0 as long as H stays positive
	// definite. If rounding broke this, restart from steepest descent with
	// an empty memory.
	if !(o.ops.projectDot(o.d, o.pg, l1 > 0) < 0) {
		o.mem.reset()
		o.diag = diagStart{}
		o.ops.lin(o.d, o.pg, 0, nil, -1, nil)
	}
	// First step: with an empty memory, SetDiagonal's step0 while a
	// diagonal start is in force, else 1/||◇F|| (the direction is then
	// -◇F, so the first trial moves x by a distance of 1); the natural
	// quasi-Newton step 1 otherwise.
	o.step = 1.0
	switch {
	case o.mem.count == 0 && o.diag.h != nil:
		o.step = o.diag.step0
	case o.mem.count == 0:
		o.step = 1 / pgNorm
	}
	o.searching, o.told, o.tries = true, true, 0
	return true, nil
}

// Tell hands back f at the point of the last Next, whose gradient the
// caller wrote into the grad slice Next returned. It reports whether the
// trial was accepted: then an iteration ended, X, F, Grad and Objective
// describe the trial point and the L-BFGS memory holds its pair. A
// rejected trial leaves the optimizer at X; the next Next backtracks.
func (o *Optimizer) Tell(f float64) (accepted bool) {
	if !o.searching || o.told {
		panic("owlqn: Tell without a pending trial point")
	}
	o.told = true
	o.tries++
	l1 := o.set.L1
	objt := f
	if l1 > 0 {
		objt += l1 * o.n1
	}
	if !acceptable(o.ops, o.g, o.gt, o.xt, o.x, o.obj, objt, o.dec, o.dl1, l1, &o.set) {
		o.step *= o.set.Backtrack
		return false
	}
	o.mem.update(o.ops, o.xt, o.x, o.gt, o.g)
	o.diag.accepted()
	o.x, o.xt = o.xt, o.x
	o.g, o.gt = o.gt, o.g
	o.f, o.obj = f, objt
	o.iter++
	o.searching = false
	return true
}

// Rebase replaces F, Grad and Objective with the caller's evaluation at X:
// after Compact moved X (it zeroed a non-zero coordinate) or the smooth
// part changed. g is copied. The memory is kept, and a line search in
// progress is abandoned.
func (o *Optimizer) Rebase(f float64, g []float64) error {
	if len(g) != len(o.x) {
		panic("owlqn: Rebase: gradient length differs from X")
	}
	if math.IsNaN(f) || math.IsInf(f, 0) || !finite(g) {
		return ErrNotFinite
	}
	copy(o.g, g)
	o.f = f
	o.obj = f + o.set.L1*o.ops.norm1(o.x)
	o.searching = false
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
// the caller, valid until the next Tell, Rebase or Compact.
func (o *Optimizer) X() []float64 { return o.x }

// Grad returns ∇f at X (the gradient of the smooth part only). It aliases
// internal storage like X.
func (o *Optimizer) Grad() []float64 { return o.g }

// F returns f(X), the smooth part of the objective.
func (o *Optimizer) F() float64 { return o.f }

// Objective returns F(X) = f(X) + l1*||X||_1.
func (o *Optimizer) Objective() float64 { return o.obj }

// Iterations returns the number of accepted iterations.
func (o *Optimizer) Iterations() int { return o.iter }

// Compact removes coordinates: keep lists the surviving indices, strictly
// increasing, into the current vector. X, Grad and every stored (s, y) pair
// are shrunk in place, without allocation; the dropped coordinates are
// fixed at 0 from now on, and the caller evaluates the restricted problem
// on vectors of length len(keep) from now on. A line search in progress is
// abandoned.
//
// If every dropped coordinate of X is 0, the restricted problem has the
// same value at the compacted X and its gradient is the compacted gradient,
// so F, Grad and Objective stay exact and Compact returns false. Otherwise
// the dropped coordinates are zeroed, X moved, and Compact returns true: the
// caller must evaluate f at the new X and call Rebase before Next.
//
// If resetMemory is true the memory is cleared; otherwise each pair is
// compacted, its curvature s·y recomputed on the surviving coordinates, and
// pairs whose curvature is no longer positive are dropped. A diagonal
// start (SetDiagonal) still in force ends.
//
// Compact panics if keep is not strictly increasing within [0, len(X)).
func (o *Optimizer) Compact(keep []int32, resetMemory bool) (moved bool) {
	n := len(o.x)
	prev := int32(-1)
	for _, k := range keep {
		if k <= prev || int(k) >= n {
			panic("owlqn: Compact: keep must be strictly increasing indices in [0, Len())")
		}
		for j := prev + 1; j < k; j++ {
			moved = moved || o.x[j] != 0
		}
		prev = k
	}
	for j := int(prev) + 1; j < n; j++ {
		moved = moved || o.x[j] != 0
	}
	if resetMemory {
		o.mem.reset()
	}
	o.diag = diagStart{} // SetDiagonal's h is over the old coordinates
	o.mem.compact(o.ops, keep, o.x, o.g)
	m := len(keep)
	o.x, o.g = o.x[:m], o.g[:m]
	o.xt, o.gt = o.xt[:m], o.gt[:m]
	o.pg, o.d = o.pg[:m], o.d[:m]
	o.searching = false
	if !moved {
		// Dropped coordinates were 0: ||x||_1 is unchanged, but
		// recompute it to stay bit-identical with a fresh evaluation.
		o.obj = o.f + o.set.L1*o.ops.norm1(o.x)
	}
	return moved
}
