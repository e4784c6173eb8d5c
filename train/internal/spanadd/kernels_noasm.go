//go:build !amd64 || purego

package spanadd

// haveAsm is false: the Go loops run.
const haveAsm = false

func gatherAVX2(dst *float64, n int, src *float64, spans *int32, ns int, limit uint) bool {
	panic("spanadd: no assembly")
}

func scatterAVX2(dst, v *float64, n int, spans *int32, ns int, limit uint) bool {
	panic("spanadd: no assembly")
}
