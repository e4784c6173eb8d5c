package objective

import (
	"slices"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/sparse"
	"github.com/sparsetag/sparsetag/train/internal/densemul"
)

// Dense blocks (sparse.Dense, word vectors): the corpus stores per
// position one row index per block, not D entries of Unary, and the block's
// D attributes have no entry in Unary. The objective scores and counts each
// block per sequence as small dense products, with densemul.AddMul:
//
//   - scores: the block's weights W (D x L, gathered from the active state
//     weights, zero for the inactive ones, setWeights) give every position
//     x_t W, added to its unary scores (score);
//   - counts: after forward-backward, G += X^T mu per shard (X the
//     sequence's T x D rows, mu its node marginals, weighted like every
//     other count; blockState.count), reduced in shard order (reduce) and
//     copied into the expected counts of the active features and, in
//     Residuals, of any feature asked for (every label of every dimension
//     is counted, so nothing of the sparse scatter is needed);
//   - observed counts: x_t added at the gold label, in position order (the
//     sums of the sparse encoding, bit for bit).
//
// Summation orders differ from the sparse path's (per shard, then in shard
// order; fused multiply-adds), so the sums agree to rounding, not bit for
// bit; they do not depend on the number of workers.

// blockState is the objective's part of the dense blocks of its corpus c
// over L labels.
type blockState struct {
	c *sparse.Corpus
	L int
	w [][]float64 // per block, the D x L weights of the evaluation
	g [][]float64 // per block, the D x L expected counts of the last evaluation
}

// shardBlocks is a shard's part of the dense blocks.
type shardBlocks struct {
	g  [][]float64 // per block, D x L expected counts of the shard's sequences
	xt []float64   // D x countChunk scratch: positions' rows of one block, transposed
}

// newBlocks returns the block buffers for corpus c with L labels (nil
// without blocks) and sets up each shard's.
func newBlocks(c *sparse.Corpus, L int, shard []shardState) *blockState {
	if !c.HasDense() {
		return nil
	}
	b := &blockState{c: c, L: L}
	for k := range c.Dense {
		D := c.Dense[k].D
		b.w = append(b.w, make([]float64, D*L))
		b.g = append(b.g, make([]float64, D*L))
		for s := range shard {
			sb := &shard[s].blk
			sb.g = append(sb.g, make([]float64, D*L))
			sb.xt = slices.Grow(sb.xt[:0], D*countChunk)
		}
	}
	return b
}

// setWeights gathers the blocks' weights from the active state weights
// xState of the feature set fs (in reference order): row d of block k
// holds the weights of attribute Attrs[d], zero for inactive features and
// for a dimension without attribute.
func (bs *blockState) setWeights(fs *Features, xState []float64) {
	L := bs.L
	for k := range bs.c.Dense {
		b, w := &bs.c.Dense[k], bs.w[k]
		clear(w)
		for d, a := range b.Attrs {
			if a < 0 {
				continue
			}
			for r := fs.refPtr[a]; r < fs.refPtr[a+1]; r++ {
				w[d*L+int(fs.refLab[r])] = xState[r]
			}
		}
	}
}

// score adds the blocks' scores x_t W of the sequence at
// [start, start+T) to its unary scores (T x L).
func (bs *blockState) score(unary []float64, start, T int) {
	L := bs.L
	for k := range bs.c.Dense {
		b, w := &bs.c.Dense[k], bs.w[k]
		for t := range T {
			if x := b.Row(start + t); x != nil {
				densemul.AddMul(unary[t*L:t*L+L], x, w, L)
			}
		}
	}
}

// countChunk is the number of positions whose block rows blockState.count
// transposes at once (bounding its scratch to D x countChunk per shard).
const countChunk = 16

// count adds X^T node, the blocks' expected counts of the sequence
// at [start, start+T) (node its T x L marginals, as weighted for every
// other count), into the shard's buffers, countChunk positions at a time.
func (bs *blockState) count(sb *shardBlocks, node []float64, start, T int) {
	L := bs.L
	for k := range bs.c.Dense {
		b, g := &bs.c.Dense[k], sb.g[k]
		D := b.D
		for t0 := 0; t0 < T; t0 += countChunk {
			n := min(countChunk, T-t0)
			xt := sb.xt[:D*n]
			for t := range n {
				x := b.Row(start + t0 + t)
				for d := range D {
					v := 0.0
					if x != nil {
						v = x[d]
					}
					xt[d*n+t] = v
				}
			}
			for d, a := range b.Attrs {
				if a >= 0 {
					densemul.AddMul(g[d*L:d*L+L], xt[d*n:d*n+n], node[t0*L:], L)
				}
			}
		}
	}
}

