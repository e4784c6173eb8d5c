package sparse

import (
	"errors"
	"fmt"
	"slices"
)

// Matrix is a compressed sparse row matrix: one row per sequence position,
// one column per attribute. See the package documentation for the layout.
type Matrix struct {
	RowPtr []int32   // len rows+1, RowPtr[0] == 0, non-decreasing
	Col    []int32   // attribute ids, len RowPtr[rows]
	Val    []float64 // values parallel to Col, or nil when all values are 1
}

// Rows returns the number of rows.
func (m *Matrix) Rows() int {
	if len(m.RowPtr) == 0 {
		return 0
	}
	return len(m.RowPtr) - 1
}

// NNZ returns the number of stored entries.
func (m *Matrix) NNZ() int { return len(m.Col) }

// Row returns the attribute ids and values of row r. vals is nil when the
// matrix is binary. The slices alias the matrix and must not be modified.
func (m *Matrix) Row(r int) (cols []int32, vals []float64) {
	lo, hi := m.RowPtr[r], m.RowPtr[r+1]
	cols = m.Col[lo:hi:hi]
	if m.Val != nil {
		vals = m.Val[lo:hi:hi]
	}
	return cols, vals
}

// AppendRow appends one row. vals must be nil or as long as cols; a nil vals
// on a matrix that already stores values appends ones, and a non-nil vals on
// a binary matrix turns it into a valued one.
func (m *Matrix) AppendRow(cols []int32, vals []float64) {
	if len(m.RowPtr) == 0 {
		m.RowPtr = append(m.RowPtr, 0)
	}
	if vals != nil && len(vals) != len(cols) {
		panic("sparse: AppendRow: len(vals) != len(cols)")
	}
	if vals != nil && m.Val == nil {
		m.Val = make([]float64, len(m.Col), cap(m.Col))
		for i := range m.Val {
			m.Val[i] = 1
		}
	}
	m.Col = append(m.Col, cols...)
	if m.Val != nil {
		if vals != nil {
			m.Val = append(m.Val, vals...)
		} else {
			for range cols {
				m.Val = append(m.Val, 1)
			}
		}
	}
	m.RowPtr = append(m.RowPtr, int32(len(m.Col)))
}

// Grow makes room for rows more rows and nnz more entries, so that as
// many AppendRow calls of that size reallocate nothing (slices.Grow); a
// valued matrix grows its values too. The rows are unchanged.
func (m *Matrix) Grow(rows, nnz int) {
	if len(m.RowPtr) == 0 {
		rows++ // the leading 0
	}
	m.RowPtr = slices.Grow(m.RowPtr, rows)
	m.Col = slices.Grow(m.Col, nnz)
	if m.Val != nil {
		m.Val = slices.Grow(m.Val, nnz)
	}
}

// Validate checks the structural invariants: RowPtr starts at 0, never
// decreases and ends at len(Col); Val is nil or as long as Col; every column
// id lies in [0, cols).
func (m *Matrix) Validate(cols int) error {
	if len(m.RowPtr) == 0 {
		if len(m.Col) != 0 {
			return errors.New("sparse: matrix has entries but no rows")
		}
		return nil
	}
	if m.RowPtr[0] != 0 {
		return fmt.Errorf("sparse: RowPtr[0] = %d, want 0", m.RowPtr[0])
	}
	for r := 1; r < len(m.RowPtr); r++ {
		if m.RowPtr[r] < m.RowPtr[r-1] {
			return fmt.Errorf("sparse: RowPtr decreases at row %d", r-1)
		}
	}
	if int(m.RowPtr[len(m.RowPtr)-1]) != len(m.Col) {
		return fmt.Errorf("sparse: RowPtr ends at %d, but there are %d entries", m.RowPtr[len(m.RowPtr)-1], len(m.Col))
	}
	if m.Val != nil && len(m.Val) != len(m.Col) {
		return fmt.Errorf("sparse: %d values for %d entries", len(m.Val), len(m.Col))
	}
	for i, c := range m.Col {
		if c < 0 || int(c) >= cols {
			return fmt.Errorf("sparse: entry %d has column %d, want [0,%d)", i, c, cols)
		}
	}
	return nil
}

// Corpus is an encoded set of sequences. All sequences are concatenated:
// sequence i covers positions SeqPtr[i] to SeqPtr[i+1]-1.
//
// Unary holds, per position, the attributes that generate state features
// (attribute x label). Pair holds, per position, the attributes that generate
// observation-conditioned transition features (attribute x previous label x
// label); it has either no rows or as many rows as Unary. Labels holds the
// gold label of every position, or is nil for unlabeled data. Dense holds
// unary attributes stored as dense blocks (word vectors, see Dense), in
// addition to those of Unary; most corpora have none.
type Corpus struct {
	SeqPtr []int32 // len n+1
	Unary  Matrix
	Pair   Matrix
	Labels []int32
	Dense  []Dense

	NumUnary int // number of distinct unary attribute ids (columns of Unary)
	NumPair  int // number of distinct pair attribute ids (columns of Pair)
}

// Len returns the number of sequences.
func (c *Corpus) Len() int {
	if len(c.SeqPtr) == 0 {
		return 0
	}
	return len(c.SeqPtr) - 1
}

