package densemul

import "math"

// AddMul adds to dst[j], for every j < len(dst), the sum over k < len(x)
// of x[k] w[k*stride+j], taking k in order, each step one fused
// multiply-add (dst[j] = fma(x[k], w[k*stride+j], dst[j])): the same bits
// on the assembly and the Go path. It panics unless w holds every element
// read (len(w) >= (len(x)-1)*stride+len(dst) when x is not empty).
func AddMul(dst, x, w []float64, stride int) {
	n, K := len(dst), len(x)
	if n == 0 || K == 0 {
		return
	}
	if stride < n || len(w) < (K-1)*stride+n {
		panic("densemul: AddMul: w too short for x, dst and stride")
	}
	if haveAsm {
		addMulAVX2(&dst[0], n, &x[0], K, &w[0], stride)
		return
	}
	addMulGo(dst, x, w, stride)
}

// addMulGo is AddMul in Go.
func addMulGo(dst, x, w []float64, stride int) {
	for j := range dst {
		acc := dst[j]
		for k, xk := range x {
			acc = math.FMA(xk, w[k*stride+j], acc)
		}
		dst[j] = acc
	}
}
