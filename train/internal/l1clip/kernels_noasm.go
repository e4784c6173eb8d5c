//go:build !amd64 || purego

package l1clip

// haveAsm is false: the Go loops run.
const haveAsm = false

func clipAVX2(v, q *float64, n int, u float64) { panic("l1clip: no assembly") }

func descendAVX2(v, q, grad *float64, n int, step, u float64) { panic("l1clip: no assembly") }
