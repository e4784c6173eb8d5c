package clifile

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sparsetag/sparsetag/dataset"
	"github.com/sparsetag/sparsetag/features"
)

const toyCoNLL = "He PRP B-NP\nreckons VBZ B-VP\n\nThe DT B-NP\ndog NN I-NP\n"

func TestOpenEmbeddedModels(t *testing.T) {
	names := EmbeddedNames()
	assert.Contains(t, names, "conll2000/train.txt.gz")
	assert.Contains(t, names, "models/en-pos.model")
	assert.Contains(t, names, "models/en-chunk.model")
	b, err := ReadAll("embedded:models/en-pos.template")
	require.NoError(t, err)
	assert.Contains(t, string(b), "U18:%s[0,0,4]")
	_, err = Open("embedded:models/nope.model", nil)
	assert.ErrorContains(t, err, `no embedded model "nope.model"`)
	_, err = Open("-", nil)
	assert.Error(t, err, "stdin without a reader")
}

// TestOpenReaderStops: a Reader of OpenReader stops with the context's
// error once the context is done.
func TestOpenReaderStops(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	r, c, err := OpenReader(ctx, "-", strings.NewReader(toyCoNLL), dataset.Options{Format: dataset.CoNLL, Labeled: true})
	require.NoError(t, err)
	defer c.Close()
	cancel()
	assert.False(t, r.Next())
	assert.ErrorIs(t, r.Err(), context.Canceled)

	r, c, err = OpenReader(context.Background(), "-", strings.NewReader(toyCoNLL), dataset.Options{Format: dataset.CoNLL, Labeled: true})
	require.NoError(t, err)
	defer c.Close()
	n := 0
	for r.Next() {
		n++
	}
	assert.NoError(t, r.Err())
	assert.Equal(t, 2, n)
}

func TestNewEncoder(t *testing.T) {
	dir := t.TempDir()
	tmpl := filepath.Join(dir, "t.template")
	require.NoError(t, os.WriteFile(tmpl, []byte("U00:%x[0,1]\n"), 0o644))
	enc, err := NewEncoder(dataset.CoNLL, tmpl)
	require.NoError(t, err)
	assert.Equal(t, 2, enc.Template().Columns())

	bad := filepath.Join(dir, "bad.template")
	require.NoError(t, os.WriteFile(bad, []byte("U00:%x[0\n"), 0o644))
	_, err = NewEncoder(dataset.CoNLL, bad)
	assert.ErrorContains(t, err, bad+":")

	empty := filepath.Join(dir, "empty.template")
	require.NoError(t, os.WriteFile(empty, []byte("# nothing\n"), 0o644))
	_, err = NewEncoder(dataset.CoNLL, empty)
	assert.ErrorContains(t, err, empty+": the template has no feature rule")

	_, err = NewEncoder(dataset.CRFsuite, tmpl)
	assert.ErrorContains(t, err, "--template applies to column formats")
	_, err = NewEncoder(dataset.OCR, "")
	assert.NoError(t, err)
	_, err = NewEncoder("embedded:conll2000/chunking.template", "")
	assert.Error(t, err)
	enc, err = NewEncoder(dataset.CoNLL, "embedded:conll2000/chunking.template") // gzip or not, read transparently
	require.NoError(t, err)
	assert.Equal(t, features.KindTemplate, enc.Kind())
}
