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
	var (
		labels  Labels
		weights []float64
		ids     []int32
	)
	c := &sparse.Corpus{}
	n := 0
	for r.Next() {
		ex := r.Example()
		n++
		if ex.Labels == nil {
			return nil, nil, nil, fmt.Errorf("sequence %d has no labels", n)
		}
		ids = labels.AppendIDs(make([]int32, 0, len(ex.Labels)), ex.Labels)
		if err := Encode(enc, c, &ex, ids, true); err != nil {
			return nil, nil, nil, fmt.Errorf("sequence %d: %w", n, err)
		}
		if ex.Weight != 0 && weights == nil {
			weights = make([]float64, n-1, n)
			for i := range weights {
				weights[i] = 1
			}
		}
		if weights != nil {
			w := ex.Weight
			if w == 0 {
				w = 1
			}
			weights = append(weights, w)
		}
	}
	if err := r.Err(); err != nil {
		return nil, nil, nil, err
	}
	enc.Freeze(0)
	if labels.Len() == 0 {
		return nil, nil, nil, errors.New("no labeled sequence")
	}
	m := &chain.Model{Labels: labels.Names(), Encoder: enc, Layout: sparse.Layout{NumUnary: enc.Unary().Len(), L: labels.Len(),
		NumPair: enc.Pair().Len(), Transitions: enc.HasTransitions()}}
	return m, c, weights, nil
}
