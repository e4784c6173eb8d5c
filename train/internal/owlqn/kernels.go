package owlqn

import (
	"math"

	"github.com/sparsetag/sparsetag/internal/par"
)

// This file holds the vector kernels of an iteration, which run on several
// goroutines with par.For.
//
// Determinism: every kernel works on fixed chunks of chunkLen elements
// (chunk c covers [c*chunkLen, (c+1)*chunkLen) ∩ [0, n)); the chunk
// boundaries depend only on n. A reduction sums each chunk serially, in an
// order fixed by the chunk alone (four interleaved lanes, see dotSerial),
// into a partial sum, and the partial sums are then added in chunk order,
// starting from +0. The serial path (Threads <= 1, or n below
// parMinLen) runs the same chunks in order and adds each partial as soon as
// it is computed, which is the same sequence of floating-point additions.
// So every result is bit-identical for any number of threads; only which
// goroutine computes a chunk varies.
//
// Fusion: several kernels do in one pass over memory what the textbook
// writes as two (an axpy and the next dot product of the two-loop recursion,
// the pseudo-gradient and its norm, a line-search trial point and the sums
// the Armijo test needs): the second step reruns over the chunk while it is
// still in cache. Fusion changes the memory traffic, not the results.

// chunkLen is the number of elements of one chunk. It must never depend on
// the number of threads.
const chunkLen = 1 << 13

// parMinLen is the length below which kernels run on the calling goroutine
// (with the same chunked arithmetic): starting goroutines would cost more
// than it saves. Tests force the parallel path on small vectors with a
// vecops of their own (Settings.forceParallel, newVecops).
const parMinLen = 1 << 16

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
// constants).
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
		r[0], r[1] = dotSerial(a, b), dotSerial(b, b)
	case opNorm1:
		r[0] = norm1Serial(k.a[lo:hi])
	case opPseudo:
		pg := k.dst[lo:hi]
		if k.s1 == 0 {
			copy(pg, k.b[lo:hi])
		} else {
			pseudoGradientFast(pg, k.a[lo:hi], k.b[lo:hi], k.s1)
		}
		r[0] = dotSerial(pg, pg)
	case opProjDot:
		d, pg := k.dst[lo:hi], k.a[lo:hi]
		if k.s1 != 0 {
			projectDirectionFast(d, pg)
		}
		r[0] = dotSerial(d, pg)
	case opTrial:
		xt, x, d, pg := k.dst[lo:hi], k.a[lo:hi], k.b[lo:hi], k.c[lo:hi]
		step := k.s1
		for j, xj := range x {
			xt[j] = xj + step*d[j]
		}
		if k.s2 != 0 {
			projectOrthantFast(xt, x, pg)
		}
		r = trialSums(xt, x, pg)
	case opTrap:
		r[0] = trapSerial(k.a[lo:hi], k.b[lo:hi], k.c[lo:hi], k.e[lo:hi])
	case opDiffDot:
		r[0], r[1] = diffDotSerial(k.a[lo:hi], k.b[lo:hi], k.c[lo:hi], k.e[lo:hi])
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

// The serial reductions below work on one chunk. Each keeps four
// accumulators, lane l summing the terms j ≡ l (mod 4) (the tail of a
// chunk whose length is not a multiple of 4 goes to lane 0), and returns
// (lane0 + lane1) + (lane2 + lane3): four independent addition chains run
// about four times faster than one, whose latency bounds a plain loop. The
// order of the additions depends only on the chunk, as it must.

// dotSerial returns a·b.
func dotSerial(a, b []float64) float64 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float64
	j := 0
	for ; j+4 <= len(a); j += 4 {
		a4, b4 := a[j:j+4:j+4], b[j:j+4:j+4]
		s0 += a4[0] * b4[0]
		s1 += a4[1] * b4[1]
		s2 += a4[2] * b4[2]
		s3 += a4[3] * b4[3]
	}
	for ; j < len(a); j++ {
		s0 += a[j] * b[j]
	}
	return (s0 + s1) + (s2 + s3)
}

// norm1Serial returns ||a||_1.
func norm1Serial(a []float64) float64 {
	var s0, s1, s2, s3 float64
	j := 0
	for ; j+4 <= len(a); j += 4 {
		a4 := a[j : j+4 : j+4]
		s0 += math.Abs(a4[0])
		s1 += math.Abs(a4[1])
		s2 += math.Abs(a4[2])
		s3 += math.Abs(a4[3])
	}
	for ; j < len(a); j++ {
		s0 += math.Abs(a[j])
	}
	return (s0 + s1) + (s2 + s3)
}

