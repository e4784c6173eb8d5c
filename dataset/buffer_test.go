package dataset

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestNextInto checks that NextInto reads the Examples Next reads (CoNLL
// into the buffer, other formats as Next), with one Buffer for all, and
// that the Examples of Read (what training keeps) are independent: they
// are unchanged after a NextInto pass over the same input.
func TestNextInto(t *testing.T) {
	conll, err := readEmbedded("conll2000/test.txt.gz")
	require.NoError(t, err)
	for _, tc := range []struct {
		in   []byte
		opts Options
	}{
		{conll, Options{Format: CoNLL}},
		{conll, Options{Format: CoNLL, Labeled: true}},
		{[]byte("a b\nc d\n\ne f g\n"), Options{Format: Text}},
		{[]byte("B-NP w=a x\nO w=b\n\nO w=c\n"), Options{Format: CRFsuite, Labeled: true}},
	} {
		want, err := Read("f", bytes.NewReader(tc.in), tc.opts)
		require.NoError(t, err)
		kept := make([]Example, len(want))
		for i, ex := range want {
			kept[i] = ex
			kept[i].Text = append([]string(nil), ex.Text...)
			kept[i].Labels = append([]string(nil), ex.Labels...)
			kept[i].Tokens = nil
			for _, row := range ex.Tokens {
				kept[i].Tokens = append(kept[i].Tokens, append([]string(nil), row...))
			}
		}
		r, err := NewReader("f", bytes.NewReader(tc.in), tc.opts)
		require.NoError(t, err)
		var b Buffer
		k := 0
		for ; r.NextInto(&b); k++ {
			require.Equal(t, want[k], r.Example(), "%s: example %d", tc.opts.Format, k)
		}
		require.NoError(t, r.Err())
		require.Equal(t, len(want), k)
		for i := range want {
			if want[i].Labels == nil {
				kept[i].Labels = nil
			}
			if want[i].Tokens == nil {
				kept[i].Tokens = nil
			}
			require.Equal(t, kept[i], want[i], "example %d of Read changed", i)
		}
	}
}
