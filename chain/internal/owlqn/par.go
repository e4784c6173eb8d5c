package owlqn

import (
	"math"
	"sync"
	"sync/atomic"
)

// This file holds the vector kernels of an iteration and the worker pool
// that runs them on several goroutines.
//
// Determinism: every kernel works on fixed chunks of chunkLen elements
// (chunk c covers [c*chunkLen, (c+1)*chunkLen) ∩ [0, n)); the chunk
// boundaries depend only on n. A reduction sums each chunk serially in index
// order into a partial sum, and the partial sums are then added in chunk
// order, starting from +0. The serial path (Threads <= 1, or n below
// parMinLen) runs the same chunks in order and adds each partial as soon as
// it is computed, which is the same sequence of floating-point additions.
// So every result is bit-identical for any number of threads; only which
// goroutine computes a chunk varies.
//
// Fusion: several kernels do in one pass over memory what the textbook
// writes as two (an axpy and the next dot product of the two-loop recursion,
// the pseudo-gradient and its norm, a line-search trial point and the sums
// the Armijo test needs). Within a chunk the elementwise operations and the
// order of the additions are exactly those of the unfused loops, so fusion
// changes the memory traffic, not the results.

// chunkLen is the number of elements of one chunk. It must never depend on
// the number of threads.
const chunkLen = 1 << 13

// parMinLen is the length below which kernels run on the calling goroutine
// (with the same chunked arithmetic): the wake-up of the workers would cost
// more than it saves. A variable so that tests can force the parallel path
// on small vectors.
var parMinLen = 1 << 16

// maxParts is the largest number of partial sums a kernel returns.
const maxParts = 4

// op names a kernel; see kernel.chunk for what each computes.
type op uint8

const (
	opLin     op = iota // dst = (a + s1*b) * s2 [b nil: dst = a*s2]; c·dst if c != nil
	opDot               // a·b, b·b
	opNorm1             // ||a||_1
	opPseudo            // dst = ◇F from x = a, g = b, l1 = s1; dst·dst
	opProjDot           // if s1 != 0, zero dst_j where dst_j*a_j >= 0; dst·a
	opTrial             // dst = π(a + s1*b; ξ(a, c)) (projected if s2 != 0); c·(dst-a), Σ|dst|-|a|, ||dst||_1, #moved
	opTrap              // (a + b)·(c - e)
	opDiffDot           // (a - b)·(c - e), (c - e)·(c - e)
	opDiff              // dst = a - b, dst2 = c - e
)

// kernel is one call of a vector kernel: its operation, length, operands
// and scalars. The meaning of each field depends on op (see the op
// constants). It is passed by value to the pool, so calls allocate nothing.
type kernel struct {
	op         op
	n          int
	dst, dst2  []float64
	a, b, c, e []float64
	s1, s2     float64
}

