//go:build !amd64 || purego

package blocksum

// haveAsm is false: the Go loops run.
const haveAsm = false

func addBlocksAVX2(row *float64, L int, v *float64, offs *int32, vals *float64, n int) {
	panic("blocksum: no assembly")
}

func addRowAVX2(dst *float64, L int, marg *float64, offs *int32, vals *float64, n, obs int) {
	panic("blocksum: no assembly")
}
