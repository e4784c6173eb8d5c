//go:build amd64 && !purego

package densemul

import "golang.org/x/sys/cpu"

// haveAsm reports whether the AVX2/FMA kernel of kernels_amd64.s can run.
var haveAsm = cpu.X86.HasAVX && cpu.X86.HasAVX2 && cpu.X86.HasFMA

// addMulAVX2 is addMulGo on dst[:n], x[:K] (n, K >= 1).
//
//go:noescape
func addMulAVX2(dst *float64, n int, x *float64, K int, w *float64, stride int)
