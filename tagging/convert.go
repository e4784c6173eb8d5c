package tagging

import (
	"errors"
	"fmt"
	"os"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/peer"
)

// ErrNotConvertible is returned by Convert for a peer model whose features
// this toolkit cannot express exactly.
var ErrNotConvertible = errors.New("model cannot be converted exactly")

// Convert returns a model of this toolkit that tags exactly as m does: the
// model itself for ours, and for a CRFsuite model its attributes (those
// with a non-zero weight, in the model's order), labels, state weights and
// transitions, with an attribute encoder that reads CRFsuite attribute
// files as crfsuite tag does. CRF++ and Wapiti models expand their own
// templates with the tools' conventions for positions outside the sequence
// and for their feature strings, which our template language does not
// reproduce exactly; they are refused with ErrNotConvertible (tag, eval,
// dump and explain read them directly).
func Convert(m Weighted) (*chain.Model, error) {
	if o, ok := m.(ourWeights); ok {
		return o.m, nil
	}
	if m.Format() != peer.FormatCRFsuite.String() {
		return nil, fmt.Errorf("%w: %s models expand their own templates, which this toolkit's templates do not reproduce exactly; tag, eval, dump and explain read them as they are", ErrNotConvertible, m.Format())
	}
	return convertCRFsuite(m)
}

// Converted describes the model that ConvertFile wrote.
type Converted struct {
	Model *chain.Model // the model written
	From  string       // what was converted: "this toolkit's", or the peer format (e.g. CRFsuite)
	Size  int64        // bytes written
}

// ConvertFile converts the model file in (LoadWeights, then Convert) and
// writes the result to out atomically (chain.Model.SaveFile): an existing
// file is replaced only by a complete, validated model.
func ConvertFile(in, out string) (*Converted, error) {
	w, err := LoadWeights(in)
	if err != nil {
		return nil, err
	}
	m, err := Convert(w)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", in, err)
	}
	if err := m.SaveFile(out); err != nil {
		return nil, err
	}
	st, err := os.Stat(out)
	if err != nil {
		return nil, err
	}
	from := w.Format()
	if from == FormatOurs {
		from = "this toolkit's"
	}
	return &Converted{Model: m, From: from, Size: st.Size()}, nil
}

func convertCRFsuite(pm Weighted) (*chain.Model, error) {
	labels := pm.Labels()
	type state struct {
		attr, label int
		value       float64
	}
	var (
		names  []string
		ids    = map[string]int{}
		states []state
		trans  []peer.Weight
	)
	err := pm.Weights(func(w peer.Weight) error {
		switch w.Kind {
		case peer.StateWeight:
			a, ok := ids[w.Feature]
			if !ok {
				a = len(names)
				ids[w.Feature] = a
				names = append(names, w.Feature)
			}
			states = append(states, state{a, w.Label, w.Value})
		case peer.TransWeight:
			trans = append(trans, w)
		default:
			return fmt.Errorf("%w: unexpected %s weight in a CRFsuite model", ErrNotConvertible, w.Kind)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	out, err := chain.NewAttributeModel(labels, names)
	if err != nil {
		return nil, err
	}
	L := len(labels)
	for _, s := range states {
		out.W[s.attr*L+s.label] = s.value
	}
	for _, t := range trans {
		out.W[out.Layout.TransIndex(t.Prev, t.Label)] = t.Value
	}
	return out, nil
}
