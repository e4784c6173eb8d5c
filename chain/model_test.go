package chain

import (
	"bytes"
	"testing"

	"github.com/sparsetag/sparsetag/sparse"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestModelLayout checks that a Model's weight blocks are the blocks of its
// sparse.Layout: U = 2, L = 3, P = 1 gives 6 state, 9 transition and 9 pair
// weights, and a file round trip keeps the layout.
func TestModelLayout(t *testing.T) {
	for _, transitions := range []bool{true, false} {
		m, err := NewModel(labelNames(3), 2, 1, transitions, nil)
		if err != nil {
			t.Fatal(err)
		}
		want := sparse.Layout{NumUnary: 2, L: 3, NumPair: 1, Transitions: transitions}
		if m.Layout != want {
			t.Fatalf("Layout = %+v, want %+v", m.Layout, want)
		}
		if m.NumLabels() != 3 || m.Layout.TransOffset() != 6 || m.Layout.PairOffset() != 15 || len(m.W) != m.Layout.Dim() || m.Layout.Dim() != 24 {
			t.Fatalf("L %d, offsets %d %d, len(W) %d, Dim %d", m.NumLabels(), m.Layout.TransOffset(), m.Layout.PairOffset(), len(m.W), m.Layout.Dim())
		}
		m.W[m.Layout.StateIndex(1, 2)] = 1
		m.W[m.Layout.TransIndex(2, 0)] = 2
		m.W[m.Layout.PairIndex(0, 1, 2)] = 3
		if m.State[1*3+2] != 1 || m.Trans[2*3+0] != 2 || m.PairW[1*3+2] != 3 {
			t.Fatalf("State, Trans or PairW do not alias W at the layout's offsets: %v", m.W)
		}
		if len(m.State) != m.Layout.StateLen() || len(m.Trans) != 9 || len(m.PairW) != 9 {
			t.Fatalf("block lengths %d %d %d", len(m.State), len(m.Trans), len(m.PairW))
		}
		b, err := m.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		r, err := ReadModel(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		if r.Layout != m.Layout || r.W[m.Layout.PairIndex(0, 1, 2)] != 3 {
			t.Fatalf("round trip: Layout %+v, W %v", r.Layout, r.W)
		}
	}
}

// TestNewAttributeModel: attribute i of the model is attrs[i] in its
// encoder, the layout has transitions and no pair block, every weight is
// zero, and a duplicate attribute is refused.
func TestNewAttributeModel(t *testing.T) {
	m, err := NewAttributeModel([]string{"B", "I", "O"}, []string{"w=the", "w=cat", "pos=NN"})
	require.NoError(t, err)
	assert.Equal(t, 3, m.Layout.NumUnary)
	assert.Equal(t, 0, m.Layout.NumPair)
	assert.True(t, m.Layout.Transitions)
	assert.Equal(t, 0, m.NonZero())
	assert.Len(t, m.W, 3*3+3*3)
	for i, name := range []string{"w=the", "w=cat", "pos=NN"} {
		id, ok := m.Encoder.Unary().ID(name)
		require.True(t, ok, name)
		assert.Equal(t, int32(i), id)
	}
	_, err = NewAttributeModel([]string{"B"}, []string{"a", "a"})
	assert.Error(t, err)
}
