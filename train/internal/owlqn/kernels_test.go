package owlqn

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"
)

// coupled is f(x) = ½ Σ c_j (x_j - a_j)² + ½ κ (w·x)², a separable
// ill-conditioned quadratic plus a rank-one coupling, evaluated on the
// coordinates in active (all of them until compact). O(n) per call and
// allocation-free; its value is computed serially, so it is deterministic.
type coupled struct {
	c, a, w []float64
	kappa   float64
	active  []int32
}

func newCoupled(rng *rand.Rand, n int) *coupled {
	p := &coupled{c: make([]float64, n), a: make([]float64, n), w: make([]float64, n), kappa: 0.1, active: make([]int32, n)}
	for j := range n {
		p.c[j] = math.Exp(2 * rng.NormFloat64())
		p.a[j] = rng.NormFloat64()
		p.w[j] = rng.NormFloat64() / math.Sqrt(float64(n))
		p.active[j] = int32(j)
	}
	return p
}

func (p *coupled) eval(x, g []float64) (float64, error) {
	if len(x) != len(p.active) {
		return 0, errors.New("coupled: dimension mismatch")
	}
	var f, wx float64
	for i, j := range p.active {
		r := x[i] - p.a[j]
		f += 0.5 * p.c[j] * r * r
		g[i] = p.c[j] * r
		wx += p.w[j] * x[i]
	}
	f += 0.5 * p.kappa * wx * wx
	for i, j := range p.active {
		g[i] += p.kappa * wx * p.w[j]
	}
	return f, nil
}

func (p *coupled) compact(keep []int32) {
	for i, k := range keep {
		p.active[i] = p.active[k]
	}
	p.active = p.active[:len(keep)]
}

// trajectory runs iters iterations with the given number of threads,
// compacting after compactAt iterations (if compactAt >= 0) to the
// coordinates j with j%3 != 0 (some of which are non-zero, so the point
// becomes stale and is re-evaluated), and returns the final point and the
// outcome of every Iterate.
func trajectory(t *testing.T, n, threads, iters, compactAt int, l1 float64, force bool) (x []float64, errs []error) {
	t.Helper()
	p := newCoupled(rand.New(rand.NewPCG(5, 9)), n)
	o, err := drive(make([]float64, n), p.eval, Settings{L1: l1, M: 6, Threads: threads, forceParallel: force})
	if err != nil {
		t.Fatal(err)
	}
	for it := range iters {
		if it == compactAt {
			var keep []int32
			for j := range o.Len() {
				if j%3 != 0 {
					keep = append(keep, int32(j))
				}
			}
			o.Compact(keep, false)
			p.compact(keep)
			if !o.Stale() {
				t.Fatal("Compact dropped only zeros; the test wants a stale point")
			}
		}
		errs = append(errs, o.Iterate())
	}
	return append([]float64(nil), o.X()...), errs
}

// checkSameTrajectories compares the final points and Iterate outcomes of
// Threads = 1, 2, 8 bit for bit (force: on the parallel path whatever n).
func checkSameTrajectories(t *testing.T, n, iters, compactAt int, l1 float64, force bool) {
	t.Helper()
	x1, errs1 := trajectory(t, n, 1, iters, compactAt, l1, force)
	ok := 0
	for _, err := range errs1 {
		if err == nil {
			ok++
		}
	}
	if ok < iters*3/4 {
		t.Fatalf("only %d of %d iterations succeeded: %v", ok, iters, errs1)
	}
	for _, threads := range []int{2, 8} {
		x, errs := trajectory(t, n, threads, iters, compactAt, l1, force)
		for i := range errs1 {
			if (errs[i] == nil) != (errs1[i] == nil) {
				t.Fatalf("Threads=%d, iteration %d: error %v, Threads=1: %v", threads, i, errs[i], errs1[i])
			}
		}
		if len(x) != len(x1) {
			t.Fatalf("Threads=%d: len(x) = %d, want %d", threads, len(x), len(x1))
		}
		for j := range x1 {
			if math.Float64bits(x[j]) != math.Float64bits(x1[j]) {
				t.Fatalf("Threads=%d: x[%d] = %.17g, Threads=1: %.17g", threads, j, x[j], x1[j])
			}
		}
	}
}

