package tagging

import (
	"bytes"
	"fmt"
	"io"
	"strconv"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/peer"
)

// Weighted is a whole model, every weight of it: what dump lists and
// convert rewrites. Tagging needs only a Tagger (Load), which need not hold
// the weights of features that weigh nothing.
type Weighted interface {
	// Format is the model's format, as Tagger.Format.
	Format() string
	// Labels returns the label names; label ids index them.
	Labels() []string
	// Weights calls fn for each weight of the model, named as the toolkit
	// that trained it names its features, and stops at the first error fn
	// returns. A model of this toolkit lists its non-zero state weights by
	// attribute then label, then its transitions, then its pair weights;
	// a peer model in its file's order (peer.Model.Weights).
	Weights(fn func(peer.Weight) error) error
}

// LoadWeights reads the model file at path whole, ours or a peer's (see
// Load).
func LoadWeights(path string) (Weighted, error) {
	pm, err := openPeer(path)
	if err != nil {
		return nil, err
	}
	if pm != nil {
		return tool{pm}, nil
	}
	m, err := chain.LoadFile(path)
	if err != nil {
		return nil, err
	}
	return ourWeights{m}, nil
}

// ReadWeights is LoadWeights from r, the contents of a model file
// (gzip-compressed or not); name is the model's name in error messages.
func ReadWeights(name string, r io.Reader) (Weighted, error) {
	pm, plain, err := readModel(name, r)
	switch {
	case err != nil:
		return nil, err
	case pm != nil:
		return tool{pm}, nil
	}
	m, err := chain.ReadModel(bytes.NewReader(plain))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return ourWeights{m}, nil
}

// ourWeights is the Weighted of a model of this toolkit.
type ourWeights struct{ m *chain.Model }

func (w ourWeights) Format() string   { return FormatOurs }
func (w ourWeights) Labels() []string { return w.m.Labels }

func (w ourWeights) Weights(fn func(peer.Weight) error) error {
	m, L := w.m, w.m.NumLabels()
	unary, pair := w.namers()
	emit := func(kind peer.WeightKind, name string, prev, label int, v float64) error {
		if v == 0 {
			return nil
		}
		return fn(peer.Weight{Kind: kind, Feature: name, Prev: prev, Label: label, Value: v})
	}
	for a := range m.Layout.NumUnary {
		for y := range L {
			if err := emit(peer.StateWeight, unary(a), -1, y, m.W[m.Layout.StateIndex(a, y)]); err != nil {
				return err
			}
		}
	}
	for p := range L {
		for q := range L {
			if err := emit(peer.TransWeight, "", p, q, m.W[m.Layout.TransIndex(p, q)]); err != nil {
				return err
			}
		}
	}
	for a := range m.Layout.NumPair {
		for p := range L {
			for q := range L {
				if err := emit(peer.PairWeight, pair(a), p, q, m.W[m.Layout.PairIndex(a, p, q)]); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// namers returns the names of unary and pair attributes: the encoder's, or
// "#id" for a model without one.
func (w ourWeights) namers() (unary, pair func(int) string) {
	enc := w.m.Encoder
	if enc == nil {
		f := func(a int) string { return "#" + strconv.Itoa(a) }
		return f, f
	}
	return func(a int) string { return enc.Unary().Name(int32(a)) }, func(a int) string { return enc.Pair().Name(int32(a)) }
}