// chunk runs the kernel on [lo, hi) and returns its partial sums.
func (k *kernel) chunk(lo, hi int) (r [maxParts]float64) {
	switch k.op {
	case opLin:
		dst, a := k.dst[lo:hi], k.a[lo:hi]
		s1, s2 := k.s1, k.s2
		if k.b == nil {
			for j, aj := range a {
				dst[j] = aj * s2
			}
		} else {
			b := k.b[lo:hi]
			for j, aj := range a {
				dst[j] = (aj + s1*b[j]) * s2
			}
		}
		if k.c != nil {
			r[0] = dotSerial(k.c[lo:hi], dst)
		}
	case opDot:
		a, b := k.a[lo:hi], k.b[lo:hi]
		var ab, bb float64
		for j, aj := range a {
			ab += aj * b[j]
			bb += b[j] * b[j]
		}
		r[0], r[1] = ab, bb
	case opNorm1:
		var s float64
		for _, v := range k.a[lo:hi] {
			s += math.Abs(v)
		}
		r[0] = s
	case opPseudo:
		pg := k.dst[lo:hi]
		pseudoGradient(pg, k.a[lo:hi], k.b[lo:hi], k.s1)
		r[0] = dotSerial(pg, pg)
	case opProjDot:
		d, pg := k.dst[lo:hi], k.a[lo:hi]
		var s float64
		for j, pj := range pg {
			dj := d[j]
			if k.s1 != 0 && dj*pj >= 0 {
				dj = 0
				d[j] = 0
			}
			s += dj * pj
		}
		r[0] = s
	case opTrial:
		xt, x, d, pg := k.dst[lo:hi], k.a[lo:hi], k.b[lo:hi], k.c[lo:hi]
		step, project := k.s1, k.s2 != 0
		var dec, dl1, n1, moved float64
		for j, xj := range x {
			t := xj + step*d[j]
			if project && t*orthant(xj, pg[j]) <= 0 {
				t = 0
			}
			xt[j] = t
			dx := t - xj
			if dx != 0 {
				moved++
			}
			dec += pg[j] * dx
			at := math.Abs(t)
			dl1 += at - math.Abs(xj)
			n1 += at
		}
		r = [maxParts]float64{dec, dl1, n1, moved}
	case opTrap:
		a, b, c, e := k.a[lo:hi], k.b[lo:hi], k.c[lo:hi], k.e[lo:hi]
		var s float64
		for j, aj := range a {
			s += (aj + b[j]) * (c[j] - e[j])
		}
		r[0] = s
	case opDiffDot:
		a, b, c, e := k.a[lo:hi], k.b[lo:hi], k.c[lo:hi], k.e[lo:hi]
		var sy, yy float64
		for j, aj := range a {
			sj, yj := aj-b[j], c[j]-e[j]
			sy += sj * yj
			yy += yj * yj
		}
		r[0], r[1] = sy, yy
	case opDiff:
		s, y := k.dst[lo:hi], k.dst2[lo:hi]
		a, b, c, e := k.a[lo:hi], k.b[lo:hi], k.c[lo:hi], k.e[lo:hi]
		for j, aj := range a {
			s[j] = aj - b[j]
			y[j] = c[j] - e[j]
		}
	default:
		panic("owlqn: unknown kernel")
	}
	return r
}

func dotSerial(a, b []float64) float64 {
	b = b[:len(a)]
	var s float64
	for i, ai := range a {
		s += ai * b[i]
	}
	return s
}

// pool runs kernels on a fixed set of goroutines: the caller and
// threads-1 persistent workers. A nil *pool runs everything on the caller.
// A pool serves one optimizer, one kernel at a time.
type pool struct {
	threads int
	jobs    chan int // share index 1..threads-1 of the current kernel
	wg      sync.WaitGroup
	k       kernel    // the current kernel, set before the shares are sent
	nchunks int       // number of chunks of the current kernel
	part    []float64 // maxParts partial sums per chunk
	once    sync.Once
	live    atomic.Int32 // number of running workers
}

// newPool starts threads-1 workers for vectors of at most n elements. It
// returns nil (serial) if threads <= 1.
func newPool(threads, n int) *pool {
	if threads <= 1 {
		return nil
	}
	p := &pool{
		threads: threads,
		jobs:    make(chan int, threads-1),
		part:    make([]float64, maxParts*((n+chunkLen-1)/chunkLen)),
	}
	p.live.Store(int32(threads - 1))
	for range threads - 1 {
		go p.worker()
	}
	return p
}

func (p *pool) worker() {
	defer p.live.Add(-1)
	for w := range p.jobs {
		p.share(w)
		p.wg.Done()
	}
}

// share runs the chunks of share w: a contiguous block of about
// nchunks/threads chunks, storing their partial sums in p.part.
func (p *pool) share(w int) {
	lo, hi := w*p.nchunks/p.threads, (w+1)*p.nchunks/p.threads
	for c := lo; c < hi; c++ {
		r := p.k.chunk(c*chunkLen, min(p.k.n, (c+1)*chunkLen))
		copy(p.part[c*maxParts:(c+1)*maxParts], r[:])
	}
}

// stop ends the workers. The pool must not be used afterwards.
func (p *pool) stop() {
	if p != nil {
		p.once.Do(func() { close(p.jobs) })
	}
}

// run executes k over [0, k.n) and returns its partial sums added in chunk
// order.
func (p *pool) run(k *kernel) [maxParts]float64 {
	var tot [maxParts]float64
	nc := (k.n + chunkLen - 1) / chunkLen
	if p == nil || k.n < parMinLen {
		for c := range nc {
			r := k.chunk(c*chunkLen, min(k.n, (c+1)*chunkLen))
			for i := range tot {
				tot[i] += r[i]
			}
		}
		return tot
	}
	if nc*maxParts > len(p.part) {
		panic("owlqn: kernel longer than the pool's vectors")
	}
	p.k, p.nchunks = *k, nc
	p.wg.Add(p.threads - 1)
	for w := 1; w < p.threads; w++ {
		p.jobs <- w
	}
	p.share(0)
	p.wg.Wait()
	p.k = kernel{} // drop the references to the operands
	for c := range nc {
		for i := range tot {
			tot[i] += p.part[c*maxParts+i]
		}
	}
	return tot
}