// TestThreadsBitIdentical runs 40 iterations with Threads = 1, 2 and 8 on
// the parallel path (threshold lowered; 6 chunks, so Threads = 8 has
// more goroutines than some kernels have chunks) and compares the points bit for bit, with and without l1, and
// with a Compact after 20 iterations. Under the race detector it uses 2
// chunks.
func TestThreadsBitIdentical(t *testing.T) {
	n := 5*chunkLen + 777
	if raceEnabled {
		n = chunkLen + 777
	}
	for _, tc := range []struct {
		name      string
		l1        float64
		compactAt int
	}{
		{"l1", 0.3, -1},
		{"lbfgs", 0, -1},
		{"l1 compact", 0.3, 20},
		{"lbfgs compact", 0, 20},
	} {
		t.Run(tc.name, func(t *testing.T) { checkSameTrajectories(t, n, 40, tc.compactAt, tc.l1, true) })
	}
}

// TestThreadsBitIdenticalAboveThreshold is the same at a size above the
// default threshold, where Threads > 1 really starts goroutines. It is
// skipped in short mode and under the race detector (TestThreadsBitIdentical
// runs the same code on shorter vectors).
func TestThreadsBitIdenticalAboveThreshold(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("large vectors")
	}
	n := parMinLen + 3*chunkLen + 5
	t.Run("l1", func(t *testing.T) { checkSameTrajectories(t, n, 40, -1, 0.3, false) })
	t.Run("l1 compact", func(t *testing.T) { checkSameTrajectories(t, n, 40, 20, 0.3, false) })
}

// TestKernelsMatchPlainLoops checks every kernel, on the serial and on the
// parallel path, against a straightforward loop (within rounding: the chunked
// sums add in a different order), and the parallel results against the
// serial ones bit for bit.
func TestKernelsMatchPlainLoops(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 3))
	const n = 3*chunkLen + 100
	vec := func(zeros bool) []float64 {
		v := make([]float64, n)
		for j := range v {
			if !zeros || rng.IntN(4) != 0 {
				v[j] = rng.NormFloat64()
			}
		}
		return v
	}
	x, g, d, q, c := vec(true), vec(false), vec(false), vec(false), vec(false)
	const l1, step, s1, scale = 0.7, 0.4, -1.3, 0.25
	type result struct {
		sums  []float64
		moved bool
		vecs  [][]float64
	}
	compute := func(p *vecops) result {
		var r result
		pg := make([]float64, n)
		r.sums = append(r.sums, p.pseudoGradient(pg, x, g, l1))
		lin := make([]float64, n)
		r.sums = append(r.sums, p.lin(lin, q, s1, d, scale, c))
		neg := make([]float64, n)
		r.sums = append(r.sums, p.lin(neg, q, 0, nil, -1, nil))
		ab, bb := p.dot2(d, q)
		r.sums = append(r.sums, ab, bb, p.norm1(x))
		pd := append([]float64(nil), d...)
		r.sums = append(r.sums, p.projectDot(pd, pg, true))
		xt := make([]float64, n)
		dec, dl1, n1, moved := p.trial(xt, x, pd, pg, step, true)
		r.sums = append(r.sums, dec, dl1, n1, p.trap(g, q, xt, x))
		sy, yy := p.diffDot(xt, x, q, g)
		r.sums = append(r.sums, sy, yy)
		s, y := make([]float64, n), make([]float64, n)
		p.diff(s, y, xt, x, q, g)
		r.moved = moved
		r.vecs = [][]float64{pg, lin, neg, pd, xt, s, y}
		return r
	}

	// Plain loops, from the definitions.
	var want result
	pg := make([]float64, n)
	pseudoGradient(pg, x, g, l1)
	lin, neg := make([]float64, n), make([]float64, n)
	var pgpg, clin, ab, bb, nx float64
	for j := range n {
		pgpg += pg[j] * pg[j]
		lin[j] = (q[j] + s1*d[j]) * scale
		clin += c[j] * lin[j]
		neg[j] = -q[j]
		ab += d[j] * q[j]
		bb += q[j] * q[j]
		nx += math.Abs(x[j])
	}
	pd := append([]float64(nil), d...)
	projectDirection(pd, pg)
	var pdpg float64
	for j := range n {
		pdpg += pd[j] * pg[j]
	}
	xt := make([]float64, n)
	for j := range n {
		xt[j] = x[j] + step*pd[j]
	}
	projectOrthant(xt, x, pg)
	var dec, dl1, n1, trap, sy, yy float64
	moved := false
	s, y := make([]float64, n), make([]float64, n)
	for j := range n {
		dec += pg[j] * (xt[j] - x[j])
		dl1 += math.Abs(xt[j]) - math.Abs(x[j])
		n1 += math.Abs(xt[j])
		trap += (g[j] + q[j]) * (xt[j] - x[j])
		s[j], y[j] = xt[j]-x[j], q[j]-g[j]
		sy += s[j] * y[j]
		yy += y[j] * y[j]
		moved = moved || xt[j] != x[j]
	}
	want.sums = []float64{pgpg, clin, 0, ab, bb, nx, pdpg, dec, dl1, n1, trap, sy, yy}
	want.moved = moved
	want.vecs = [][]float64{pg, lin, neg, pd, xt, s, y}

	serial := compute(nil)
	approxEqual(t, "sums", want.sums, serial.sums, 1e-9, 1e-12)
	if serial.moved != want.moved {
		t.Fatalf("moved = %v, want %v", serial.moved, want.moved)
	}
	for i := range want.vecs {
		approxEqual(t, fmt.Sprintf("vector %d", i), want.vecs[i], serial.vecs[i], 0, 0)
	}
	for _, threads := range []int{2, 3, 8} {
		got := compute(newVecops(threads, n, 0))
		for i := range serial.sums {
			if math.Float64bits(got.sums[i]) != math.Float64bits(serial.sums[i]) {
				t.Fatalf("threads=%d: sum %d = %.17g, serial %.17g", threads, i, got.sums[i], serial.sums[i])
			}
		}
		if got.moved != serial.moved {
			t.Fatalf("threads=%d: moved differs", threads)
		}
		for i := range serial.vecs {
			approxEqual(t, fmt.Sprintf("threads=%d vector %d", threads, i), serial.vecs[i], got.vecs[i], 0, 0)
		}
	}
}

