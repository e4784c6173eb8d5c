package lattice

import (
	"slices"

	"gonum.org/v1/gonum/floats"

	"github.com/sparsetag/sparsetag/inference"
	"github.com/sparsetag/sparsetag/sparse"
)

// Scratch holds the score lattice of one sequence and its buffers, reused
// from one sequence to the next: the caller owns one per goroutine.
type Scratch struct {
	lat     inference.Lattice
	unary   []float64
	transAt []float64
}

// ZeroUnary returns the unary buffer of s resized to n and zeroed.
func (s *Scratch) ZeroUnary(n int) []float64 {
	if cap(s.unary) < n {
		s.unary = make([]float64, n)
	}
	s.unary = s.unary[:n]
	clear(s.unary)
	return s.unary
}

// Score fills s with the scores of sequence i of c under the weights w
// (laid out as lay says) and returns its lattice, which aliases s.
func Score(s *Scratch, lay sparse.Layout, w []float64, c *sparse.Corpus, i int) *inference.Lattice {
	L := lay.L
	start, T := c.Span(i)
	unary := s.ZeroUnary(T * L)
	state := w[:lay.StateLen()]
	for t := 0; t < T; t++ {
		row := unary[t*L : t*L+L]
		cols, vals := c.Unary.Row(start + t)
		if vals == nil {
			for _, a := range cols {
				floats.Add(row, state[int(a)*L:int(a)*L+L])
			}
		} else {
			for k, a := range cols {
				floats.AddScaled(row, vals[k], state[int(a)*L:int(a)*L+L])
			}
		}
		for k := range c.Dense {
			addBlock(row, &c.Dense[k], start+t, state, L)
		}
	}
	return FinishTail(s, lay, w[lay.StateLen():], c, i, unary)
}

// addBlock adds to row the scores of the dense block b at position p: its
// non-zero values times the state weights of their attributes, in the
// order of the dimensions (the objective's own scoring of blocks is
// faster; this keeps every caller of Score right on a corpus with blocks).
func addBlock(row []float64, b *sparse.Dense, p int, state []float64, L int) {
	for d, x := range b.Row(p) {
		if a := b.Attrs[d]; x != 0 && a >= 0 {
			floats.AddScaled(row, x, state[int(a)*L:int(a)*L+L])
		}
	}
}

// FinishTail sets the lattice of sequence i of c to the given unary scores
// (T×L, row-major, typically s.ZeroUnary plus the caller's state scores)
// plus the transition and pair scores of tail = w[lay.StateLen():]
// (transitions, then pairs): a caller that scores states from its own
// weights needs no full-size vector.
func FinishTail(s *Scratch, lay sparse.Layout, tail []float64, c *sparse.Corpus, i int, unary []float64) *inference.Lattice {
	L := lay.L
	var trans []float64
	if lay.Transitions {
		trans = tail[:L*L]
	}
	return Finish(s, L, trans, Pairs{Dense: tail[lay.PairOffset()-lay.StateLen():]}, lay.NumPair, c, i, unary)
}

// Finish is FinishTail over L labels, the label-bigram weights trans
// (nil: none) and the weights pw of numPair pair attributes.
func Finish(s *Scratch, L int, trans []float64, pw Pairs, numPair int, c *sparse.Corpus, i int, unary []float64) *inference.Lattice {
	start, T := c.Span(i)
	s.lat = inference.Lattice{T: T, L: L, Unary: unary, Trans: trans}
	if numPair == 0 || c.Pair.Rows() == 0 || T <= 1 {
		return &s.lat
	}
	LL := L * L
	if cap(s.transAt) < T*LL {
		s.transAt = make([]float64, T*LL)
	}
	ta := s.transAt[:T*LL]
	clear(ta)
	for t := 1; t < T; t++ {
		blk := ta[t*LL : t*LL+LL]
		cols, vals := c.Pair.Row(start + t)
		for k, a := range cols {
			v := 1.0
			if vals != nil {
				v = vals[k]
			}
			pw.addTo(blk, a, v)
		}
	}
	// All-zero pair scores (no pair attribute here, or only zero
	// weights) leave the lattice without TransAt: the same scores,
	// and the cheaper shared-transition forward-backward.
	if slices.ContainsFunc(ta[LL:], isNonZero) {
		s.lat.TransAt = ta
	}
	return &s.lat
}

func isNonZero(v float64) bool { return v != 0 }
