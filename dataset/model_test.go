package dataset

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sparsetag/sparsetag/features"
)

// TestNewTrainingModel: the model has the corpus's labels, the encoder's
// attributes and zero weights, and the encoder is frozen and the model's.
func TestNewTrainingModel(t *testing.T) {
	exs := readString(t, CoNLL, true, toyCoNLL)
	enc, err := NewEncoder(CoNLL, nil)
	require.NoError(t, err)
	m, c, err := NewTrainingModel(enc, exs, 1)
	require.NoError(t, err)
	_, labels, err := EncodeTraining(mustEncoder(t), exs, 1)
	require.NoError(t, err)
	assert.Equal(t, labels, m.Labels)
	assert.Equal(t, len(exs), c.Len())
	assert.Same(t, enc, m.Encoder)
	assert.Equal(t, enc.Unary().Len(), m.Layout.NumUnary)
	assert.Equal(t, enc.Pair().Len(), m.Layout.NumPair)
	assert.Equal(t, enc.HasTransitions(), m.Layout.Transitions)
	assert.Zero(t, m.NonZero())
	assert.ErrorContains(t, Encode(enc, c, &exs[0], nil, true), "frozen")

	_, _, err = NewTrainingModel(mustEncoder(t), readString(t, CoNLL, false, "a b\n"), 1)
	assert.EqualError(t, err, "in.txt:1: sequence 1 has no labels: training reads labeled examples (dataset.Options{Labeled: true})")
}

func mustEncoder(t *testing.T) *features.Encoder {
	t.Helper()
	enc, err := NewEncoder(CoNLL, nil)
	require.NoError(t, err)
	return enc
}