// TestIterateAllocsThreads checks that Iterate allocates nothing on the
// serial path, and on the parallel path only the few small objects each
// kernel's par.For needs, independently of the dimension.
func TestIterateAllocsThreads(t *testing.T) {
	allocs := func(threads, n int) float64 {
		p := newCoupled(rand.New(rand.NewPCG(1, 2)), n)
		o, err := drive(make([]float64, n), p.eval, Settings{L1: 0.3, M: 4, Threads: threads, forceParallel: true})
		if err != nil {
			t.Fatal(err)
		}
		for range 6 { // fill the memory so the ring wraps
			if err := o.Iterate(); err != nil {
				t.Fatal(err)
			}
		}
		return testing.AllocsPerRun(20, func() {
			if err := o.Iterate(); err != nil {
				t.Fatal(err)
			}
		})
	}
	if a := allocs(1, 3*chunkLen); a != 0 {
		t.Errorf("%g allocations per Iterate with Threads = 1, want 0", a)
	}
	// 14 kernels per Iterate here (M = 4, one trial step), each with 4
	// allocations: the loop state of par.For, its goroutine, the closure
	// and its copy of the kernel.
	small, large := allocs(2, 3*chunkLen), allocs(2, 9*chunkLen)
	if small != large || small > 80 {
		t.Errorf("%g and %g allocations per Iterate with Threads = 2 (3 and 9 chunks), want the same number, at most 80", small, large)
	}
}

// TestNoGoroutineLeft checks that an optimizer with Threads > 1 leaves no
// goroutine running after its calls, without Close.
func TestNoGoroutineLeft(t *testing.T) {
	before := runtime.NumGoroutine()
	p := newCoupled(rand.New(rand.NewPCG(1, 2)), 3*chunkLen)
	o, err := drive(make([]float64, 3*chunkLen), p.eval, Settings{L1: 0.3, Threads: 4, forceParallel: true})
	if err != nil {
		t.Fatal(err)
	}
	for range 5 {
		if err := o.Iterate(); err != nil {
			t.Fatal(err)
		}
	}
	for range 1000 {
		if runtime.NumGoroutine() <= before {
			return
		}
		time.Sleep(time.Millisecond) // goroutines past wg.Done may still be exiting
	}
	t.Fatalf("%d goroutines after 5 iterations with Threads = 4, %d before", runtime.NumGoroutine(), before)
}

