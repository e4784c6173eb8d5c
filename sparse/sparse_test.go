package sparse

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCorpusAppendAndValidate(t *testing.T) {
	var c Corpus
	c.NumUnary = 3
	c.AppendSequence([][]int32{{0, 2}, {1}}, nil, nil, nil, []int32{0, 1})
	c.AppendSequence([][]int32{{2}}, [][]float64{{0.5}}, nil, nil, []int32{1})
	require.Equal(t, 2, c.Len(), "Len")
	require.Equal(t, 3, c.Positions(), "Positions")
	require.Equal(t, 2, c.MaxLen(), "MaxLen")
	require.NoError(t, c.Validate(2))
	// The first rows were binary: switching to values back-fills ones.
	cols, vals := c.Unary.Row(0)
	require.Len(t, cols, 2, "row 0")
	require.Equal(t, 1.0, vals[0], "row 0 value 0")
	require.Equal(t, 1.0, vals[1], "row 0 value 1")
	_, v := c.Unary.Row(2)
	require.Equal(t, 0.5, v[0], "row 2 value")
	start, n := c.Span(1)
	require.Equal(t, 2, start, "Span(1) start")
	require.Equal(t, 1, n, "Span(1) length")
	require.Error(t, c.Validate(1), "label 1 accepted with 1 label")
	c.Unary.Col[0] = 7
	require.Error(t, c.Validate(2), "attribute 7 accepted with 3 attributes")
	c.Reset()
	// Reset empties the corpus.
	assert.Zero(t, c.Len(), "Len after Reset")
	assert.Zero(t, c.Positions(), "Positions after Reset")
}

func TestBitsetAndRemap(t *testing.T) {
	b := NewBitset(130)
	for _, i := range []int{0, 64, 129} {
		b.Set(i)
	}
	b.Clear(64)
	require.Equal(t, 2, b.Count(), "Count")
	require.True(t, b.Has(129), "Has(129)")
	require.False(t, b.Has(64), "Has(64) after Clear(64)")
	require.Equal(t, []int32{0, 129}, b.AppendIndices(nil, 130), "indices")
	src := []float64{10, 11, 12, 13}
	keep := []int32{1, 3}
	got := Gather(make([]float64, 2), src, keep)
	require.Equal(t, []float64{11, 13}, got, "Gather")
	dst := make([]float64, 4)
	Scatter(dst, got, keep)
	if dst[1] != 11 || dst[3] != 13 || dst[0] != 0 {
		t.Fatalf("Scatter = %v", dst)
	}
	assert.Equal(t, []float64{11, 13}, Compact(src, keep), "Compact")
}