// trapSerial returns (a + b)·(c - e).
func trapSerial(a, b, c, e []float64) float64 {
	n := len(a)
	b, c, e = b[:n], c[:n], e[:n]
	var s0, s1, s2, s3 float64
	j := 0
	for ; j+4 <= n; j += 4 {
		a4, b4, c4, e4 := a[j:j+4:j+4], b[j:j+4:j+4], c[j:j+4:j+4], e[j:j+4:j+4]
		s0 += (a4[0] + b4[0]) * (c4[0] - e4[0])
		s1 += (a4[1] + b4[1]) * (c4[1] - e4[1])
		s2 += (a4[2] + b4[2]) * (c4[2] - e4[2])
		s3 += (a4[3] + b4[3]) * (c4[3] - e4[3])
	}
	for ; j < n; j++ {
		s0 += (a[j] + b[j]) * (c[j] - e[j])
	}
	return (s0 + s1) + (s2 + s3)
}

// diffDotSerial returns (a - b)·(c - e) and (c - e)·(c - e).
func diffDotSerial(a, b, c, e []float64) (sy, yy float64) {
	n := len(a)
	b, c, e = b[:n], c[:n], e[:n]
	var s0, s1, s2, s3, q0, q1, q2, q3 float64
	j := 0
	for ; j+4 <= n; j += 4 {
		a4, b4, c4, e4 := a[j:j+4:j+4], b[j:j+4:j+4], c[j:j+4:j+4], e[j:j+4:j+4]
		y0, y1, y2, y3 := c4[0]-e4[0], c4[1]-e4[1], c4[2]-e4[2], c4[3]-e4[3]
		s0 += (a4[0] - b4[0]) * y0
		s1 += (a4[1] - b4[1]) * y1
		s2 += (a4[2] - b4[2]) * y2
		s3 += (a4[3] - b4[3]) * y3
		q0 += y0 * y0
		q1 += y1 * y1
		q2 += y2 * y2
		q3 += y3 * y3
	}
	for ; j < n; j++ {
		y := c[j] - e[j]
		s0 += (a[j] - b[j]) * y
		q0 += y * y
	}
	return (s0 + s1) + (s2 + s3), (q0 + q1) + (q2 + q3)
}

// trialSums returns, for a trial point xt and the current point x,
// pg·(xt - x), Σ(|xt_j| - |x_j|), ||xt||_1 and the number of j with
// xt_j != x_j (as a float64, so that it is summed like the others), with
// two lanes per sum.
func trialSums(xt, x, pg []float64) (r [maxParts]float64) {
	n := len(xt)
	x, pg = x[:n], pg[:n]
	var dec0, dec1, dl0, dl1, n0, n1, moved float64
	j := 0
	for ; j+2 <= n; j += 2 {
		t2, x2, p2 := xt[j:j+2:j+2], x[j:j+2:j+2], pg[j:j+2:j+2]
		dx0, dx1 := t2[0]-x2[0], t2[1]-x2[1]
		if dx0 != 0 {
			moved++
		}
		if dx1 != 0 {
			moved++
		}
		dec0 += p2[0] * dx0
		dec1 += p2[1] * dx1
		a0, a1 := math.Abs(t2[0]), math.Abs(t2[1])
		dl0 += a0 - math.Abs(x2[0])
		dl1 += a1 - math.Abs(x2[1])
		n0 += a0
		n1 += a1
	}
	for ; j < n; j++ {
		dx := xt[j] - x[j]
		if dx != 0 {
			moved++
		}
		dec0 += pg[j] * dx
		a := math.Abs(xt[j])
		dl0 += a - math.Abs(x[j])
		n0 += a
	}
	return [maxParts]float64{dec0 + dec1, dl0 + dl1, n0 + n1, moved}
}

// vecops runs the kernels of one optimizer on threads goroutines, with
// par.For; a nil *vecops runs them on the calling goroutine. It serves one
// optimizer, one kernel at a time.
type vecops struct {
	threads int
	minLen  int                 // vectors shorter than this run serially (parMinLen; 0 in tests)
	part    [][maxParts]float64 // partial sums of the chunks of the current kernel
}

// newVecops returns the kernels for vectors of at most n elements on
// threads goroutines, or nil (serial) if threads <= 1; vectors shorter
// than minLen (parMinLen, or 0 in a test of the parallel path) still run
// serially.
func newVecops(threads, n, minLen int) *vecops {
	if threads <= 1 {
		return nil
	}
	return &vecops{threads: threads, minLen: minLen, part: make([][maxParts]float64, (n+chunkLen-1)/chunkLen)}
}

// run executes k over [0, k.n) and returns its partial sums added in chunk
// order.
func (v *vecops) run(k *kernel) [maxParts]float64 {
	var tot [maxParts]float64
	nc := (k.n + chunkLen - 1) / chunkLen
	if v == nil || k.n < v.minLen {
		for c := range nc {
			r := k.chunk(c*chunkLen, min(k.n, (c+1)*chunkLen))
			for i := range tot {
				tot[i] += r[i]
			}
		}
		return tot
	}
	if nc > len(v.part) {
		panic("owlqn: kernel longer than the optimizer's vectors")
	}
	part := v.part[:nc]
	kc := *k // a copy, so that k itself stays on the caller's stack
	par.For(v.threads, nc, func(c int) {
		part[c] = kc.chunk(c*chunkLen, min(kc.n, (c+1)*chunkLen))
	})
	for c := range part {
		for i := range tot {
			tot[i] += part[c][i]
		}
	}
	return tot
}

