//go:build amd64 && !purego

package blocksum

import "golang.org/x/sys/cpu"

// haveAsm reports whether the AVX2 kernels of kernels_amd64.s can run.
var haveAsm = cpu.X86.HasAVX && cpu.X86.HasAVX2

// addBlocksAVX2 is addBlocksGo on row[:L] (L >= 1) and n >= 1 blocks.
//
//go:noescape
func addBlocksAVX2(row *float64, L int, v *float64, offs *int32, vals *float64, n int)

// addRowAVX2 is addRowGo on marg[:L] (L >= 1) and n >= 1 blocks.
//
//go:noescape
func addRowAVX2(dst *float64, L int, marg *float64, offs *int32, vals *float64, n, obs int)