// TestKernelsReuseShrinking runs kernels of decreasing length (as after
// Compact) and different data on one vecops, and compares each with the
// serial result bit for bit: partial sums left over from a longer kernel
// must not leak into a shorter one.
func TestKernelsReuseShrinking(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	const n = 5*chunkLen + 3
	for _, threads := range []int{2, 3, 8} {
		ops := newVecops(threads, n, 0)
		for _, m := range []int{n, 4*chunkLen + 1, 2 * chunkLen, chunkLen - 1, 1, 0} {
			x, y := make([]float64, m), make([]float64, m)
			for j := range x {
				x[j], y[j] = rng.NormFloat64(), rng.NormFloat64()
			}
			if got, want := ops.norm1(x), norm1(x); math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("threads=%d m=%d: norm1 = %.17g, serial %.17g", threads, m, got, want)
			}
			gab, gbb := ops.dot2(x, y)
			wab, wbb := (*vecops)(nil).dot2(x, y)
			if math.Float64bits(gab) != math.Float64bits(wab) || math.Float64bits(gbb) != math.Float64bits(wbb) {
				t.Fatalf("threads=%d m=%d: dot2 = (%.17g, %.17g), serial (%.17g, %.17g)", threads, m, gab, gbb, wab, wbb)
			}
		}
	}
}

// TestCompactVecsParallel checks that the parallel compactVecs moves every
// vector like the serial one.
func TestCompactVecsParallel(t *testing.T) {
	const n = 3*chunkLen + 11
	var keep []int32
	for j := range n {
		if j%5 != 2 {
			keep = append(keep, int32(j))
		}
	}
	mk := func() [][]float64 {
		vs := make([][]float64, 7)
		for i := range vs {
			vs[i] = make([]float64, n)
			for j := range vs[i] {
				vs[i][j] = float64(i*n + j)
			}
		}
		return vs
	}
	want := mk()
	(*vecops)(nil).compactVecs(want, keep)
	for _, threads := range []int{2, 3, 8} {
		got := mk()
		newVecops(threads, n, 0).compactVecs(got, keep)
		for i := range want {
			approxEqual(t, fmt.Sprintf("threads=%d vector %d", threads, i), want[i], got[i], 0, 0)
		}
	}
}

func TestThreadsSettingErrors(t *testing.T) {
	if o, err := drive([]float64{1}, func(x, g []float64) (float64, error) { return 0, nil }, Settings{Threads: -1}); err == nil || o != nil {
		t.Fatalf("Threads = -1: New returned (%v, %v), want an error", o, err)
	}
}

// TestBranchFreeMatchesReadable compares the branch-free sign logic with
// pseudoGradient, projectDirection and projectOrthant bit for bit, on
// values chosen to hit every case and boundary: ±0, ±l1 exactly, values
// just inside and outside ±l1, subnormals (whose products underflow),
// huge values and infinities for the trial point.
func TestBranchFreeMatchesReadable(t *testing.T) {
	const l1 = 0.75
	special := []float64{0, math.Copysign(0, -1), l1, -l1, math.Nextafter(l1, 0), math.Nextafter(l1, 2),
		-math.Nextafter(l1, 0), -math.Nextafter(l1, 2), 5e-324, -5e-324, 1e-200, -1e-200, 1e300, -1e300, 1, -1}
	rng := rand.New(rand.NewPCG(4, 4))
	pick := func() float64 {
		if rng.IntN(2) == 0 {
			return special[rng.IntN(len(special))]
		}
		return rng.NormFloat64()
	}
	const n = 20000
	x, g, d, xt := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	for j := range n {
		x[j], g[j], d[j], xt[j] = pick(), pick(), pick(), pick()
	}
	xt[0], xt[1] = math.Inf(1), math.Inf(-1)
	same := func(name string, want, got []float64) {
		t.Helper()
		for j := range want {
			if math.Float64bits(want[j]) != math.Float64bits(got[j]) {
				t.Fatalf("%s[%d]: got %v, want %v (x = %v, g = %v, d = %v)", name, j, got[j], want[j], x[j], g[j], d[j])
			}
		}
	}
	want, got := make([]float64, n), make([]float64, n)
	pseudoGradient(want, x, g, l1)
	pseudoGradientFast(got, x, g, l1)
	same("pseudoGradient", want, got)

	pg := append([]float64(nil), want...)
	// pg doubles as a random sign pattern for the projections; g gives
	// another one with exact zeros and subnormals.
	for _, ref := range [][]float64{pg, g} {
		copy(want, d)
		copy(got, d)
		projectDirection(want, ref)
		projectDirectionFast(got, ref)
		same("projectDirection", want, got)

		copy(want, xt)
		copy(got, xt)
		projectOrthant(want, x, ref)
		projectOrthantFast(got, x, ref)
		same("projectOrthant", want, got)
	}
}
