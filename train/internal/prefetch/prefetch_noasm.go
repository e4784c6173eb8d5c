//go:build !amd64 || purego

package prefetch

// haveAsm is false: no prefetch is issued, BlocksAt does nothing.
const haveAsm = false

func blocksAtAsm(x, y *float64, offs *int32, cnt, n int) int { panic("prefetch: no assembly") }
