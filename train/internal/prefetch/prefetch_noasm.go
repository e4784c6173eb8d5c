//go:build !amd64 || purego

package prefetch

// haveAsm is false: no prefetch is issued, Blocks only counts the lines.
const haveAsm = false

func blocksAsm(x, y *float64, starts, attrs *int32, n int) int { panic("prefetch: no assembly") }
