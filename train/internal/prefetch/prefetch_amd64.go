//go:build amd64 && !purego

package prefetch

// haveAsm is true: PREFETCHT0 is part of SSE, which every amd64 has.
const haveAsm = true

// blocksAtAsm is BlocksAt's kernel on the arrays at x and y and the cnt
// offsets at offs (cnt >= 1, n >= 1).
//
//go:noescape
func blocksAtAsm(x, y *float64, offs *int32, cnt, n int) int
