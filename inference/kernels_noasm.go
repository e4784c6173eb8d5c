//go:build !amd64 || purego

package inference

// haveAsm is false: the Go kernels run.
const haveAsm = false

func expShiftAVX2(x *float64, n int, max float64)         { panic("inference: no assembly") }
func gemvTAVX2(dst, x, a *float64, n, xs, as, nv int)     { panic("inference: no assembly") }
func maxPlusAVX2(m, arg, prev, a *float64, n, as, nv int) { panic("inference: no assembly") }

func maxMinAVX2(x *float64, n int) (max, min float64) { panic("inference: no assembly") }

func normRowAVX2(x, e *float64, n int, floor float64) (s, inv float64, low bool) {
	panic("inference: no assembly")
}
