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

// TestGrow checks that appending what Corpus.Grow made room for keeps the
// storage (no reallocation: the sizes are size classes of the allocator,
// where one element more would not fit) and changes no row.
func TestGrow(t *testing.T) {
	for _, rows := range []int{8, 1024} {
		c := &Corpus{}
		c.Grow(2, rows, 8*rows, 16*rows, true, true)
		first := func() [5]*int32 {
			return [5]*int32{&c.SeqPtr[:1][0], &c.Unary.RowPtr[:1][0], &c.Unary.Col[:1][0], &c.Pair.Col[:1][0], &c.Labels[:1][0]}
		}
		before := first()
		unary, pair := make([][]int32, rows/2), make([][]int32, rows/2)
		for t := range unary {
			unary[t], pair[t] = []int32{0, 1, 2, 3, 4, 5, 6, 7}, make([]int32, 16)
		}
		labels := make([]int32, rows/2)
		c.AppendSequence(unary, nil, pair, nil, labels)
		c.AppendSequence(unary, nil, pair, nil, labels)
		if first() != before {
			t.Fatalf("%d rows: the corpus was reallocated while appending what Grow made room for", rows)
		}
		if c.Len() != 2 || c.Positions() != rows || c.Unary.NNZ() != 8*rows || c.Pair.NNZ() != 16*rows {
			t.Fatalf("%d rows: corpus of %d sequences, %d positions", rows, c.Len(), c.Positions())
		}
	}
	m := &Matrix{}
	m.AppendRow([]int32{1}, []float64{2})
	m.Grow(1, 3)
	if cap(m.Val)-len(m.Val) < 3 || len(m.Val) != 1 || m.Val[0] != 2 {
		t.Fatalf("a valued matrix's values: len %d, cap %d after Grow", len(m.Val), cap(m.Val))
	}
}
