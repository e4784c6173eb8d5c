package sparse

import (
	"fmt"
	"slices"
)

// Dense is a dense block of unary attributes: D attributes whose values at
// a position are one row of a shared table (a word's vector), stored as one
// row index per position instead of D entries per row of Unary. A corpus
// with blocks has, at position p, the attributes of Unary.Row(p) and, for
// every block b, the attribute b.Attrs[d] with value b.Table[b.Word[p]*D+d]
// for each dimension d whose value is not zero (ExpandRow writes them as
// one sorted row).
type Dense struct {
	D     int
	Table []float64 // rows x D, row-major; shared, never modified
	Attrs []int32   // attribute id of dimension d, -1 when it has none (len D)
	Word  []int32   // row of Table at every position, -1 for the zero vector
}

// Row returns the values of the block at position p, nil for the zero
// vector. The slice aliases the table.
func (b *Dense) Row(p int) []float64 {
	w := b.Word[p]
	if w < 0 {
		return nil
	}
	return b.Table[int(w)*b.D : int(w+1)*b.D : int(w+1)*b.D]
}

// Rows returns the number of rows of the table.
func (b *Dense) Rows() int {
	if b.D == 0 {
		return 0
	}
	return len(b.Table) / b.D
}

// validate checks the block against a corpus of npos positions and numUnary
// unary attributes.
func (b *Dense) validate(npos, numUnary int) error {
	if b.D <= 0 || len(b.Attrs) != b.D || len(b.Table)%b.D != 0 {
		return fmt.Errorf("sparse: dense block with D = %d, %d attribute ids, a table of %d values", b.D, len(b.Attrs), len(b.Table))
	}
	if len(b.Word) != npos {
		return fmt.Errorf("sparse: dense block has %d positions, the corpus %d", len(b.Word), npos)
	}
	for d, a := range b.Attrs {
		if a < -1 || int(a) >= numUnary {
			return fmt.Errorf("sparse: dense block dimension %d has attribute %d, want [-1,%d)", d, a, numUnary)
		}
	}
	rows := int32(b.Rows())
	for p, w := range b.Word {
		if w < -1 || w >= rows {
			return fmt.Errorf("sparse: dense block position %d has row %d, want [-1,%d)", p, w, rows)
		}
	}
	return nil
}

// HasDense reports whether the corpus has dense blocks.
func (c *Corpus) HasDense() bool { return len(c.Dense) > 0 }

// ExpandRow returns the unary attributes of position p with the entries of
// the dense blocks merged in, as one row sorted by attribute id (values
// always given; equal ids are kept apart, in the order row, then blocks in
// order): the row the sparse encoding stores. The slices are buf's
// storage, valid until its next use. Each block's dimensions are taken in
// the order of their ids (buf keeps that order per block), so a row costs
// a linear merge per block.
func (c *Corpus) ExpandRow(p int, buf *RowBuffer) ([]int32, []float64) {
	rc, rv := c.Unary.Row(p)
	cols, vals := append(buf.Cols[:0], rc...), buf.Vals[:0]
	if rv != nil {
		vals = append(vals, rv...)
	} else {
		for range rc {
			vals = append(vals, 1)
		}
	}
	if len(buf.order) != len(c.Dense) {
		buf.order = make([][]int32, len(c.Dense))
		for k := range c.Dense {
			buf.order[k] = c.Dense[k].order()
		}
	}
	for k := range c.Dense {
		b := &c.Dense[k]
		x := b.Row(p)
		if x == nil {
			continue
		}
		bc, bv := buf.tmpC[:0], buf.tmpV[:0]
		for _, d := range buf.order[k] {
			if x[d] != 0 {
				bc, bv = append(bc, b.Attrs[d]), append(bv, x[d])
			}
		}
		buf.tmpC, buf.tmpV = bc, bv
		cols, vals, buf.mC, buf.mV = merge(buf.mC[:0], buf.mV[:0], cols, vals, bc, bv)
	}
	buf.Cols, buf.Vals = cols, vals
	return cols, vals
}

// merge appends to dc, dv the entries of the sorted rows (ac, av) and
// (bc, bv) in id order, a's first for equal ids, and returns them with the
// storage of a for reuse.
func merge(dc []int32, dv []float64, ac []int32, av []float64, bc []int32, bv []float64) ([]int32, []float64, []int32, []float64) {
	i, j := 0, 0
	for i < len(ac) || j < len(bc) {
		if j == len(bc) || (i < len(ac) && ac[i] <= bc[j]) {
			dc, dv = append(dc, ac[i]), append(dv, av[i])
			i++
		} else {
			dc, dv = append(dc, bc[j]), append(dv, bv[j])
			j++
		}
	}
	return dc, dv, ac[:0], av[:0]
}

// order returns the dimensions of b that have an attribute, by
// increasing attribute id.
func (b *Dense) order() []int32 {
	var dims []int32
	for d, a := range b.Attrs {
		if a >= 0 {
			dims = append(dims, int32(d))
		}
	}
	slices.SortStableFunc(dims, func(x, y int32) int { return int(b.Attrs[x] - b.Attrs[y]) })
	return dims
}

// AppendExpanded appends sequence i of src to c with the dense blocks of
// src expanded into Unary (ExpandRow): a sparse corpus of that sequence
// alone when c was Reset, for a consumer that reads rows only. c must have
// no dense blocks; NumUnary and NumPair are copied from src. buf holds two
// scratch slices reused across calls.
func (c *Corpus) AppendExpanded(src *Corpus, i int, buf *RowBuffer) {
	if len(c.SeqPtr) == 0 {
		c.SeqPtr = append(c.SeqPtr, 0)
	}
	start, T := src.Span(i)
	for p := start; p < start+T; p++ {
		cols, vals := src.ExpandRow(p, buf)
		c.Unary.AppendRow(cols, vals)
		if src.Pair.Rows() > 0 {
			pc, pv := src.Pair.Row(p)
			c.Pair.AppendRow(pc, pv)
		}
	}
	if src.Labels != nil {
		c.Labels = append(c.Labels, src.Labels[start:start+T]...)
	}
	c.SeqPtr = append(c.SeqPtr, c.SeqPtr[len(c.SeqPtr)-1]+int32(T))
	c.NumUnary, c.NumPair = src.NumUnary, src.NumPair
}

// RowBuffer is scratch storage for ExpandRow and AppendExpanded, for one
// corpus (it keeps the order of the corpus's block dimensions). The zero
// value is ready to use; a RowBuffer is not safe for concurrent use.
type RowBuffer struct {
	Cols, tmpC, mC []int32
	Vals, tmpV, mV []float64
	order          [][]int32
}

// Expanded returns the corpus with its dense blocks expanded into Unary:
// the corpus the sparse encoding gives, for every position at once. It
// costs the memory the blocks save; consumers that can should use
// ExpandRow or AppendExpanded per sequence instead. A corpus without
// blocks is returned as it is.
func (c *Corpus) Expanded() *Corpus {
	if !c.HasDense() {
		return c
	}
	x := &Corpus{}
	var buf RowBuffer
	for i := range c.Len() {
		x.AppendExpanded(c, i, &buf)
	}
	x.NumUnary, x.NumPair = c.NumUnary, c.NumPair
	if c.Len() == 0 {
		x.SeqPtr = slices.Clone(c.SeqPtr)
	}
	return x
}
