package prefetch

import "unsafe"

// LineSize is the cache line size Blocks assumes (bytes).
const LineSize = 64

// Blocks prefetches, for every a in attrs, the cache lines of
// x[starts[a]:starts[a+1]] and y[starts[a]:starts[a+1]], and returns how
// many lines it covered (a line of x and one of y count apart). starts
// must be increasing, with every a+1 of attrs an index of starts and
// starts[a+1] <= len(x), len(y): Blocks does not check them on amd64,
// where the kernel reads starts directly (a prefetch of any address is
// harmless, a read of starts is not).
func Blocks(x, y []float64, starts, attrs []int32) int {
	if len(attrs) == 0 || len(x) == 0 || len(y) == 0 {
		return 0
	}
	if haveAsm {
		return blocksAsm(&x[0], &y[0], &starts[0], &attrs[0], len(attrs))
	}
	return linesGo(x, y, starts, attrs)
}

// linesGo is the number of lines Blocks covers, computed in Go (bounds
// checked).
func linesGo(x, y []float64, starts, attrs []int32) int {
	n := 0
	for _, a := range attrs {
		lo, hi := int(starts[a]), int(starts[a+1])
		if hi <= lo {
			continue
		}
		n += lines(&x[lo], &x[hi-1]) + lines(&y[lo], &y[hi-1])
	}
	return n
}

// lines returns the number of cache lines from the one of first to the
// one of last.
func lines(first, last *float64) int {
	f, l := uintptr(unsafe.Pointer(first)), uintptr(unsafe.Pointer(last))
	return int(l/LineSize-f/LineSize) + 1
}
