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

// forceParallel lowers the size threshold of the parallel kernels to 0 for
// the duration of the test, so that small vectors take the pool's path.
func forceParallel(t testing.TB) {
	t.Helper()
	old := parMinLen
	parMinLen = 0
	t.Cleanup(func() { parMinLen = old })
}

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
func trajectory(t *testing.T, n, threads, iters, compactAt int, l1 float64) (x []float64, errs []error) {
	t.Helper()
	p := newCoupled(rand.New(rand.NewPCG(5, 9)), n)
	o, err := New(make([]float64, n), p.eval, Settings{L1: l1, M: 6, Threads: threads})
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
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
// Threads = 1, 2, 8 bit for bit.
func checkSameTrajectories(t *testing.T, n, iters, compactAt int, l1 float64) {
	t.Helper()
	x1, errs1 := trajectory(t, n, 1, iters, compactAt, l1)
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
		x, errs := trajectory(t, n, threads, iters, compactAt, l1)
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
// the pool's path (threshold lowered; 6 chunks, so Threads = 8 has empty
// shares) and compares the points bit for bit, with and without l1, and
// with a Compact after 20 iterations. Under the race detector it uses 2
// chunks.
func TestThreadsBitIdentical(t *testing.T) {
	forceParallel(t)
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
		t.Run(tc.name, func(t *testing.T) { checkSameTrajectories(t, n, 40, tc.compactAt, tc.l1) })
	}
}

// TestThreadsBitIdenticalAboveThreshold is the same at a size above the
// default threshold, where Threads > 1 really uses the workers. It is
// skipped in short mode and under the race detector (TestThreadsBitIdentical
// runs the same code on shorter vectors).
func TestThreadsBitIdenticalAboveThreshold(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("large vectors")
	}
	n := parMinLen + 3*chunkLen + 5
	t.Run("l1", func(t *testing.T) { checkSameTrajectories(t, n, 40, -1, 0.3) })
	t.Run("l1 compact", func(t *testing.T) { checkSameTrajectories(t, n, 40, 20, 0.3) })
}

