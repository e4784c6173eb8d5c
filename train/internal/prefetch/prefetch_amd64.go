//go:build amd64 && !purego

package prefetch

// haveAsm is true: PREFETCHT0 is part of SSE, which every amd64 has.
const haveAsm = true

// blocksAsm is Blocks' kernel on the arrays at x and y, the starts at
// starts and the n attributes at attrs (n >= 1).
//
//go:noescape
func blocksAsm(x, y *float64, starts, attrs *int32, n int) int
