package chain

import (
	"github.com/sparsetag/sparsetag/inference"
	"github.com/sparsetag/sparsetag/internal/lattice"
	"github.com/sparsetag/sparsetag/sparse"
)

// stateView is a read-only view of the non-zero state weights of a model,
// by attribute (compressed sparse rows): the labels and weights of
// attribute a are lab[off[a]:off[a+1]] and val[off[a]:off[a+1]], in label
// order. A Tagger built by NewTagger derives it from Model.W and scores
// positions from it, touching only non-zero weights; the Model stays the
// one owner of the weights (which is why a Model must not change under its
// Tagger). A tag-only Tagger (ReadTagger) has only the view, read from the
// model file.
//
// Scores are bit-identical to the dense ones: for every label the same
// non-zero terms are added in the same attribute order, and adding the
// skipped zeros changes nothing.
type stateView struct {
	off []int32
	lab []uint16
	val []float64
}

// maxViewDensity is the largest fraction of non-zero state weights for
// which a Tagger uses the view: above it, the dense rows are as small and
// their contiguous loops faster.
const maxViewDensity = 0.25

// newStateView returns the view of m's state weights, or nil when dense
// scoring is the better choice (dense weights, or more labels than uint16).
func newStateView(m *Model) *stateView {
	L, U := len(m.Labels), m.Layout.NumUnary
	if L == 0 || L > 1<<16 || U == 0 {
		return nil
	}
	state := m.W[:m.Layout.StateLen()]
	nnz := 0
	for _, w := range state {
		if w != 0 {
			nnz++
		}
	}
	if float64(nnz) > maxViewDensity*float64(len(state)) {
		return nil
	}
	v := &stateView{off: make([]int32, U+1), lab: make([]uint16, 0, nnz), val: make([]float64, 0, nnz)}
	for a := range U {
		for y, w := range state[a*L : a*L+L] {
			if w != 0 {
				v.lab, v.val = append(v.lab, uint16(y)), append(v.val, w)
			}
		}
		v.off[a+1] = int32(len(v.lab))
	}
	return v
}

// score is lattice.Score from the view: the lattice of sequence i of c.
func (v *stateView) score(m *Model, s *lattice.Scratch, c *sparse.Corpus, i int) *inference.Lattice {
	unary := v.unary(s, len(m.Labels), c, i)
	return lattice.FinishTail(s, m.Layout, m.W[m.Layout.StateLen():], c, i, unary)
}

// unary returns the state scores of sequence i of c over L labels (T×L,
// in s's unary buffer). Each product is rounded before it is added, as
// floats.AddScaled does, so that no platform fuses it into an FMA.
func (v *stateView) unary(s *lattice.Scratch, L int, c *sparse.Corpus, i int) []float64 {
	start, T := c.Span(i)
	unary := s.ZeroUnary(T * L)
	// Local copies of the view's slices: the stores into row would
	// otherwise make the compiler reload them for every attribute.
	off, lab, val := v.off, v.lab, v.val
	for t := range T {
		row := unary[t*L : t*L+L]
		cols, vals := c.Unary.Row(start + t)
		if vals == nil { // binary attributes, the usual case
			for _, a := range cols {
				lo, hi := off[a], off[a+1]
				for q := lo; q < hi; q++ {
					row[lab[q]] += val[q]
				}
			}
			continue
		}
		for k, a := range cols {
			x := vals[k]
			lo, hi := off[a], off[a+1]
			for q := lo; q < hi; q++ {
				row[lab[q]] += float64(x * val[q])
			}
		}
	}
	return unary
}
