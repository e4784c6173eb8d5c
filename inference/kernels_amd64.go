//go:build amd64 && !purego

package inference

import "golang.org/x/sys/cpu"

// haveAsm reports whether the AVX2 kernels of kernels_amd64.s can run
// (x/sys/cpu checks that the OS saves the YMM registers).
var haveAsm = cpu.X86.HasAVX && cpu.X86.HasAVX2

// expShiftAVX2 sets x[i] = exp(x[i] - max) for i < n, as expKernel.
//
//go:noescape
func expShiftAVX2(x *float64, n int, max float64)

// gemvTAVX2 is gemvTGo on nv ∈ [1, 8] vectors of 4 columns.
//
//go:noescape
func gemvTAVX2(dst, x, a *float64, n, xs, as, nv int)

// maxPlusAVX2 is maxPlusGo on nv ∈ [1, 6] vectors of 4 columns.
//
//go:noescape
func maxPlusAVX2(m, arg, prev, a *float64, n, as, nv int)

// maxMinAVX2 is maxMin on x[:n], n ≥ 1.
//
//go:noescape
func maxMinAVX2(x *float64, n int) (max, min float64)

// normRowAVX2 is normRow on x[:n] and e[:n], n ≥ 1.
//
//go:noescape
func normRowAVX2(x, e *float64, n int, floor float64) (s, inv float64, low bool)
