package prefetch

import "unsafe"

// LineSize is the cache line size BlocksAt assumes (bytes).
const LineSize = 64

// lines returns the number of cache lines from the one of first to the
// one of last.
func lines(first, last *float64) int {
	f, l := uintptr(unsafe.Pointer(first)), uintptr(unsafe.Pointer(last))
	return int(l/LineSize-f/LineSize) + 1
}

// BlocksAt prefetches the cache lines of x[o:o+n] and y[o:o+n] for every
// o >= 0 of offs (a negative one is skipped) and returns how many lines it
// covered: 0 where there is no prefetch kernel (not amd64, or the purego
// tag), which then does nothing. Every x[o:o+n] and y[o:o+n] must be in x
// and y (not checked; a prefetch of any address is harmless).
func BlocksAt(x, y []float64, offs []int32, n int) int {
	if !haveAsm || len(offs) == 0 || n <= 0 || len(x) == 0 || len(y) == 0 {
		return 0
	}
	return blocksAtAsm(&x[0], &y[0], &offs[0], len(offs), n)
}

// linesAtGo is the number of lines BlocksAt's kernel covers, computed in
// Go (bounds checked): the tests' reference.
func linesAtGo(x, y []float64, offs []int32, n int) int {
	c := 0
	if n <= 0 {
		return 0
	}
	for _, o := range offs {
		if o >= 0 {
			c += lines(&x[o], &x[int(o)+n-1]) + lines(&y[o], &y[int(o)+n-1])
		}
	}
	return c
}
