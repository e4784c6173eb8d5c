package blocksum

import "fmt"

// AddBlocks sets row[i] += vals[k] * v[offs[k]+i] for every k of offs in
// turn and every i < len(row). It panics unless len(vals) >= len(offs)
// and every block v[offs[k]:offs[k]+len(row)] is in v.
func AddBlocks(row, v []float64, offs []int32, vals []float64) {
	check(len(v), len(row), offs, vals)
	if len(offs) == 0 || len(row) == 0 {
		return
	}
	if haveAsm {
		addBlocksAVX2(&row[0], len(row), &v[0], &offs[0], &vals[0], len(offs))
		return
	}
	addBlocksGo(row, v, offs, vals)
}

// AddRow sets, for every k of offs in turn, g[offs[k]+i] +=
// vals[k] * marg[i] for every i < len(marg), then g[offs[k]+obs] -= vals[k].
// It panics unless 0 <= obs < len(marg), len(vals) >= len(offs) and every
// block g[offs[k]:offs[k]+len(marg)] is in g.
func AddRow(g, marg []float64, offs []int32, vals []float64, obs int) {
	check(len(g), len(marg), offs, vals)
	if obs < 0 || obs >= len(marg) {
		panic(fmt.Sprintf("blocksum: observed outcome %d of %d", obs, len(marg)))
	}
	if len(offs) == 0 {
		return
	}
	if haveAsm {
		addRowAVX2(&g[0], len(marg), &marg[0], &offs[0], &vals[0], len(offs), obs)
		return
	}
	addRowGo(g, marg, offs, vals, obs)
}

// check panics unless every block of size n at offs is within an array
// of length size and vals has a value per block.
func check(size, n int, offs []int32, vals []float64) {
	if len(vals) < len(offs) {
		panic(fmt.Sprintf("blocksum: %d values for %d blocks", len(vals), len(offs)))
	}
	for _, o := range offs {
		if o < 0 || int(o)+n > size {
			panic(fmt.Sprintf("blocksum: block [%d, %d) out of %d", o, int(o)+n, size))
		}
	}
}

// addBlocksGo is AddBlocks' Go loop.
func addBlocksGo(row, v []float64, offs []int32, vals []float64) {
	for k, o := range offs {
		blk, x := v[o:int(o)+len(row)], vals[k]
		for i := range row {
			row[i] += float64(x * blk[i])
		}
	}
}

// addRowGo is AddRow's Go loop.
func addRowGo(g, marg []float64, offs []int32, vals []float64, obs int) {
	for k, o := range offs {
		blk, x := g[o:int(o)+len(marg)], vals[k]
		for i := range marg {
			blk[i] += float64(x * marg[i])
		}
		blk[obs] -= x
	}
}
