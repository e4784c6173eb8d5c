package features

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sparsetag/sparsetag/sparse"
)

func TestDictionarySubset(t *testing.T) {
	d := NewDictionary()
	for _, s := range []string{"a", "b", "c", "d", "b"} {
		_, err := d.Add(s)
		require.NoError(t, err)
	}
	s, remap := d.Subset(func(id int32) bool { return id != 1 })
	assert.Equal(t, []int32{0, -1, 1, 2}, remap, "remap")
	assert.Equal(t, []string{"a", "c", "d"}, s.Names(), "names")
	assert.True(t, s.Frozen(), "subset frozen")
	assert.Equal(t, int64(0), s.Count(0), "subset has no counts")
	id, ok := s.ID("d")
	assert.True(t, ok && id == 2, "ID(d) = %d, %v", id, ok)
	_, ok = s.ID("b")
	assert.False(t, ok, "left-out name known")
	_, err := s.Add("e")
	assert.ErrorIs(t, err, ErrFrozen, "subset grows")
	// d is unchanged and still grows.
	assert.Equal(t, []string{"a", "b", "c", "d"}, d.Names(), "original names")
	assert.False(t, d.Frozen(), "original frozen")
	assert.Equal(t, int64(2), d.Count(1), "original count")

	none, remap := d.Subset(func(int32) bool { return false })
	assert.Equal(t, 0, none.Len(), "empty subset")
	assert.Equal(t, []int32{-1, -1, -1, -1}, remap, "empty subset remap")
}

// TestRestrictEncodesSubset checks Restrict's contract on template input
// with pair attributes: every row of the restricted encoder is the row of
// the original (grow=false) with the left-out attributes removed and the
// others renamed through the maps, in the same order.
func TestRestrictEncodesSubset(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	sentence := func(vocab int) [][]string {
		cols := make([][]string, 1+rng.IntN(7))
		for i := range cols {
			cols[i] = []string{string(rune('a' + rng.IntN(vocab))), string(rune('A' + rng.IntN(4)))}
		}
		return cols
	}
	e := NewTemplateEncoder(MustCompile("U00:%x[0,0]\nU01:%x[-1,0]/%x[0,1]\nB\nB01:%x[0,1]\nB02:%x[-1,0]/%x[0,0]\n"))
	for range 40 {
		require.NoError(t, e.Count(Columns(sentence(12))))
	}
	e.Freeze(0)
	keepU := func(id int32) bool { return id%3 != 1 }
	keepP := func(id int32) bool { return id%2 == 0 }
	r, umap, pmap := e.Restrict(keepU, keepP)
	require.Len(t, umap, e.Unary().Len())
	require.Len(t, pmap, e.Pair().Len())
	assert.Equal(t, e.Template(), r.Template(), "template shared")
	assert.Equal(t, e.Unary().Len(), len(e.Unary().Names()), "original unchanged")
	var want, got sparse.Corpus
	for range 50 {
		s := sentence(16) // with letters never seen
		require.NoError(t, e.Encode(&want, Columns(s), nil, false))
		require.NoError(t, r.Encode(&got, Columns(s), nil, false))
	}
	assert.Equal(t, r.Unary().Len(), got.NumUnary, "NumUnary")
	assert.Equal(t, r.Pair().Len(), got.NumPair, "NumPair")
	for _, tc := range []struct {
		name      string
		want, got *sparse.Matrix
		remap     []int32
	}{
		{"unary", &want.Unary, &got.Unary, umap},
		{"pair", &want.Pair, &got.Pair, pmap},
	} {
		require.Equal(t, tc.want.Rows(), tc.got.Rows(), "%s rows", tc.name)
		for p := 0; p < tc.want.Rows(); p++ {
			cols, _ := tc.want.Row(p)
			exp := []int32{}
			for _, a := range cols {
				if b := tc.remap[a]; b >= 0 {
					exp = append(exp, b)
				}
			}
			gc, _ := tc.got.Row(p)
			if !slices.Equal(append([]int32{}, gc...), exp) {
				t.Fatalf("%s row %d: %v, want %v (original %v)", tc.name, p, gc, exp, cols)
			}
		}
	}
}