// TestKernelsMatchPlainLoops checks every kernel, on the serial and on the
// pool's path, against a straightforward loop (within rounding: the chunked
// sums add in a different order), and the pool's results against the
// serial ones bit for bit.
func TestKernelsMatchPlainLoops(t *testing.T) {
	forceParallel(t)
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
	compute := func(p *pool) result {
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
		p := newPool(threads, n)
		got := compute(p)
		p.stop()
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

// TestIterateAllocsThreads checks that Iterate allocates nothing with a
// worker pool either.
func TestIterateAllocsThreads(t *testing.T) {
	forceParallel(t)
	p := newCoupled(rand.New(rand.NewPCG(1, 2)), 3*chunkLen)
	o, err := New(make([]float64, 3*chunkLen), p.eval, Settings{L1: 0.3, M: 4, Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	for range 6 { // fill the memory so the ring wraps
		if err := o.Iterate(); err != nil {
			t.Fatal(err)
		}
	}
	if a := testing.AllocsPerRun(20, func() {
		if err := o.Iterate(); err != nil {
			t.Fatal(err)
		}
	}); a != 0 {
		t.Errorf("%g allocations per Iterate with Threads = 2, want 0", a)
	}
}

// TestCloseAndCleanupStopWorkers checks that Close ends the workers and
// leaves a usable optimizer, and that dropping an optimizer without Close
// ends them after a garbage collection.
func TestCloseAndCleanupStopWorkers(t *testing.T) {
	forceParallel(t)
	p := newCoupled(rand.New(rand.NewPCG(1, 2)), 1000)
	o, err := New(make([]float64, 1000), p.eval, Settings{L1: 0.3, Threads: 4})
	if err != nil {
		t.Fatal(err)
	}
	pl := o.pool
	if got := pl.live.Load(); got != 3 {
		t.Fatalf("%d workers after New with Threads = 4, want 3", got)
	}
	o.Close()
	o.Close()
	if err := o.Iterate(); err != nil {
		t.Fatalf("Iterate after Close: %v", err)
	}
	waitWorkers(t, pl)

	var pools []*pool
	for range 3 {
		o, err := New(make([]float64, 1000), p.eval, Settings{L1: 0.3, Threads: 4})
		if err != nil {
			t.Fatal(err)
		}
		pools = append(pools, o.pool) // does not keep o reachable
	}
	for _, pl := range pools {
		waitWorkers(t, pl)
	}
}

// waitWorkers runs the garbage collector until the workers of p have
// ended, failing after a while.
func waitWorkers(t *testing.T, p *pool) {
	t.Helper()
	for range 200 {
		if p.live.Load() == 0 {
			return
		}
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	t.Fatalf("%d workers still running", p.live.Load())
}

func TestThreadsSettingErrors(t *testing.T) {
	if o, err := New([]float64{1}, func(x, g []float64) (float64, error) { return 0, nil }, Settings{Threads: -1}); err == nil || o != nil {
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

// waitFor polls cond for at most 20 spinTimes.
func waitFor(cond func() bool) {
	deadline := time.Now().Add(20 * spinTime)
	for !cond() && time.Now().Before(deadline) {
		runtime.Gosched()
	}
}

// TestPoolHandOff posts short kernels to many fresh pools, whose workers
// race between polling, parking and being woken; a lost or stale wake-up
// shows as a wrong pending count, a wrong sum or a hang (reported by the
// watchdog). In the delayed rounds unpark pauses before it looks at the
// flag until the owner has seen its condition, gone on and parked again,
// so that it receives a token meant for a condition it has already seen:
// a worker for a kernel it has already run (which once made it run the
// kernel twice; the race detector's slowdown produced that too, at
// random), or the caller for a kernel whose workers have not finished.
func TestPoolHandOff(t *testing.T) {
	forceParallel(t)
	// Each kernel gets other data, so that partial sums left over from
	// the previous kernel give a wrong result.
	var xs [4][]float64
	var want [4]float64
	for k := range xs {
		xs[k] = make([]float64, 3*chunkLen)
		for j := range xs[k] {
			xs[k][j] = float64((j+k)%7) - 3 + float64(k)*(1+float64(j%3))
		}
		want[k] = norm1(xs[k])
	}
	t.Cleanup(func() { unparkHook = nil })
	for it := range 240 {
		var p *pool
		switch it % 6 {
		case 0:
			// The poster waits until the worker has run the kernel
			// and parked again (when the worker was polling), then
			// until it has handled the token and parked once more.
			unparkHook = func(k *parker, after bool) {
				if k != &p.caller {
					waitFor(func() bool { return k.flag.Load() == 1 && p.pending.Load() == 0 })
				}
			}
		case 1:
			// The last worker waits until the caller, which has gone
			// on to the next kernel, parks waiting for it.
			unparkHook = func(k *parker, after bool) {
				if k == &p.caller && !after {
					waitFor(func() bool { return k.flag.Load() == 1 })
				}
			}
		default:
			unparkHook = nil
		}
		threads := 2 + it%3
		p = newPool(threads, 3*chunkLen)
		done := make(chan struct{})
		go func() {
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				panic(fmt.Sprintf("owlqn: pool hand-off stuck in round %d: gen = %d, pending = %d", it, p.gen.Load(), p.pending.Load()))
			}
		}()
		for k := range 4 {
			if got := p.norm1(xs[k]); got != want[k] || p.pending.Load() != 0 {
				t.Fatalf("round %d, kernel %d: norm1 = %v (want %v), pending = %d", it, k, got, want[k], p.pending.Load())
			}
			if k == 1 {
				time.Sleep(time.Duration(it%3) * spinTime) // let the workers park
			}
		}
		close(done)
		p.stop()
		waitWorkers(t, p) // no worker is still in the hook
		if got := p.runs.Load(); got != int64(len(xs)*(threads-1)) {
			t.Fatalf("round %d: the workers ran %d kernels, want %d", it, got, len(xs)*(threads-1))
		}
	}
}
