//go:build amd64 && !purego

package l1clip

import "golang.org/x/sys/cpu"

// haveAsm reports whether the AVX2 kernels of kernels_amd64.s can run
// (x/sys/cpu checks that the OS saves the YMM registers).
var haveAsm = cpu.X86.HasAVX && cpu.X86.HasAVX2

// clipAVX2 is clipGo on v[:n] and q[:n] (n >= 1).
//
//go:noescape
func clipAVX2(v, q *float64, n int, u float64)

// descendAVX2 is descendGo on v[:n], q[:n] and grad[:n] (n >= 1).
//
//go:noescape
func descendAVX2(v, q, grad *float64, n int, step, u float64)
