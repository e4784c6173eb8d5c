package dataset

import (
	"errors"
	"fmt"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/features"
	"github.com/sparsetag/sparsetag/sparse"
)

// ReadTrainingModel reads the labeled sequences of r one at a time and
// encodes each as it is read, growing enc: the same model layout, corpus
// and label order as reading every example then NewTrainingModel with
// minFreq <= 1, without holding the text of the whole input (only the
// corpus and the dictionaries). The model is a layout only: its weights
// are not allocated (W nil), as an online trainer needs none of the full
// layout's size (online.Problem; chain.NewCompactModel builds the model
// to save from its sparse result). It also returns the sequence weights of
// the examples (SequenceWeights: nil when none is given). An error names
// the sequence by its 1-based index.
func ReadTrainingModel(r *Reader, enc *features.Encoder) (*chain.Model, *sparse.Corpus, []float64, error) {
	st := streamed{c: &sparse.Corpus{}}
	var err error
	if r.crf != nil && enc.Kind() == features.KindAttributes {
		err = st.readRaw(r, enc)
	} else {
		err = st.read(r, enc)
	}
	if err != nil {
		return nil, nil, nil, err
	}
	enc.Freeze(0)
	if st.labels.Len() == 0 {
		return nil, nil, nil, errors.New("no labeled sequence")
	}
	m := &chain.Model{Labels: st.labels.Names(), Encoder: enc, Layout: sparse.Layout{NumUnary: enc.Unary().Len(), L: st.labels.Len(),
		NumPair: enc.Pair().Len(), Transitions: enc.HasTransitions()}}
	return m, st.c, st.weights, nil
}

// streamed is what ReadTrainingModel builds: the corpus, the labels and
// the sequence weights of the n sequences read so far.
type streamed struct {
	c       *sparse.Corpus
	labels  Labels
	weights []float64
	ids     []int32 // the label ids of a sequence
	n       int
}

// read encodes the Examples of r.
func (st *streamed) read(r *Reader, enc *features.Encoder) error {
	for r.Next() {
		ex := r.Example()
		st.n++
		if ex.Labels == nil {
			return fmt.Errorf("sequence %d has no labels", st.n)
		}
		st.ids = st.labels.AppendIDs(st.ids[:0], ex.Labels)
		if err := Encode(enc, st.c, &ex, st.ids, true); err != nil {
			return fmt.Errorf("sequence %d: %w", st.n, err)
		}
		st.weigh(ex.Weight)
	}
	return r.Err()
}

// readRaw encodes the sequences of r's CRFsuite reader from its bytes
// (corpora.RawSequence, features.Encoder.EncodeBytes): the corpus and
// dictionaries of read, without a string per attribute or label (only a
// new one becomes a string).
func (st *streamed) readRaw(r *Reader, enc *features.Encoder) error {
	for r.nextRaw() {
		raw := r.crf.Raw()
		st.n++
		if raw.LabelPtr == nil {
			return fmt.Errorf("sequence %d has no labels", st.n)
		}
		st.ids = st.ids[:0]
		for t := range raw.Len() {
			st.ids = append(st.ids, st.labels.idBytes(raw.Label(t)))
		}
		in := features.AttributeBytes{Names: raw.Names, NamePtr: raw.NamePtr, Values: raw.Values, PosPtr: raw.PosPtr}
		if err := enc.EncodeBytes(st.c, in, st.ids, true); err != nil {
			return fmt.Errorf("sequence %d: %w", st.n, err)
		}
		st.weigh(raw.Weight)
	}
	return r.Err()
}

// weigh records the weight of sequence st.n (0: none given, weight 1):
// the weights stay nil until a sequence has one.
func (st *streamed) weigh(w float64) {
	if w != 0 && st.weights == nil {
		st.weights = make([]float64, st.n-1, st.n)
		for i := range st.weights {
			st.weights[i] = 1
		}
	}
	if st.weights != nil {
		if w == 0 {
			w = 1
		}
		st.weights = append(st.weights, w)
	}
}