// lin sets dst = (a + s*b) * scale (dst = a*scale if b is nil) and returns
// c·dst, or 0 if c is nil. dst may be a itself.
func (p *pool) lin(dst, a []float64, s float64, b []float64, scale float64, c []float64) float64 {
	n := len(dst)
	if len(a) != n || (b != nil && len(b) != n) || (c != nil && len(c) != n) {
		panic("owlqn: lin: length mismatch")
	}
	return p.run(&kernel{op: opLin, n: n, dst: dst, a: a, b: b, c: c, s1: s, s2: scale})[0]
}

// dot2 returns a·b and b·b.
func (p *pool) dot2(a, b []float64) (ab, bb float64) {
	if len(a) != len(b) {
		panic("owlqn: dot: length mismatch")
	}
	r := p.run(&kernel{op: opDot, n: len(a), a: a, b: b})
	return r[0], r[1]
}

func (p *pool) dot(a, b []float64) float64 {
	ab, _ := p.dot2(a, b)
	return ab
}

func (p *pool) norm1(x []float64) float64 {
	return p.run(&kernel{op: opNorm1, n: len(x), a: x})[0]
}

// pseudoGradient is the parallel pseudoGradient; it returns ||pg||².
func (p *pool) pseudoGradient(pg, x, g []float64, l1 float64) float64 {
	if len(pg) != len(x) || len(g) != len(x) {
		panic("owlqn: pseudoGradient: length mismatch")
	}
	return p.run(&kernel{op: opPseudo, n: len(x), dst: pg, a: x, b: g, s1: l1})[0]
}

// projectDot applies projectDirection(d, pg) if project is true and returns
// d·pg.
func (p *pool) projectDot(d, pg []float64, project bool) float64 {
	if len(d) != len(pg) {
		panic("owlqn: projectDirection: length mismatch")
	}
	k := kernel{op: opProjDot, n: len(d), dst: d, a: pg}
	if project {
		k.s1 = 1
	}
	return p.run(&k)[0]
}

// trial sets xt = x + step*d, projected onto the orthant of (x, pg) if
// project is true (projectOrthant), and returns dec = pg·(xt - x),
// dl1 = ||xt||_1 - ||x||_1 summed term by term, ||xt||_1 and whether any
// coordinate moved.
func (p *pool) trial(xt, x, d, pg []float64, step float64, project bool) (dec, dl1, n1 float64, moved bool) {
	n := len(x)
	if len(xt) != n || len(d) != n || len(pg) != n {
		panic("owlqn: trial: length mismatch")
	}
	k := kernel{op: opTrial, n: n, dst: xt, a: x, b: d, c: pg, s1: step}
	if project {
		k.s2 = 1
	}
	r := p.run(&k)
	return r[0], r[1], r[2], r[3] != 0
}

// trap returns (g + gt)·(xt - x).
func (p *pool) trap(g, gt, xt, x []float64) float64 {
	return p.run(&kernel{op: opTrap, n: len(x), a: g, b: gt, c: xt, e: x})[0]
}

// diffDot returns s·y and y·y for s = xNew - xOld, y = gNew - gOld.
func (p *pool) diffDot(xNew, xOld, gNew, gOld []float64) (sy, yy float64) {
	n := len(xNew)
	if len(xOld) != n || len(gNew) != n || len(gOld) != n {
		panic("owlqn: memory update: length mismatch")
	}
	r := p.run(&kernel{op: opDiffDot, n: n, a: xNew, b: xOld, c: gNew, e: gOld})
	return r[0], r[1]
}

// diff sets s = xNew - xOld and y = gNew - gOld.
func (p *pool) diff(s, y, xNew, xOld, gNew, gOld []float64) {
	p.run(&kernel{op: opDiff, n: len(xNew), dst: s, dst2: y, a: xNew, b: xOld, c: gNew, e: gOld})
}
