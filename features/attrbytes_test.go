package features

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/sparsetag/sparsetag/sparse"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// attributeBytes lays names and values (nil: all 1) out as AttributeBytes.
func attributeBytes(names [][]string, values [][]float64) AttributeBytes {
	a := AttributeBytes{NamePtr: []int{0}, PosPtr: []int{0}}
	for t, row := range names {
		for j, s := range row {
			a.Names = append(a.Names, s...)
			a.NamePtr = append(a.NamePtr, len(a.Names))
			v := 1.0
			if values != nil && values[t] != nil {
				v = values[t][j]
			}
			a.Values = append(a.Values, v)
		}
		a.PosPtr = append(a.PosPtr, len(a.NamePtr)-1)
	}
	return a
}

// randomAttributes returns a sequence of 1 to 5 positions of 0 to 40
// names drawn from vocab (repeats within a row are frequent), with values
// all 1 in about half the rows and otherwise some of them 0.5, 2 or -1.25.
func randomAttributes(rng *rand.Rand, vocab []string) ([][]string, [][]float64) {
	n := 1 + rng.IntN(5)
	names, values := make([][]string, n), make([][]float64, n)
	for t := range n {
		k := rng.IntN(41)
		ones := rng.IntN(2) == 0
		for range k {
			names[t] = append(names[t], vocab[rng.IntN(len(vocab))])
			v := 1.0
			if !ones && rng.IntN(3) == 0 {
				v = []float64{0.5, 2, -1.25}[rng.IntN(3)]
			}
			values[t] = append(values[t], v)
		}
	}
	return names, values
}

// TestEncodeBytesAsEncode: EncodeBytes gives the corpus (rows, binary or
// valued, merged values), the dictionary and its counts of Encode with
// the same names and values, growing and then frozen (unknown names left
// out), on random sequences whose rows have repeats, all-1 values and
// more names than the insertion sort takes.
func TestEncodeBytesAsEncode(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 7))
	var vocab []string
	for i := range 60 {
		vocab = append(vocab, fmt.Sprintf("U%02d:w=%d", i%7, i))
	}
	es, eb := NewAttributeEncoder(), NewAttributeEncoder()
	var cs, cb sparse.Corpus
	encode := func(grow bool, vocab []string) {
		for range 200 {
			names, values := randomAttributes(rng, vocab)
			labels := make([]int32, len(names))
			for t := range labels {
				labels[t] = int32(rng.IntN(3))
			}
			require.NoError(t, es.Encode(&cs, Attributes{Names: names, Values: values}, labels, grow))
			require.NoError(t, eb.EncodeBytes(&cb, attributeBytes(names, values), labels, grow))
		}
	}
	encode(true, vocab[:50])
	require.Equal(t, cs, cb, "growing")
	require.Equal(t, es.Unary().Names(), eb.Unary().Names())
	for id := range int32(es.Unary().Len()) {
		require.Equal(t, es.Unary().Count(id), eb.Unary().Count(id), "count of %d", id)
	}
	require.NotNil(t, cs.Unary.Val, "some rows are valued")
	es.Freeze(0)
	eb.Freeze(0)
	encode(false, vocab)
	require.Equal(t, cs, cb, "frozen")
	require.Equal(t, 50, eb.Unary().Len())
}

// TestEncodeBytesRows: a row of values 1 with distinct names is binary; a
// repeated name sums its values (a valued row, as Encode's); values 1
// that sum to 1 after merging (0.5 + 0.5) make a binary row again.
func TestEncodeBytesRows(t *testing.T) {
	e := NewAttributeEncoder()
	var c sparse.Corpus
	names := [][]string{{"b", "a"}, {"a", "b", "a"}, {"c"}}
	values := [][]float64{{1, 1}, {1, 1, 1}, {1}}
	require.NoError(t, e.EncodeBytes(&c, attributeBytes(names[:1], values[:1]), nil, true))
	assert.Nil(t, c.Unary.Val, "distinct names, values 1: binary")
	assert.Equal(t, []int32{0, 1}, c.Unary.Col)
	require.NoError(t, e.EncodeBytes(&c, attributeBytes(names[1:], values[1:]), nil, true))
	assert.Equal(t, []int32{0, 1, 0, 1, 2}, c.Unary.Col)
	assert.Equal(t, []float64{1, 1, 1, 2, 1}, c.Unary.Val, "a repeated name sums")
	assert.Equal(t, []int32{0, 2, 4, 5}, c.Unary.RowPtr)
	assert.Equal(t, int64(2), e.Unary().Count(1), "a counted once per position")
	var c2 sparse.Corpus
	require.NoError(t, e.EncodeBytes(&c2, attributeBytes([][]string{{"c", "c"}}, [][]float64{{0.5, 0.5}}), nil, true))
	assert.Nil(t, c2.Unary.Val, "0.5 + 0.5: binary")
	assert.Equal(t, []int32{2}, c2.Unary.Col)
}

