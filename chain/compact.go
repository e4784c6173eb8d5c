package chain

import (
	"fmt"

	"github.com/sparsetag/sparsetag/features"
	"github.com/sparsetag/sparsetag/sparse"
)

// Compact returns a model that scores every input exactly as m does but
// keeps only the attributes (unary and pair) with at least one non-zero
// weight, renumbered densely in their old order, as CRFsuite's
// crf1de_save_model does with its attribute map. The layout shrinks to
// U' unary and P' pair attributes; the labels and the label-bigram block are
// kept whole (the tagger must be able to name every label, even one that no
// attribute favours). WriteTo and SaveFile compact before writing, so a
// model file holds no attribute name that cannot change a score.
//
// Tagging is unchanged, bit for bit: a dropped attribute contributed zeros
// to every score, and at tag time the compacted encoder skips it as an
// unknown attribute (see features.Encoder.Restrict). Renumbering keeps the
// order of the attributes, so the scores are summed in the same order.
//
// A model without an encoder is returned as is: its attribute ids are the
// caller's (pre-encoded data) and must not change. Compact also returns m
// itself when every attribute is active; otherwise the result shares
// nothing with m. It returns an error when m's encoder does not match its
// layout.
func (m *Model) Compact() (*Model, error) {
	if m.Encoder == nil {
		return m, nil
	}
	if nu, np := m.Encoder.Unary().Len(), m.Encoder.Pair().Len(); nu != m.NumUnary || np != m.NumPair {
		return nil, fmt.Errorf("chain: model has %d unary and %d pair attributes, its encoder %d and %d", m.NumUnary, m.NumPair, nu, np)
	}
	if d, _ := m.dimension(); len(m.W) != d {
		return nil, fmt.Errorf("chain: model has %d weights, its layout %d", len(m.W), d)
	}
	L, LL := m.L, m.L*m.L
	liveU := func(a int32) bool { return !allZero(m.State[int(a)*L : int(a)*L+L]) }
	liveP := func(a int32) bool { return !allZero(m.PairW[int(a)*LL : int(a)*LL+LL]) }
	if kind, _ := m.firstDead(); kind == "" {
		return m, nil
	}
	enc, umap, pmap := m.Encoder.Restrict(liveU, liveP)
	c, err := NewModel(append([]string(nil), m.Labels...), enc.Unary().Len(), enc.Pair().Len(), m.Transitions, enc)
	if err != nil {
		return nil, err
	}
	for a, b := range umap {
		if b >= 0 {
			copy(c.State[int(b)*L:int(b)*L+L], m.State[a*L:a*L+L])
		}
	}
	copy(c.Trans, m.Trans)
	for a, b := range pmap {
		if b >= 0 {
			copy(c.PairW[int(b)*LL:int(b)*LL+LL], m.PairW[a*LL:a*LL+LL])
		}
	}
	return c, nil
}

// firstDead returns the kind ("unary" or "pair") and id of the first
// attribute of m without a non-zero weight, or "" when every attribute has
// one.
func (m *Model) firstDead() (string, int) {
	L, LL := m.L, m.L*m.L
	for a := 0; a < m.NumUnary; a++ {
		if allZero(m.State[a*L : a*L+L]) {
			return "unary", a
		}
	}
	for a := 0; a < m.NumPair; a++ {
		if allZero(m.PairW[a*LL : a*LL+LL]) {
			return "pair", a
		}
	}
	return "", -1
}

func allZero(w []float64) bool {
	for _, v := range w {
		if v != 0 {
			return false
		}
	}
	return true
}

// NewCompactModel returns the model Compact would return for the model of
// NewModel(labels, enc's dimensions, transitions, enc) whose non-zero
// weights are val[k] at the full indices idx[k] (increasing), without ever
// allocating that model's full-size weight vector: only the attributes with
// a non-zero weight are kept, renumbered in their old order (8 B x kept
// attributes x labels instead of 8 B x attributes x labels). An online
// trainer that returns its weights sparse is saved this way. It returns an
// error when idx is not increasing within the layout or the lengths
// differ.
func NewCompactModel(labels []string, transitions bool, enc *features.Encoder, idx []int32, val []float64) (*Model, error) {
	lay := &Model{Labels: labels, Encoder: enc,
		Layout: sparse.Layout{NumUnary: enc.Unary().Len(), L: len(labels), NumPair: enc.Pair().Len(), Transitions: transitions}}
	d, err := lay.dimension()
	if err != nil {
		return nil, err
	}
	if len(idx) != len(val) {
		return nil, fmt.Errorf("chain: NewCompactModel: %d indices, %d values", len(idx), len(val))
	}
	for k, j := range idx {
		if j < 0 || int(j) >= d || (k > 0 && j <= idx[k-1]) {
			return nil, fmt.Errorf("chain: NewCompactModel: index %d (%d) not increasing within [0,%d)", k, j, d)
		}
	}
	L, LL, su, po := lay.L, lay.L*lay.L, lay.StateLen(), lay.PairOffset()
	liveU, liveP := sparse.NewBitset(lay.NumUnary), sparse.NewBitset(lay.NumPair)
	for k, j := range idx {
		switch {
		case val[k] == 0:
		case int(j) < su:
			liveU.Set(int(j) / L)
		case int(j) >= po:
			liveP.Set((int(j) - po) / LL)
		}
	}
	r, umap, pmap := enc, []int32(nil), []int32(nil)
	if liveU.Count() < lay.NumUnary || liveP.Count() < lay.NumPair {
		r, umap, pmap = enc.Restrict(func(a int32) bool { return liveU.Has(int(a)) }, func(a int32) bool { return liveP.Has(int(a)) })
		labels = append([]string(nil), labels...)
	}
	c, err := NewModel(labels, r.Unary().Len(), r.Pair().Len(), transitions, r)
	if err != nil {
		return nil, err
	}
	to := lay.TransOffset()
	for k, j := range idx {
		switch v, j := val[k], int(j); {
		case v == 0:
		case j < su && umap != nil:
			c.State[int(umap[j/L])*L+j%L] = v
		case j < su:
			c.State[j] = v
		case j < po:
			c.Trans[j-to] = v
		case pmap != nil:
			c.PairW[int(pmap[(j-po)/LL])*LL+(j-po)%LL] = v
		default:
			c.PairW[j-po] = v
		}
	}
	return c, nil
}