// Positions returns the total number of positions over all sequences.
func (c *Corpus) Positions() int {
	if len(c.SeqPtr) == 0 {
		return 0
	}
	return int(c.SeqPtr[len(c.SeqPtr)-1])
}

// Span returns the first position and the length of sequence i.
func (c *Corpus) Span(i int) (start, length int) {
	return int(c.SeqPtr[i]), int(c.SeqPtr[i+1] - c.SeqPtr[i])
}

// MaxLen returns the length of the longest sequence.
func (c *Corpus) MaxLen() int {
	best := 0
	for i := 0; i+1 < len(c.SeqPtr); i++ {
		if l := int(c.SeqPtr[i+1] - c.SeqPtr[i]); l > best {
			best = l
		}
	}
	return best
}

// Grow makes room for seqs more sequences of positions positions in all,
// with unary and pair more entries (pair rows only when pairRows: a corpus
// has a pair row at every position or none) and labels when labeled, so
// that appending them reallocates nothing. The corpus is unchanged.
func (c *Corpus) Grow(seqs, positions, unary, pair int, pairRows, labeled bool) {
	if len(c.SeqPtr) == 0 {
		seqs++ // the leading 0
	}
	c.SeqPtr = slices.Grow(c.SeqPtr, seqs)
	c.Unary.Grow(positions, unary)
	if pairRows {
		c.Pair.Grow(positions, pair)
	}
	if labeled {
		c.Labels = slices.Grow(c.Labels, positions)
	}
}

// AppendSequence appends one sequence. unary[t] (and pair[t], when pair is
// not nil) are the attribute ids of position t; uval and pval may be nil
// (binary) or parallel to them. labels may be nil for unlabeled data.
func (c *Corpus) AppendSequence(unary [][]int32, uval [][]float64, pair [][]int32, pval [][]float64, labels []int32) {
	if len(c.SeqPtr) == 0 {
		c.SeqPtr = append(c.SeqPtr, 0)
	}
	for t := range unary {
		var v []float64
		if uval != nil {
			v = uval[t]
		}
		c.Unary.AppendRow(unary[t], v)
		if pair != nil {
			var pv []float64
			if pval != nil {
				pv = pval[t]
			}
			c.Pair.AppendRow(pair[t], pv)
		}
	}
	c.Labels = append(c.Labels, labels...)
	c.SeqPtr = append(c.SeqPtr, c.SeqPtr[len(c.SeqPtr)-1]+int32(len(unary)))
}

// Validate checks that the corpus is consistent: sequence pointers, matrix
// shapes, attribute ids below NumUnary/NumPair and labels in [0, numLabels)
// (labels are not checked when numLabels <= 0).
func (c *Corpus) Validate(numLabels int) error {
	if len(c.SeqPtr) == 0 {
		return nil
	}
	if c.SeqPtr[0] != 0 {
		return fmt.Errorf("sparse: SeqPtr[0] = %d, want 0", c.SeqPtr[0])
	}
	for i := 1; i < len(c.SeqPtr); i++ {
		if c.SeqPtr[i] < c.SeqPtr[i-1] {
			return fmt.Errorf("sparse: SeqPtr decreases at sequence %d", i-1)
		}
	}
	npos := c.Positions()
	if c.Unary.Rows() != npos {
		return fmt.Errorf("sparse: %d unary rows for %d positions", c.Unary.Rows(), npos)
	}
	if err := c.Unary.Validate(c.NumUnary); err != nil {
		return fmt.Errorf("unary attributes: %w", err)
	}
	if c.Pair.Rows() != 0 && c.Pair.Rows() != npos {
		return fmt.Errorf("sparse: %d pair rows for %d positions", c.Pair.Rows(), npos)
	}
	if err := c.Pair.Validate(c.NumPair); err != nil {
		return fmt.Errorf("pair attributes: %w", err)
	}
	for k := range c.Dense {
		if err := c.Dense[k].validate(npos, c.NumUnary); err != nil {
			return fmt.Errorf("dense block %d: %w", k, err)
		}
	}
	if c.Labels != nil {
		if len(c.Labels) != npos {
			return fmt.Errorf("sparse: %d labels for %d positions", len(c.Labels), npos)
		}
		if numLabels > 0 {
			for i, y := range c.Labels {
				if y < 0 || int(y) >= numLabels {
					return fmt.Errorf("sparse: position %d has label %d, want [0,%d)", i, y, numLabels)
				}
			}
		}
	}
	return nil
}

// Reset empties the corpus but keeps the capacity of its slices, so that a
// corpus can be reused to encode one sequence after another without
// allocating.
func (c *Corpus) Reset() {
	c.SeqPtr = c.SeqPtr[:0]
	c.Unary.RowPtr = c.Unary.RowPtr[:0]
	c.Unary.Col = c.Unary.Col[:0]
	if c.Unary.Val != nil {
		c.Unary.Val = c.Unary.Val[:0]
	}
	c.Pair.RowPtr = c.Pair.RowPtr[:0]
	c.Pair.Col = c.Pair.Col[:0]
	if c.Pair.Val != nil {
		c.Pair.Val = c.Pair.Val[:0]
	}
	if c.Labels != nil {
		c.Labels = c.Labels[:0]
	}
	for k := range c.Dense {
		c.Dense[k].Word = c.Dense[k].Word[:0]
	}
}
