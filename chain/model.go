package chain

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/sparsetag/sparsetag/features"
	"github.com/sparsetag/sparsetag/sparse"
)

// Model is a linear-chain CRF: a label set, the attribute dictionaries (held by
// the feature encoder, which also knows how to turn raw input into attribute
// ids) and the weights.
//
// The weights live in one flat vector W laid out by the embedded
// sparse.Layout (see its documentation):
//
//	state  [0, U*L)                 W[a*L+y]           unary attribute a, label y
//	trans  [U*L, U*L+L*L)           W[U*L+prev*L+cur]  label bigram (zero when Transitions is false)
//	pair   [U*L+L*L, +P*L*L)        W[off+a*L*L+prev*L+cur] observation-conditioned bigram
//
// where U = NumUnary is the number of unary attributes, P = NumPair the
// number of pair attributes and L = len(Labels) the number of labels (the
// layout's L always equals len(Labels)). State, Trans and PairW are
// sub-slices of W. The layout's offsets and index helpers (TransOffset,
// PairOffset, StateIndex, Decode, ...) are promoted to Model.
//
// A Model is not safe for concurrent modification; a Tagger built from it is
// safe for concurrent use as long as the Model is not modified.
type Model struct {
	Labels []string // label names, id order

	// Layout holds NumUnary (U), NumPair (P), Transitions (whether
	// label-bigram features exist) and L = len(Labels).
	sparse.Layout

	W     []float64 // all weights, layout above
	State []float64 // W[:U*L]
	Trans []float64 // W[U*L : U*L+L*L]
	PairW []float64 // W[U*L+L*L:]

	// Encoder turns raw input (token columns, name:value attributes or
	// pixels) into attribute ids and holds the attribute dictionaries. It is
	// stored in the model file so that a loaded model can tag raw input. It
	// is nil for models trained on pre-encoded data (e.g. synthetic sets).
	Encoder *features.Encoder
}

// NewModel returns a model with all weights zero over labels and the
// given dimensions: numUnary unary and numPair pair attributes, and
// label-bigram transitions or not. A model over an encoder enc takes enc's
// dimensions (enc.Unary().Len(), enc.Pair().Len(), enc.HasTransitions());
// to train one from examples, dataset.NewTrainingModel encodes them and
// builds it in one call.
func NewModel(labels []string, numUnary, numPair int, transitions bool, enc *features.Encoder) (*Model, error) {
	if len(labels) == 0 {
		return nil, errors.New("chain: model needs at least one label")
	}
	if numUnary < 0 || numPair < 0 {
		return nil, errors.New("chain: negative attribute count")
	}
	m := &Model{
		Labels:  labels,
		Layout:  sparse.Layout{NumUnary: numUnary, L: len(labels), NumPair: numPair, Transitions: transitions},
		Encoder: enc,
	}
	d, err := m.dimension()
	if err != nil {
		return nil, err
	}
	m.setWeights(make([]float64, d))
	return m, nil
}

// NewAttributeModel returns a model with all weights zero over the named
// attributes of name:value attribute input (CRFsuite attribute files), with
// label-bigram transitions and an encoder that knows exactly those
// attributes, in that order: attribute i is attrs[i]. It is how a model
// written by another tool over the same kind of input becomes one of ours.
func NewAttributeModel(labels, attrs []string) (*Model, error) {
	enc, err := features.NewEncoderFrom(features.KindAttributes, "", 0, attrs, nil)
	if err != nil {
		return nil, fmt.Errorf("chain: NewAttributeModel: %w", err)
	}
	return NewModel(labels, len(attrs), 0, true, enc)
}

// dimension returns the length of W, or an error when it overflows the
// limits of this implementation.
func (m *Model) dimension() (int, error) {
	if d := m.Layout.DimFloat(); d > maxWeights {
		return 0, fmt.Errorf("chain: model would have %.0f weights, more than the limit %d", d, maxWeights)
	}
	return m.Layout.Dim(), nil
}

// maxWeights bounds the size of the weight vector (2^31-1 keeps every index in
// an int32 and every model below 16 GiB).
const maxWeights = math.MaxInt32

// setWeights installs w as the weight vector and re-slices the blocks.
func (m *Model) setWeights(w []float64) {
	m.W = w
	u, p := m.Layout.TransOffset(), m.Layout.PairOffset()
	m.State = w[:u:u]
	m.Trans = w[u:p:p]
	m.PairW = w[p:]
}

// NumLabels returns L.
func (m *Model) NumLabels() int { return len(m.Labels) }

// NonZero returns the number of non-zero weights.
func (m *Model) NonZero() int {
	n := 0
	for _, v := range m.W {
		if v != 0 {
			n++
		}
	}
	return n
}

// LabelID returns the id of label name, or -1.
func (m *Model) LabelID(name string) int { return slices.Index(m.Labels, name) }
