package chain

import (
	"fmt"

	"github.com/sparsetag/sparsetag/features"
)

// WithPrior returns the layout on which m's training data learns with the
// old model as a prior (train.Options.Prior), and the prior's weights w0
// in that layout. The layout is m's with the labels and the attributes
// that only old has appended (m's ids unchanged, so a corpus encoded for m
// fits it): the new model keeps what the old one knew about them, as a
// screened v_j = 0 leaves w_j = w0_j. Labels and attributes absent from
// old start at zero. Both models need the same kind of encoder, and they
// must share a state attribute (as CheckWeightsFrom); m's weights are not
// used.
func (m *Model) WithPrior(old *Model) (*Model, []float64, error) {
	if (m.Encoder == nil) != (old.Encoder == nil) {
		return nil, nil, fmt.Errorf("chain: prior: one model has an encoder and the other not")
	}
	if m.Layout.Transitions != old.Layout.Transitions {
		return nil, nil, fmt.Errorf("chain: prior: the old model has transitions %v, the new one %v", old.Layout.Transitions, m.Layout.Transitions)
	}
	labels := append(append([]string(nil), m.Labels...), labelDiff(old.Labels, m.Labels)...)
	enc, numUnary, numPair := m.Encoder, m.Layout.NumUnary, m.Layout.NumPair
	if m.Encoder != nil {
		e, ok := m.Encoder, old.Encoder
		if e.Kind() != ok.Kind() {
			return nil, nil, fmt.Errorf("chain: prior: the new model reads %v input, the old model %v input: they share no feature", e.Kind(), ok.Kind())
		}
		unary := union(e.Unary(), ok.Unary())
		pair := union(e.Pair(), ok.Pair())
		src := ""
		if t := e.Template(); t != nil {
			src = t.Source()
		}
		var err error
		if enc, err = features.NewEncoderFrom(e.Kind(), src, e.PixelOptions(), unary, pair); err != nil {
			return nil, nil, fmt.Errorf("chain: prior: %w", err)
		}
		numUnary, numPair = len(unary), len(pair)
		shared := false
		for a := 0; a < m.Layout.NumUnary && !shared; a++ {
			_, shared = ok.Unary().ID(e.Unary().Name(int32(a)))
		}
		if !shared && m.Layout.NumUnary > 0 {
			return nil, nil, fmt.Errorf("chain: prior: the models share no attribute (new: %d, old: %d): another feature template?", m.Layout.NumUnary, old.Layout.NumUnary)
		}
	} else if old.Layout.NumUnary != m.Layout.NumUnary || old.Layout.NumPair != m.Layout.NumPair {
		return nil, nil, fmt.Errorf("chain: prior: models without encoders need the same attribute counts (new %d+%d, old %d+%d)",
			m.Layout.NumUnary, m.Layout.NumPair, old.Layout.NumUnary, old.Layout.NumPair)
	}
	out, err := NewModel(labels, numUnary, numPair, m.Layout.Transitions, enc)
	if err != nil {
		return nil, nil, err
	}
	var w0 []float64
	if enc == nil {
		w0 = out.initSameIDs(old)
	} else {
		w0 = out.WeightsFrom(old)
	}
	return out, w0, nil
}

// union returns the names of a followed by those only b has.
func union(a, b *features.Dictionary) []string {
	names := a.Names()
	for _, s := range b.Names() {
		if _, ok := a.ID(s); !ok {
			names = append(names, s)
		}
	}
	return names
}

// initSameIDs is WeightsFrom for models without encoders: attributes match by
// id, labels by name.
func (m *Model) initSameIDs(old *Model) []float64 {
	w := make([]float64, len(m.W))
	L := m.NumLabels()
	lab := make([]int, L)
	for y, name := range m.Labels {
		lab[y] = old.LabelID(name)
	}
	for y := range L {
		if lab[y] < 0 {
			continue
		}
		for a := 0; a < m.Layout.NumUnary; a++ {
			w[m.Layout.StateIndex(a, y)] = old.W[old.Layout.StateIndex(a, lab[y])]
		}
		for q := range L {
			if lab[q] < 0 {
				continue
			}
			if m.Layout.Transitions {
				w[m.Layout.TransIndex(y, q)] = old.W[old.Layout.TransIndex(lab[y], lab[q])]
			}
			for a := 0; a < m.Layout.NumPair; a++ {
				w[m.Layout.PairIndex(a, y, q)] = old.W[old.Layout.PairIndex(a, lab[y], lab[q])]
			}
		}
	}
	return w
}
