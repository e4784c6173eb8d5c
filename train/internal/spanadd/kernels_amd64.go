//go:build amd64 && !purego

package spanadd

import "golang.org/x/sys/cpu"

// haveAsm reports whether the AVX2 kernels of kernels_amd64.s can run
// (x/sys/cpu checks that the OS saves the YMM registers).
var haveAsm = cpu.X86.HasAVX && cpu.X86.HasAVX2

// gatherAVX2 is gatherGo on dst[:n] with ns spans (n, ns >= 1); it
// reports false, having stopped at once, on a span whose lo is above
// limit (as unsigned 32 bits).
//
//go:noescape
func gatherAVX2(dst *float64, n int, src *float64, spans *int32, ns int, limit uint) bool

// scatterAVX2 is scatterGo with v[:n] and ns spans (n, ns >= 1), with
// gatherAVX2's check.
//
//go:noescape
func scatterAVX2(dst, v *float64, n int, spans *int32, ns int, limit uint) bool
