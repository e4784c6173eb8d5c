// Package blocksum adds weighted blocks of a flat array into one row, and
// one row into weighted blocks: the per-position loops of the stochastic
// warm start (train/warmstart), its scoring (the scores of a position are
// the sum of its attributes' weight blocks) and its gradient (each
// attribute's gradient block gets the position's marginals).
//
// [AddBlocks] sets row[i] += vals[k] * v[offs[k]+i] for k = 0, 1, ... and
// every i < len(row); [AddRow] sets g[offs[k]+i] += vals[k] * marg[i] and
// then g[offs[k]+obs] -= vals[k], for k = 0, 1, ...
//
// # Results
//
// Each element goes through the same IEEE operations, in the same order,
// as the Go loops (a multiplication, then an addition, for every k in
// turn; no FMA: the Go loops convert each product to float64), whether
// the AVX2 kernels run (amd64 with AVX2, without the purego tag) or the Go
// loops: the results are bit-identical, and on amd64 bit-identical to
// gonum's floats.AddScaled called once per block (whose assembly
// multiplies and adds in two instructions too; a product by 1 is exact, so
// a binary attribute's block adds as floats.Add would). Elsewhere gonum's
// pure-Go loop may be compiled to a fused multiply-add; these loops are
// not. Blocks are taken in turn, so offsets
// may repeat (AddRow then updates a block twice, in order).
//
// # Cost
//
// The kernels keep a 4-element chunk of the row in a register over all
// the blocks (AddBlocks) or the row's chunk in a register over a block
// (AddRow), one call per position instead of one per attribute.
package blocksum
