package tagging

import (
	"bufio"
	"bytes"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/dataset"
)

// TestWriterMatchesStream checks that a Writer over the sequences of an
// input, in order, writes exactly what Stream writes, for a CRF++ and a
// CRFsuite model (their own fixture inputs), in every output format and
// with marginals and n-best lists.
func TestWriterMatchesStream(t *testing.T) {
	cases := []struct {
		model, input string
		format       dataset.Format
		labeled      bool
	}{
		{"../peer/testdata/conll.crfpp.gz", "../peer/testdata/test.txt.gz", dataset.CoNLL, false},
		{"../peer/testdata/conll.crfsuite.gz", "../peer/testdata/test.crfsuite.gz", dataset.CRFsuite, true},
	}
	opts := []StreamOptions{
		{Output: CoNLL, Decode: chain.DecodeOptions{N: 1}},
		{Output: Slash, Decode: chain.DecodeOptions{N: 1}},
		{Output: JSON, Decode: chain.DecodeOptions{N: 3, Posterior: true}, Marginals: true},
	}
	for _, c := range cases {
		m, err := Load(c.model)
		require.NoError(t, err)
		input, err := dataset.ReadAll(c.input)
		require.NoError(t, err)
		for _, o := range opts {
			o.Threads = 2
			r, err := dataset.NewReader(c.input, bytes.NewReader(input), dataset.Options{Format: c.format, Labeled: c.labeled})
			require.NoError(t, err)
			var want bytes.Buffer
			require.NoError(t, Stream(&want, m, r, o))

			r, err = dataset.NewReader(c.input, bytes.NewReader(input), dataset.Options{Format: c.format, Labeled: c.labeled})
			require.NoError(t, err)
			var got bytes.Buffer
			w := bufio.NewWriter(&got)
			tw := NewWriter(m, o)
			for seq := 0; r.Next(); seq++ {
				ex := r.Example()
				require.NoError(t, tw.Write(w, &ex, seq))
				require.Len(t, tw.Best(), ex.Len())
			}
			require.NoError(t, r.Err())
			require.NoError(t, w.Flush())
			require.NotZero(t, want.Len())
			require.Equal(t, want.String(), got.String(), "%s, output %s", c.model, o.Output)
		}
	}
}

// TestLoadBytes checks that LoadBytes reads what Load reads (gzipped peer
// models and an uncompressed one) and names the input in its errors.
func TestLoadBytes(t *testing.T) {
	for _, path := range []string{"../peer/testdata/conll.crfpp.gz", "../peer/testdata/conll.wapiti.gz", "../chain/testdata/fixed-v2.model"} {
		want, err := Load(path)
		require.NoError(t, err, path)
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		got, err := LoadBytes(path, data)
		require.NoError(t, err, path)
		require.Equal(t, want.Labels(), got.Labels(), path)
		require.Equal(t, want.Format(), got.Format(), path)
	}
	_, err := LoadBytes("junk.model", []byte("not a model at all"))
	require.ErrorContains(t, err, "junk.model")
	_, err = LoadBytes("trunc.gz", []byte{0x1f, 0x8b, 1})
	require.ErrorContains(t, err, "trunc.gz")
}
