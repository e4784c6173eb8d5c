//go:build !amd64 || purego

package densemul

// haveAsm is false: the Go loop runs.
const haveAsm = false

func addMulAVX2(dst *float64, n int, x *float64, K int, w *float64, stride int) {
	panic("densemul: no assembly")
}
