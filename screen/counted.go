package screen

import (
	"errors"
	"fmt"
	"iter"

	"github.com/sparsetag/sparsetag/sparse"
)

// CountedRangeBounds is RangeBounds (unit weights) for a binary corpus (no
// unary values, no dense blocks) whose gold state counts the caller has
// already formed, as a trainer's objective has: obs yields, for
// increasing state features j = a*L + l, the number of positions where
// attribute a fires with gold label l (the features it skips count 0).
// On binary data the state bound is max(obs, c_a - obs) with c_a =
// sum_l obs(a, l), the number of entries of attribute a, so the state
// block takes one pass over the counts instead of a scan of the corpus.
// Every count and every c_a is an integer below 2^53, summed exactly in
// any order, so the bounds are RangeBounds's bit for bit (the transition
// and pair blocks are computed as there). It returns an error where
// RangeBounds does, and when the corpus is not binary or obs is not
// increasing or leaves the state block.
func CountedRangeBounds(dst []float64, lay sparse.Layout, c *sparse.Corpus, obs iter.Seq2[int32, float64]) ([]float64, error) {
	if err := checkLayout(lay, c); err != nil {
		return dst, err
	}
	if c.Unary.Val != nil || c.HasDense() {
		return dst, errors.New("screen: CountedRangeBounds needs a binary corpus without dense blocks")
	}
	if c.Labels == nil && c.Positions() > 0 {
		return dst, errors.New("screen: CountedRangeBounds needs gold labels")
	}
	U, L, P, d := lay.NumUnary, lay.L, lay.NumPair, lay.Dim()
	to, po := lay.TransOffset(), lay.PairOffset()
	if cap(dst) < d {
		dst = make([]float64, d)
	}
	dst = dst[:d]
	if L < 2 || c.Len() == 0 {
		clear(dst)
		return dst, nil
	}
	if err := countedState(dst[:U*L], L, obs); err != nil {
		return dst, err
	}
	clear(dst[U*L:])
	rangeTrans(dst[to:to+L*L], L, c, nil)
	if P > 0 && c.Pair.Rows() > 0 {
		K := c.Unary.NNZ() + c.Pair.NNZ() + 2*c.Len() + 4
		if err := rangePair(dst[po:po+P*L*L], P, L, c, 4*float64(K)*0x1p-53, nil); err != nil {
			return dst, err
		}
	}
	return dst, nil
}

// countedState writes the state block blk (U*L, row-major) from the gold
// counts obs: attribute by attribute, the row's counts are gathered, then
// every bound of the row is written (c_a where the count is 0).
func countedState(blk []float64, L int, obs iter.Seq2[int32, float64]) error {
	row := make([]float64, L)
	next, cur := 0, -1 // the first attribute not written; the one gathered
	flush := func() {
		if cur < 0 {
			return
		}
		clear(blk[next*L : cur*L])
		var ca float64
		for _, v := range row {
			ca += v
		}
		out := blk[cur*L : (cur+1)*L]
		for l, v := range row {
			out[l] = max(v, ca-v)
		}
		clear(row)
		next = cur + 1
	}
	last := int32(-1)
	for j, v := range obs {
		if j <= last || int(j) >= len(blk) {
			return fmt.Errorf("screen: CountedRangeBounds: state count %d after %d (want increasing, below %d)", j, last, len(blk))
		}
		last = j
		if a := int(j) / L; a != cur {
			flush()
			cur = a
		}
		row[int(j)%L] = v
	}
	flush()
	clear(blk[next*L:])
	return nil
}