// compactVecs applies compactVec(v, keep) to every v in vecs, all of the
// same length. compactVec moves data within a vector in place, which
// cannot be split by chunk, so the goroutines share out whole vectors.
func (v *vecops) compactVecs(vecs [][]float64, keep []int32) {
	if v == nil || len(vecs) < 2 || len(vecs[0]) < v.minLen {
		for _, x := range vecs {
			compactVec(x, keep)
		}
		return
	}
	par.For(v.threads, len(vecs), func(i int) { compactVec(vecs[i], keep) })
}

// lin sets dst = (a + s*b) * scale (dst = a*scale if b is nil) and returns
// c·dst, or 0 if c is nil. dst may be a itself.
func (v *vecops) lin(dst, a []float64, s float64, b []float64, scale float64, c []float64) float64 {
	n := len(dst)
	if len(a) != n || (b != nil && len(b) != n) || (c != nil && len(c) != n) {
		panic("owlqn: lin: length mismatch")
	}
	return v.run(&kernel{op: opLin, n: n, dst: dst, a: a, b: b, c: c, s1: s, s2: scale})[0]
}

// dot2 returns a·b and b·b.
func (v *vecops) dot2(a, b []float64) (ab, bb float64) {
	if len(a) != len(b) {
		panic("owlqn: dot: length mismatch")
	}
	r := v.run(&kernel{op: opDot, n: len(a), a: a, b: b})
	return r[0], r[1]
}

func (v *vecops) dot(a, b []float64) float64 {
	ab, _ := v.dot2(a, b)
	return ab
}

func (v *vecops) norm1(x []float64) float64 {
	return v.run(&kernel{op: opNorm1, n: len(x), a: x})[0]
}

// pseudoGradient is the parallel pseudoGradient; it returns ||pg||².
func (v *vecops) pseudoGradient(pg, x, g []float64, l1 float64) float64 {
	if len(pg) != len(x) || len(g) != len(x) {
		panic("owlqn: pseudoGradient: length mismatch")
	}
	return v.run(&kernel{op: opPseudo, n: len(x), dst: pg, a: x, b: g, s1: l1})[0]
}

// projectDot applies projectDirection(d, pg) if project is true and returns
// d·pg.
func (v *vecops) projectDot(d, pg []float64, project bool) float64 {
	if len(d) != len(pg) {
		panic("owlqn: projectDirection: length mismatch")
	}
	k := kernel{op: opProjDot, n: len(d), dst: d, a: pg}
	if project {
		k.s1 = 1
	}
	return v.run(&k)[0]
}

// trial sets xt = x + step*d, projected onto the orthant of (x, pg) if
// project is true (projectOrthant), and returns dec = pg·(xt - x),
// dl1 = ||xt||_1 - ||x||_1 summed term by term, ||xt||_1 and whether any
// coordinate moved.
func (v *vecops) trial(xt, x, d, pg []float64, step float64, project bool) (dec, dl1, n1 float64, moved bool) {
	n := len(x)
	if len(xt) != n || len(d) != n || len(pg) != n {
		panic("owlqn: trial: length mismatch")
	}
	k := kernel{op: opTrial, n: n, dst: xt, a: x, b: d, c: pg, s1: step}
	if project {
		k.s2 = 1
	}
	r := v.run(&k)
	return r[0], r[1], r[2], r[3] != 0
}

// trap returns (g + gt)·(xt - x).
func (v *vecops) trap(g, gt, xt, x []float64) float64 {
	return v.run(&kernel{op: opTrap, n: len(x), a: g, b: gt, c: xt, e: x})[0]
}

// diffDot returns s·y and y·y for s = xNew - xOld, y = gNew - gOld.
func (v *vecops) diffDot(xNew, xOld, gNew, gOld []float64) (sy, yy float64) {
	n := len(xNew)
	if len(xOld) != n || len(gNew) != n || len(gOld) != n {
		panic("owlqn: memory update: length mismatch")
	}
	r := v.run(&kernel{op: opDiffDot, n: n, a: xNew, b: xOld, c: gNew, e: gOld})
	return r[0], r[1]
}

// diff sets s = xNew - xOld and y = gNew - gOld.
func (v *vecops) diff(s, y, xNew, xOld, gNew, gOld []float64) {
	v.run(&kernel{op: opDiff, n: len(xNew), dst: s, dst2: y, a: xNew, b: xOld, c: gNew, e: gOld})
}
