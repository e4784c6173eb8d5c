package tagging

import (
	"bufio"
	"bytes"
	"github.com/sparsetag/sparsetag/corpora"
	"github.com/sparsetag/sparsetag/features"
	"io"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/dataset"
)

// fixtureLabels returns the last whitespace-separated field of every
// non-blank line of a gzipped fixture.
func fixtureLabels(t *testing.T, path string) []string {
	t.Helper()
	b, err := readFixture(path)
	require.NoError(t, err)
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) > 0 {
			out = append(out, f[len(f)-1])
		}
	}
	return out
}

// readFixture returns the contents of the file at path, gunzipped, or of
// the embedded corpus file "embedded:NAME".
func readFixture(path string) ([]byte, error) {
	if name, ok := strings.CutPrefix(path, "embedded:"); ok {
		rc, err := corpora.OpenEmbedded(name)
		if err != nil {
			return nil, err
		}
		defer rc.Close()
		return io.ReadAll(rc)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return gunzip(path, b)
}

// stream runs Stream over the file at path.
func stream(t *testing.T, m Tagger, path string, opts dataset.Options, o StreamOptions) string {
	t.Helper()
	b, err := readFixture(path)
	require.NoError(t, err)
	r, err := dataset.NewReader(path, bytes.NewReader(b), opts)
	require.NoError(t, err)
	var out bytes.Buffer
	require.NoError(t, Stream(&out, m, r, o))
	return out.String()
}

// TestStreamTagsAsTheTools: the labels Stream writes for the 200 fixture
// sentences are those each tool's own tagger printed (crf_test, wapiti
// label, crfsuite tag), on several goroutines, in input order.
func TestStreamTagsAsTheTools(t *testing.T) {
	for _, c := range []struct{ model, input, printed string }{
		{"../peer/testdata/conll.crfpp.gz", "../peer/testdata/test.txt.gz", "../peer/testdata/crfpp.labels.gz"},
		{"../peer/testdata/conll.wapiti.gz", "../peer/testdata/test.txt.gz", "../peer/testdata/wapiti.labels.gz"},
		{"../peer/testdata/conll.crfsuite.gz", "../peer/testdata/test.crfsuite.gz", "../peer/testdata/crfsuite.tags.gz"},
	} {
		m, err := Load(c.model)
		require.NoError(t, err)
		opts := dataset.Options{Format: m.Reads().Format}
		out := stream(t, m, c.input, opts, StreamOptions{Output: CoNLL, Threads: 3})
		var got []string
		for _, l := range strings.Split(out, "\n") {
			if f := strings.Fields(l); len(f) > 0 {
				got = append(got, f[len(f)-1])
			}
		}
		require.Equal(t, fixtureLabels(t, c.printed), got, c.model)
	}
}

// TestStreamThreads: the output does not depend on the number of
// goroutines, in every output format, with n-best lists and marginals.
func TestStreamThreads(t *testing.T) {
	m, err := Load("../peer/testdata/conll.crfpp.gz")
	require.NoError(t, err)
	opts := dataset.Options{Format: dataset.CoNLL}
	for _, o := range []StreamOptions{
		{Output: CoNLL, Decode: chain.DecodeOptions{N: 2, Posterior: true}, Marginals: true},
		{Output: Slash, Decode: chain.DecodeOptions{N: 3, Posterior: true}},
		{Output: JSON, Decode: chain.DecodeOptions{Posterior: true}},
	} {
		o.Threads = 1
		want := stream(t, m, "../peer/testdata/test.txt.gz", opts, o)
		require.NotEmpty(t, want)
		o.Threads = 4
		require.Equal(t, want, stream(t, m, "../peer/testdata/test.txt.gz", opts, o), o.Output)
	}
}

// TestWriter: a Writer writes one sequence and keeps its best path; an
// error writes nothing.
func TestWriter(t *testing.T) {
	m, err := Load("../peer/testdata/conll.wapiti.gz")
	require.NoError(t, err)
	ex := dataset.Example{Tokens: [][]string{{"He", "PRP"}, {"reckons", "VBZ"}}, Text: []string{"He", "reckons"}}
	var buf bytes.Buffer
	w := bufio.NewWriter(&buf)
	tw := NewWriter(m, StreamOptions{Output: Slash})
	require.NoError(t, tw.Write(w, &ex, 0))
	require.NoError(t, w.Flush())
	best := tw.Best()
	require.Len(t, best, 2)
	assert.Equal(t, "He/"+m.Labels()[best[0]]+" reckons/"+m.Labels()[best[1]]+"\n", buf.String())

	buf.Reset()
	tw = NewWriter(m, StreamOptions{Output: "xml"})
	require.ErrorContains(t, tw.Write(w, &ex, 0), "unknown output format")
	require.NoError(t, w.Flush())
	assert.Zero(t, buf.Len())
}

// TestCapabilities: every model supports every capability: a peer
// model decodes under constraints and fixed labels on its score lattice
// (valid BIO output, the fixed label kept); Require names what a model
// lacks.
func TestCapabilities(t *testing.T) {
	pm, err := Load("../peer/testdata/conll.crfpp.gz")
	require.NoError(t, err)
	assert.True(t, pm.Supports(NBest|Posterior|Constrained|Forced|Explanation))
	require.NoError(t, Require(pm, Constrained|Forced|NBest|Explanation))
	ue := &UnsupportedError{Format: "CRF++ binary", Need: Constrained | Forced}
	assert.EqualError(t, ue, "tagging: not supported by the model: a CRF++ binary model does not support constrained decoding, forced decoding")

	ex := dataset.Example{Tokens: [][]string{{"He", "PRP"}, {"reckons", "VBZ"}, {"the", "DT"}, {"deficit", "NN"}}}
	var d chain.Decoding
	iNP := slices.Index(pm.Labels(), "I-NP")
	require.GreaterOrEqual(t, iNP, 0)
	require.NoError(t, pm.Decode(&d, &ex, chain.DecodeOptions{Fixed: []int{-1, -1, iNP, -1}}))
	assert.Equal(t, iNP, d.Paths[0][2])
	bio := chain.BIOConstraints(pm.Labels())
	require.NoError(t, pm.Decode(&d, &ex, chain.DecodeOptions{Fixed: []int{-1, -1, iNP, -1}, Constraints: bio}))
	labels := pm.Labels()
	assert.Equal(t, "I-NP", labels[d.Paths[0][2]])
	assert.Contains(t, []string{"B-NP", "I-NP"}, labels[d.Paths[0][1]], "I-NP must follow an NP label under BIO")

	data, err := os.ReadFile("../chain/testdata/fixed-encoder-v2.model")
	require.NoError(t, err)
	ours, err := Read("ours", bytes.NewReader(data))
	require.NoError(t, err)
	assert.True(t, ours.Supports(NBest|Posterior|Constrained|Forced|Explanation))
	assert.Equal(t, FormatOurs, ours.Format())
}

// TestCheckInput: a peer model reads its one format (chosen for it when
// --format was not set); ours reads the formats of its kind.
func TestCheckInput(t *testing.T) {
	pm, err := Load("../peer/testdata/conll.crfsuite.gz")
	require.NoError(t, err)
	assert.Equal(t, Reads{Kind: features.KindAttributes, Format: dataset.CRFsuite}, pm.Reads())
	f, err := CheckInput(pm, dataset.CoNLL, false, true)
	require.NoError(t, err)
	assert.Equal(t, dataset.CRFsuite, f)
	_, err = CheckInput(pm, dataset.CoNLL, true, true)
	var fe *FormatError
	require.ErrorAs(t, err, &fe)
	assert.EqualError(t, err, "--format conll does not fit this CRFsuite model, which reads crfsuite input")

	m, err := chain.NewModel([]string{"a"}, 1, 0, false, nil)
	require.NoError(t, err)
	_, err = CheckInput(NewTagger(chain.NewTagger(m)), dataset.CoNLL, true, true)
	assert.ErrorIs(t, err, chain.ErrNoEncoder)
}

// TestRead checks that Read reads what Load reads (gzipped peer
// models and an uncompressed one) and names the input in its errors.
func TestRead(t *testing.T) {
	for _, path := range []string{"../peer/testdata/conll.crfpp.gz", "../peer/testdata/conll.wapiti.gz", "../chain/testdata/fixed-v2.model"} {
		want, err := Load(path)
		require.NoError(t, err, path)
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		got, err := Read(path, bytes.NewReader(data))
		require.NoError(t, err, path)
		require.Equal(t, want.Labels(), got.Labels(), path)
		require.Equal(t, want.Format(), got.Format(), path)
	}
	_, err := Read("junk.model", bytes.NewReader([]byte("not a model at all")))
	require.ErrorContains(t, err, "junk.model")
	_, err = Read("trunc.gz", bytes.NewReader([]byte{0x1f, 0x8b, 1}))
	require.ErrorContains(t, err, "trunc.gz")
}