// TestEncodeBytesErrors: bad values and layouts are errors that change
// neither the corpus nor the dictionary; other encoders refuse the input.
func TestEncodeBytesErrors(t *testing.T) {
	good := attributeBytes([][]string{{"a", "b"}}, nil)
	for _, tc := range []struct {
		name   string
		in     AttributeBytes
		labels []int32
		msg    string
	}{
		{"NaN", attributeBytes([][]string{{"a"}}, [][]float64{{math.NaN()}}), nil, "finite"},
		{"-Inf", attributeBytes([][]string{{"a"}}, [][]float64{{math.Inf(-1)}}), nil, "finite"},
		{"overflowing sum", attributeBytes([][]string{{"a", "a"}}, [][]float64{{math.MaxFloat64, math.MaxFloat64}}), nil, "overflow"},
		{"empty name", AttributeBytes{Names: []byte("a"), NamePtr: []int{0, 1, 1}, Values: []float64{1, 1}, PosPtr: []int{0, 2}}, nil, "empty name"},
		{"value count", AttributeBytes{Names: good.Names, NamePtr: good.NamePtr, Values: []float64{1}, PosPtr: good.PosPtr}, nil, "values"},
		{"names past the bytes", AttributeBytes{Names: []byte("a"), NamePtr: []int{0, 1, 2}, Values: []float64{1, 1}, PosPtr: []int{0, 2}}, nil, "bytes"},
		{"positions past the names", AttributeBytes{Names: good.Names, NamePtr: good.NamePtr, Values: good.Values, PosPtr: []int{0, 3}}, nil, "positions"},
		{"positions out of order", AttributeBytes{Names: good.Names, NamePtr: good.NamePtr, Values: good.Values, PosPtr: []int{0, 2, 1}}, nil, "order"},
		{"no PosPtr", AttributeBytes{Names: good.Names, NamePtr: good.NamePtr, Values: good.Values}, nil, "PosPtr"},
		{"label count", good, []int32{0, 1}, "labels"},
		{"negative label", good, []int32{-1}, "negative"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := NewAttributeEncoder()
			var c sparse.Corpus
			require.NoError(t, e.EncodeBytes(&c, attributeBytes([][]string{{"x"}}, nil), nil, true))
			before := cloneCorpus(&c)
			err := e.EncodeBytes(&c, tc.in, tc.labels, true)
			require.ErrorContains(t, err, tc.msg)
			assert.Equal(t, before, &c, "corpus")
			assert.Equal(t, 1, e.Unary().Len(), "dictionary length")
		})
	}
	var ke *KindError
	require.ErrorAs(t, NewTemplateEncoder(MustCompile(handTemplate)).EncodeBytes(&sparse.Corpus{}, good, nil, true), &ke)
	require.Error(t, NewAttributeEncoder().EncodeBytes(nil, good, nil, true))
}

// TestEncodeBytesNoAllocs: encoding names the dictionary holds allocates
// nothing, growing or frozen (a corpus with room for the rows).
func TestEncodeBytesNoAllocs(t *testing.T) {
	e := NewAttributeEncoder()
	in := attributeBytes([][]string{{"U00:x", "U01:y", "U02:z"}, {"U01:y", "U00:x"}}, [][]float64{nil, {1, 2}})
	var c sparse.Corpus
	labels := []int32{0, 1}
	require.NoError(t, e.EncodeBytes(&c, in, labels, true))
	allocs := testing.AllocsPerRun(100, func() {
		c.Reset()
		if err := e.EncodeBytes(&c, in, labels, true); err != nil {
			t.Fatal(err)
		}
	})
	assert.Zero(t, allocs, "EncodeBytes allocations per run")
}
