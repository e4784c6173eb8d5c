package spanadd

import (
	"fmt"
	"math"
)

// Gather adds src[lo_k : lo_k+len(dst)] to dst for every span (lo_k, hi_k)
// of spans, in order. Every lo_k must be in [0, len(src)-len(dst)]; hi_k
// is the caller's (see the package doc). dst must not overlap src.
func Gather(dst, src []float64, spans []int32) { gather(dst, src, spans, haveAsm) }

// gather is Gather with the AVX2 kernels when asm (tests compare both).
func gather(dst, src []float64, spans []int32, asm bool) {
	n := len(dst)
	ns, limit := prepare(n, len(src), spans)
	if ns == 0 || n == 0 {
		return
	}
	if !asm {
		gatherGo(dst, src, spans, limit)
		return
	}
	if !gatherAVX2(&dst[0], n, &src[0], &spans[0], ns, limit) {
		badSpan(n, len(src), spans)
	}
}

// Scatter adds v to dst[lo_k : lo_k+len(v)] for every span (lo_k, hi_k) of
// spans, in order. Every lo_k must be in [0, len(dst)-len(v)]; hi_k is
// the caller's; v must not overlap dst, and two spans must be disjoint or
// identical (see the package doc). On a bad span it panics, possibly after
// adding v at the spans before it.
func Scatter(dst, v []float64, spans []int32) { scatter(dst, v, spans, haveAsm) }

// scatter is Scatter with the AVX2 kernels when asm (tests compare both).
func scatter(dst, v []float64, spans []int32, asm bool) {
	n := len(v)
	ns, limit := prepare(n, len(dst), spans)
	if ns == 0 || n == 0 {
		return
	}
	if !asm {
		scatterGo(dst, v, spans, limit)
		return
	}
	if !scatterAVX2(&dst[0], &v[0], n, &spans[0], ns, limit) {
		badSpan(n, len(dst), spans)
	}
}

// prepare returns the number of spans of the list and the largest valid
// offset of a row of n in a slice of size (at most MaxInt32, so that a
// negative int32 read as unsigned is above it). It panics on a list of
// odd length, or when rows of n do not fit in size at all.
func prepare(n, size int, spans []int32) (ns int, limit uint) {
	if len(spans)%2 != 0 {
		panic(fmt.Sprintf("spanadd: odd span list length %d", len(spans)))
	}
	ns = len(spans) / 2
	if n > size && ns > 0 && n > 0 {
		badSpan(n, size, spans)
	}
	return ns, uint(min(max(size-n, 0), math.MaxInt32))
}

// badSpan panics, naming the first span whose offset is out of range.
func badSpan(n, size int, spans []int32) {
	for k := 0; k < len(spans); k += 2 {
		if lo := int(spans[k]); lo < 0 || lo > size-n {
			panic(fmt.Sprintf("spanadd: span %d starts at %d: a row of %d does not fit in %d", k/2, lo, n, size))
		}
	}
	panic("spanadd: bad span")
}

func gatherGo(dst, src []float64, spans []int32, limit uint) {
	for k := 0; k < len(spans); k += 2 {
		lo := uint(uint32(spans[k]))
		if lo > limit {
			badSpan(len(dst), len(src), spans)
		}
		row := src[lo : lo+uint(len(dst))]
		for j, v := range row {
			dst[j] += v
		}
	}
}

func scatterGo(dst, v []float64, spans []int32, limit uint) {
	for k := 0; k < len(spans); k += 2 {
		lo := uint(uint32(spans[k]))
		if lo > limit {
			badSpan(len(v), len(dst), spans)
		}
		row := dst[lo : lo+uint(len(v))]
		for j, x := range v {
			row[j] += x
		}
	}
}
