package chain

import (
	"slices"

	"github.com/sparsetag/sparsetag/inference"
	"github.com/sparsetag/sparsetag/internal/lattice"
	"github.com/sparsetag/sparsetag/sparse"
)

// tagWeights are the weights of a tag-only Tagger (ReadTagger): only the
// non-zero weights of a model file, never the dense vector W. For L labels,
// U unary and P pair attributes and N non-zero weights it holds
//
//	state  the non-zero state weights by attribute (stateView): a label
//	       (2 bytes) and a weight (8 bytes) each, and U+1 offsets (4 bytes)
//	trans  the L×L label-bigram weights (8 bytes each), dense: the lattice
//	       reads them as a matrix
//	pair   the non-zero pair weights by attribute (lattice.PairView): an index in
//	       the L×L block (4 bytes) and a weight (8 bytes) each, and P+1
//	       offsets (4 bytes)
//
// that is at most 12·N + 4·(U+P+2) + 8·L² bytes when reserve sized the
// slices (see ReadTagger).
type tagWeights struct {
	layout sparse.Layout
	state  stateView
	trans  []float64 // L×L
	pair   lattice.PairView
	vals   []float64 // while reading: the state, then the pair weights
}

// addCSR appends key k of attribute a to the keys and offsets of a CSR
// view: keys must come in increasing (a, k) order. Attributes skipped
// since the last one get empty rows.
func addCSR[K uint16 | uint32](off []int32, keys []K, a int, k K) ([]int32, []K) {
	for len(off) <= a {
		off = append(off, int32(len(keys)))
	}
	return off, append(keys, k)
}

// closeCSR completes the offsets of a CSR view of n attributes.
func closeCSR(off []int32, n, nnz int) []int32 {
	off = slices.Grow(off, n+1-len(off))
	for len(off) <= n {
		off = append(off, int32(nnz))
	}
	return off
}

// newTagWeights returns empty weights for the layout, to be filled by add
// in increasing index order and completed by finish.
func newTagWeights(lay sparse.Layout) *tagWeights {
	return &tagWeights{layout: lay, state: stateView{off: []int32{0}}, trans: make([]float64, lay.L*lay.L), pair: lattice.PairView{Off: []int32{0}}}
}

// reserve makes room for cnt weights at once, when the file is known to
// hold them: it spares the copies of growing slices.
func (w *tagWeights) reserve(cnt int) {
	lay := w.layout
	w.vals = make([]float64, 0, cnt)
	w.state.lab = make([]uint16, 0, min(cnt, lay.StateLen()))
	w.state.off = append(make([]int32, 0, lay.NumUnary+1), 0)
	w.pair.Off = append(make([]int32, 0, lay.NumPair+1), 0)
}

// add records weight v at index j of the layout; indices must increase
// from one call to the next.
func (w *tagWeights) add(j int, v float64) {
	L, trans, pair := w.layout.L, w.layout.TransOffset(), w.layout.PairOffset()
	switch {
	case j < trans:
		s := &w.state
		s.off, s.lab = addCSR(s.off, s.lab, j/L, uint16(j%L))
	case j < pair:
		w.trans[j-trans] = v
		return
	default:
		k, LL := j-pair, L*L
		p := &w.pair
		p.Off, p.Idx = addCSR(p.Off, p.Idx, k/LL, uint32(k%LL))
	}
	w.vals = append(w.vals, v)
}

// finish completes the views once every weight was added: the state
// weights come first in vals, then the pair weights.
func (w *tagWeights) finish() {
	// Labels and pair indices to their exact size: reserve sized the labels
	// for every weight and the indices grew by append, which would break
	// the documented bound (vals may keep room for the transitions, which
	// the bound's 12 bytes per weight cover).
	w.state.lab, w.pair.Idx = exact(w.state.lab), exact(w.pair.Idx)
	ns := len(w.state.lab)
	w.state.val, w.pair.Val = w.vals[:ns:ns], w.vals[ns:]
	w.vals = nil
	w.state.off = closeCSR(w.state.off, w.layout.NumUnary, ns)
	w.pair.Off = closeCSR(w.pair.Off, w.layout.NumPair, len(w.pair.Val))
}

// exact returns s with no spare capacity (a copy when it has some;
// slices.Clone would round the capacity up to an allocation size class).
func exact[T any](s []T) []T {
	if cap(s) == len(s) {
		return s
	}
	out := make([]T, len(s))
	copy(out, s)
	return out
}

// firstDead is Model.firstDead on the sparse weights: the kind and id of
// the first attribute without a non-zero weight, or "".
func (w *tagWeights) firstDead() (string, int) {
	for a := range w.layout.NumUnary {
		if w.state.off[a] == w.state.off[a+1] {
			return "unary", a
		}
	}
	for a := range w.layout.NumPair {
		if w.pair.Off[a] == w.pair.Off[a+1] {
			return "pair", a
		}
	}
	return "", -1
}

// nonZero returns the number of non-zero weights.
func (w *tagWeights) nonZero() int {
	n := len(w.state.val) + len(w.pair.Val)
	for _, v := range w.trans {
		if v != 0 {
			n++
		}
	}
	return n
}

// bytes returns the memory held by the weights (capacities included).
func (w *tagWeights) bytes() int64 {
	s, p := &w.state, &w.pair
	return int64(4*(cap(s.off)+cap(p.Off)) + 2*cap(s.lab) + 4*cap(p.Idx) + 8*(cap(s.val)+cap(p.Val)+cap(w.trans)))
}

// score returns the lattice of sequence i of c in s, as lattice.Score does
// from the dense weights, bit for bit.
func (w *tagWeights) score(s *lattice.Scratch, c *sparse.Corpus, i int) *inference.Lattice {
	unary := w.state.unary(s, w.layout.L, c, i)
	var trans []float64
	if w.layout.Transitions {
		trans = w.trans
	}
	return lattice.Finish(s, w.layout.L, trans, lattice.Pairs{View: &w.pair}, w.layout.NumPair, c, i, unary)
}

// row writes the L state weights of unary attribute a into dst (zeros
// included).
func (v *stateView) row(dst []float64, a int) {
	clear(dst)
	lo, hi := v.off[a], v.off[a+1]
	for q := lo; q < hi; q++ {
		dst[v.lab[q]] = v.val[q]
	}
}
