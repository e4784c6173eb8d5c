package corpora

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rawMatches fails t unless raw holds exactly the names, values, labels,
// line and weight of s.
func rawMatches(t *testing.T, raw *RawSequence, s Sequence) {
	t.Helper()
	require.Equal(t, len(s.Attrs), raw.Len(), "positions")
	require.Equal(t, s.Line, raw.Line, "line")
	require.Equal(t, s.Weight, raw.Weight, "weight")
	require.Equal(t, s.Labels == nil, raw.LabelPtr == nil, "labels read")
	for p, attrs := range s.Attrs {
		lo, hi := raw.PosPtr[p], raw.PosPtr[p+1]
		require.Equal(t, len(attrs), hi-lo, "position %d", p)
		for j, a := range attrs {
			assert.Equal(t, a.Name, string(raw.Name(lo+j)), "position %d attribute %d", p, j)
			assert.Equal(t, a.Value, raw.Values[lo+j], "position %d attribute %d", p, j)
		}
		if s.Labels != nil {
			assert.Equal(t, s.Labels[p], string(raw.Label(p)), "label %d", p)
		}
	}
}

// TestCRFsuiteRaw: the bytes of every sequence (Raw) are what Sequence
// makes strings of: names unescaped, values, labels, lines and weights,
// labeled, unlabeled and ignoring labels. Strings made by Sequence stay
// valid after the next Next overwrites Raw.
func TestCRFsuiteRaw(t *testing.T) {
	in := "B-NP\tw=He\tpos=PRP:0.5\n" +
		"O\n" +
		"I-NP\tw\\:x\\\\y:-2e-3\t\tlast:1\r\n" +
		"\n" +
		"@weight:2.5\n" +
		"O\tz\tU00\\:a/b\tz\n\n\n" +
		"Y:1\tq:3\n"
	for _, opts := range []CRFsuiteOptions{{}, {Unlabeled: true}, {IgnoreLabels: true}} {
		want, err := ReadCRFsuite("f", strings.NewReader(in), opts)
		require.NoError(t, err)
		r := NewCRFsuiteReader("f", strings.NewReader(in), opts)
		var kept []Sequence
		for i := 0; r.Next(); i++ {
			require.Less(t, i, len(want))
			rawMatches(t, r.Raw(), want[i])
			if i%2 == 0 {
				kept = append(kept, r.Sequence())
			}
		}
		require.NoError(t, r.Err())
		assert.Equal(t, want[len(want)-1], r.Sequence(), "after the last Next")
		for k, s := range kept {
			assert.Equal(t, want[2*k], s, "%+v: kept sequence %d", opts, 2*k)
		}
	}
}

// TestCRFsuiteSequenceAfterError: a Next that fails on bad input leaves no
// partial sequence behind.
func TestCRFsuiteSequenceAfterError(t *testing.T) {
	r := NewCRFsuiteReader("f", strings.NewReader("B\ta\n\nB\tb\nC\tc:x\n"), CRFsuiteOptions{})
	require.True(t, r.Next())
	require.False(t, r.Next())
	require.Error(t, r.Err())
	assert.Equal(t, Sequence{}, r.Sequence())
}

// TestCRFsuiteRawNoAllocs: reading with Next and Raw allocates as much for
// 2,000 sequences as for 20: nothing per sequence, line or attribute once
// the reader's buffers hold the longest sequence.
func TestCRFsuiteRawNoAllocs(t *testing.T) {
	seq := "B-NP\tU00\\:He\tU01\\:runs\tpos:2\n" + "I-NP\tU00\\:it\tw\n" + "O\n\n"
	read := func(n int) float64 {
		in := []byte(strings.Repeat(seq, n))
		return testing.AllocsPerRun(5, func() {
			r := NewCRFsuiteReader("f", bytes.NewReader(in), CRFsuiteOptions{})
			for r.Next() {
				_ = r.Raw()
			}
			if r.Err() != nil {
				t.Fatal(r.Err())
			}
		})
	}
	few, many := read(20), read(2000)
	assert.Equal(t, few, many, "allocations for 20 and 2,000 sequences")
}