// reduce sums the shards' block counts in shard order into bs.g.
func (bs *blockState) reduce(shard []shardState) {
	for k, g := range bs.g {
		clear(g)
		for s := range shard {
			sg := shard[s].blk.g[k]
			for j, v := range sg {
				g[j] += v
			}
		}
	}
}

// expectations adds the blocks' expected counts to exp, those of the
// active state features of fs (reference order); the other passes left
// the blocks' attributes at the counts of their Unary entries (none, as a
// rule).
func (bs *blockState) expectations(fs *Features, exp []float64) {
	L := bs.L
	for k := range bs.c.Dense {
		g := bs.g[k]
		for d, a := range bs.c.Dense[k].Attrs {
			if a < 0 {
				continue
			}
			for r := fs.refPtr[a]; r < fs.refPtr[a+1]; r++ {
				exp[r] += g[d*L+int(fs.refLab[r])]
			}
		}
	}
}

// residuals adds the blocks' expected counts to dst, the expected
// counts of the features idx (attribute a's are idx[ptr[a]:ptr[a+1]]),
// except for the attributes counted (whose counts dst took from the
// evaluation's, blocks included).
func (bs *blockState) residuals(dst []float64, idx, ptr []int32, counted []bool) {
	L := int32(bs.L)
	for k := range bs.c.Dense {
		g := bs.g[k]
		for d, a := range bs.c.Dense[k].Attrs {
			if a < 0 || (counted != nil && counted[a]) {
				continue
			}
			for q := ptr[a]; q < ptr[a+1]; q++ {
				dst[q] += g[int32(d)*L+idx[q]-a*L]
			}
		}
	}
}

// blockObserved adds the blocks' observed counts to obs: x_t at the gold
// label of every position, in position order, scaled by the position's
// weight (pw nil: unit).
func blockObserved(obs *counts, m *chain.Model, c *sparse.Corpus, pw []float64) {
	L := m.NumLabels()
	type entry struct {
		j int32
		v float64
	}
	var add []entry
	for k := range c.Dense {
		b := &c.Dense[k]
		sum := make([]float64, b.D*L)
		seen := make([]bool, b.D*L)
		for p := range c.Positions() {
			x := b.Row(p)
			y := int(c.Labels[p])
			for d, v := range x {
				if v == 0 || b.Attrs[d] < 0 {
					continue
				}
				if pw != nil {
					v *= pw[p]
				}
				sum[d*L+y] += v
				seen[d*L+y] = true
			}
		}
		for d, a := range b.Attrs {
			for y := range L {
				if seen[d*L+y] {
					add = append(add, entry{a*int32(L) + int32(y), sum[d*L+y]})
				}
			}
		}
	}
	if obs.dense != nil {
		for _, e := range add {
			obs.dense[e.j] += e.v
		}
		return
	}
	slices.SortStableFunc(add, func(a, b entry) int { return int(a.j - b.j) })
	idx, val := make([]int32, 0, len(obs.stIdx)+len(add)), make([]float64, 0, len(obs.stIdx)+len(add))
	i := 0
	for _, e := range add {
		for i < len(obs.stIdx) && obs.stIdx[i] < e.j {
			idx, val = append(idx, obs.stIdx[i]), append(val, obs.stVal[i])
			i++
		}
		switch {
		case i < len(obs.stIdx) && obs.stIdx[i] == e.j:
			idx, val = append(idx, e.j), append(val, obs.stVal[i]+e.v)
			i++
		case len(idx) > 0 && idx[len(idx)-1] == e.j:
			val[len(val)-1] += e.v
		default:
			idx, val = append(idx, e.j), append(val, e.v)
		}
	}
	obs.stIdx, obs.stVal = append(idx, obs.stIdx[i:]...), append(val, obs.stVal[i:]...)
}
