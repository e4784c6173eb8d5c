package chain

import (
	"fmt"
	"math"

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

// NewCompactModel returns the model Compact would return for the model of
// NewModel(labels, enc's dimensions, transitions, enc) whose non-zero
// weights are val[k] at the full indices idx[k] (increasing), without ever
// allocating that model's full-size weight vector: only the attributes with
// a non-zero weight are kept, renumbered in their old order (8 B x kept
// attributes x labels instead of 8 B x attributes x labels). It returns an
// error when idx is not increasing within the layout or the lengths
// differ.
func NewCompactModel(labels []string, transitions bool, enc *features.Encoder, idx []int32, val []float64) (*Model, error) {
	cm, err := newCompactMap(labels, transitions, enc, idx, val)
	if err != nil {
		return nil, err
	}
	c, err := NewModel(cm.lay.Labels, cm.lay.Layout.NumUnary, cm.lay.Layout.NumPair, transitions, cm.lay.Encoder)
	if err != nil {
		return nil, err
	}
	cm.each(func(j int, v float64) { c.W[j] = v })
	return c, nil
}

// MarshalCompact returns the model file bytes of NewCompactModel(labels,
// transitions, enc, idx, val) (the same bytes as its MarshalBinary)
// without the compact model's weight vector either: an online trainer's
// sparse result is saved in 12 B per non-zero weight beyond the
// dictionaries.
func MarshalCompact(labels []string, transitions bool, enc *features.Encoder, idx []int32, val []float64) ([]byte, error) {
	cm, err := newCompactMap(labels, transitions, enc, idx, val)
	if err != nil {
		return nil, err
	}
	nz := 0
	for _, v := range val {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("chain: refusing to save model: weight %v", v)
		}
		if v != 0 {
			nz++
		}
	}
	return cm.lay.encodeWith(cm.lay.writeVersion(), nz, cm.each)
}

// compactMap is the layout of a compact model (lay: labels, dimensions and
// the restricted encoder; no weights) and the map of the full layout's
// non-zero weights onto it.
type compactMap struct {
	lay        *Model
	full       sparse.Layout
	umap, pmap []int32 // old attribute -> new (nil: every attribute kept)
	idx        []int32
	val        []float64
}

// newCompactMap checks idx and val against the layout of enc and finds
// the attributes to keep (those with a non-zero weight).
func newCompactMap(labels []string, transitions bool, enc *features.Encoder, idx []int32, val []float64) (*compactMap, error) {
	full := &Model{Labels: labels, Encoder: enc,
		Layout: sparse.Layout{NumUnary: enc.Unary().Len(), L: len(labels), NumPair: enc.Pair().Len(), Transitions: transitions}}
	d, err := full.dimension()
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
	L, LL, su, po := full.Layout.L, full.Layout.L*full.Layout.L, full.Layout.StateLen(), full.Layout.PairOffset()
	liveU, liveP := sparse.NewBitset(full.Layout.NumUnary), sparse.NewBitset(full.Layout.NumPair)
	for k, j := range idx {
		switch {
		case val[k] == 0:
		case int(j) < su:
			liveU.Set(int(j) / L)
		case int(j) >= po:
			liveP.Set((int(j) - po) / LL)
		}
	}
	cm := &compactMap{full: full.Layout, idx: idx, val: val}
	r := enc
	if liveU.Count() < full.Layout.NumUnary || liveP.Count() < full.Layout.NumPair {
		r, cm.umap, cm.pmap = enc.Restrict(func(a int32) bool { return liveU.Has(int(a)) }, func(a int32) bool { return liveP.Has(int(a)) })
		labels = append([]string(nil), labels...)
	}
	cm.lay = &Model{Labels: labels, Encoder: r,
		Layout: sparse.Layout{NumUnary: r.Unary().Len(), L: L, NumPair: r.Pair().Len(), Transitions: transitions}}
	return cm, nil
}

// each calls add with every non-zero weight at its index in the compact
// layout, in increasing order (the maps keep the attributes' order).
func (cm *compactMap) each(add func(j int, v float64)) {
	L, LL := cm.full.L, cm.full.L*cm.full.L
	su, to, po := cm.full.StateLen(), cm.full.TransOffset(), cm.full.PairOffset()
	nto, npo := cm.lay.Layout.TransOffset(), cm.lay.Layout.PairOffset()
	for k, j32 := range cm.idx {
		switch v, j := cm.val[k], int(j32); {
		case v == 0:
		case j < su && cm.umap != nil:
			add(int(cm.umap[j/L])*L+j%L, v)
		case j < su:
			add(j, v)
		case j < po:
			add(nto+j-to, v)
		case cm.pmap != nil:
			add(npo+int(cm.pmap[(j-po)/LL])*LL+(j-po)%LL, v)
		default:
			add(npo+j-po, v)
		}
	}
}
