package chain

import "fmt"

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
	if nu, np := m.Encoder.Unary().Len(), m.Encoder.Pair().Len(); nu != m.Layout.NumUnary || np != m.Layout.NumPair {
		return nil, fmt.Errorf("chain: model has %d unary and %d pair attributes, its encoder %d and %d", m.Layout.NumUnary, m.Layout.NumPair, nu, np)
	}
	if d, _ := m.dimension(); len(m.W) != d {
		return nil, fmt.Errorf("chain: model has %d weights, its layout %d", len(m.W), d)
	}
	L, LL := m.Layout.L, m.Layout.L*m.Layout.L
	liveU := func(a int32) bool { return !allZero(m.State[int(a)*L : int(a)*L+L]) }
	liveP := func(a int32) bool { return !allZero(m.PairW[int(a)*LL : int(a)*LL+LL]) }
	if kind, _ := m.firstDead(); kind == "" {
		return m, nil
	}
	enc, umap, pmap := m.Encoder.Restrict(liveU, liveP)
	c, err := NewModel(append([]string(nil), m.Labels...), enc.Unary().Len(), enc.Pair().Len(), m.Layout.Transitions, enc)
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
	L, LL := m.Layout.L, m.Layout.L*m.Layout.L
	for a := 0; a < m.Layout.NumUnary; a++ {
		if allZero(m.State[a*L : a*L+L]) {
			return "unary", a
		}
	}
	for a := 0; a < m.Layout.NumPair; a++ {
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
