package spanadd

import "fmt"

// useAsm selects the AVX2 kernels; tests switch it off to compare.
var useAsm = haveAsm

// Gather adds src[lo_k : lo_k+len(dst)] to dst for every span (lo_k, hi_k)
// of spans, in order. Every span must have hi_k - lo_k == len(dst) and
// hi_k <= len(src); dst must not overlap src.
func Gather(dst, src []float64, spans []int32) {
	ns := check(len(dst), len(src), spans)
	if ns == 0 || len(dst) == 0 {
		return
	}
	if useAsm {
		gatherAVX2(&dst[0], len(dst), &src[0], &spans[0], ns)
		return
	}
	gatherGo(dst, src, spans)
}

// Scatter adds v to dst[lo_k : lo_k+len(v)] for every span (lo_k, hi_k) of
// spans, in order. Every span must have hi_k - lo_k == len(v) and
// hi_k <= len(dst); v must not overlap dst, and two spans must be disjoint
// or identical (see the package doc).
func Scatter(dst, v []float64, spans []int32) {
	ns := check(len(v), len(dst), spans)
	if ns == 0 || len(v) == 0 {
		return
	}
	if useAsm {
		scatterAVX2(&dst[0], &v[0], len(v), &spans[0], ns)
		return
	}
	scatterGo(dst, v, spans)
}

// check returns the number of spans after checking each against the row
// length n and the length of the slice they index. The loop has no
// branch per span: it folds every span's violations into one value.
func check(n, size int, spans []int32) int {
	if len(spans)%2 != 0 {
		panic(fmt.Sprintf("spanadd: odd span list length %d", len(spans)))
	}
	bad, top := int64(0), int64(0)
	for k := 0; k+1 < len(spans); k += 2 {
		lo, hi := int64(spans[k]), int64(spans[k+1])
		bad |= lo | (hi - lo - int64(n)) | (int64(n) - (hi - lo))
		top = max(top, hi)
	}
	if bad < 0 || top > int64(size) {
		for k := 0; k < len(spans); k += 2 {
			lo, hi := spans[k], spans[k+1]
			if lo < 0 || int64(hi)-int64(lo) != int64(n) || int64(hi) > int64(size) {
				panic(fmt.Sprintf("spanadd: span %d is [%d, %d), want length %d within %d", k/2, lo, hi, n, size))
			}
		}
	}
	return len(spans) / 2
}

func gatherGo(dst, src []float64, spans []int32) {
	for k := 0; k < len(spans); k += 2 {
		row := src[spans[k]:spans[k+1]]
		row = row[:len(dst)]
		for j, v := range row {
			dst[j] += v
		}
	}
}

func scatterGo(dst, v []float64, spans []int32) {
	for k := 0; k < len(spans); k += 2 {
		row := dst[spans[k]:spans[k+1]]
		row = row[:len(v)]
		for j, x := range v {
			row[j] += x
		}
	}
}
