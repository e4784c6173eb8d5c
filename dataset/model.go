package dataset

import (
	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/features"
	"github.com/sparsetag/sparsetag/sparse"
)

// NewTrainingModel encodes labeled examples for training with enc
// (EncodeTraining, which grows and then freezes enc) and returns a model
// with all weights zero over their labels and enc's attributes, with enc
// as its encoder, and the encoded corpus: what train.Train and train.Path
// take.
func NewTrainingModel(enc *features.Encoder, exs []Example, minFreq int) (*chain.Model, *sparse.Corpus, error) {
	return NewTrainingModelThreads(enc, exs, minFreq, 1)
}

// NewTrainingModelThreads is NewTrainingModel encoding on up to threads
// goroutines (EncodeTrainingThreads: the same model and corpus).
func NewTrainingModelThreads(enc *features.Encoder, exs []Example, minFreq, threads int) (*chain.Model, *sparse.Corpus, error) {
	c, labels, err := EncodeTrainingThreads(enc, exs, minFreq, threads)
	if err != nil {
		return nil, nil, err
	}
	m, err := chain.NewModel(labels, enc.Unary().Len(), enc.Pair().Len(), enc.HasTransitions(), enc)
	if err != nil {
		return nil, nil, err
	}
	return m, c, nil
}
