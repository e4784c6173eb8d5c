package corpuscache

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sparsetag/sparsetag/features"
	"github.com/sparsetag/sparsetag/sparse"
)

// testEntry is a small entry: two sequences (2 and 1 positions), unary
// rows with values, no pair attributes.
func testEntry() *Entry {
	return &Entry{
		Kind: features.KindTemplate, Template: "U00:%x[0,0]\nB\n",
		Unary: []string{"U00:a", "U00:b", "U00:c"}, Pair: []string{}, Labels: []string{"B-NP", "O"},
		Corpus: &sparse.Corpus{
			SeqPtr: []int32{0, 2, 3},
			Unary:  sparse.Matrix{RowPtr: []int32{0, 2, 3, 4}, Col: []int32{0, 2, 1, 2}, Val: []float64{1, 0.5, 2, -1}},
			Pair:   sparse.Matrix{RowPtr: []int32{}, Col: []int32{}},
			Labels: []int32{0, 1, 1}, NumUnary: 3,
		},
	}
}

// TestRoundTrip: what Write wrote under a key, Read returns under it.
func TestRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.cache")
	key := NewKey([]byte("data"), []byte("template"))
	want := testEntry()
	require.NoError(t, Write(path, key, want))
	got, err := Read(path, key)
	require.NoError(t, err)
	assert.Equal(t, want, got)
	enc, err := got.Encoder()
	require.NoError(t, err)
	assert.Equal(t, 3, enc.Unary().Len())
	assert.Equal(t, "U00:c", enc.Unary().Name(2))
}

// TestDenseRefused: a corpus with dense blocks is an error, not a cache
// that silently loses the word vectors, and no file is written.
func TestDenseRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.cache")
	e := testEntry()
	e.Corpus.Dense = []sparse.Dense{{D: 1, Table: []float64{0.5}, Attrs: []int32{0}, Word: []int32{0, -1, 0}}}
	err := Write(path, NewKey([]byte("data")), e)
	require.ErrorContains(t, err, "dense blocks")
	_, err = os.Stat(path)
	assert.True(t, errors.Is(err, fs.ErrNotExist), "no file written: %v", err)
}

// TestStale: another key (other data, template or options) or version is
// stale, not an error to stop on; a missing file is fs.ErrNotExist.
func TestStale(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.cache")
	require.NoError(t, Write(path, NewKey([]byte("data"), []byte("t")), testEntry()))
	for _, k := range []Key{NewKey([]byte("data2"), []byte("t")), NewKey([]byte("data"), []byte("t2")), NewKey([]byte("datat")), NewKey([]byte("dat"), []byte("at"))} {
		_, err := Read(path, k)
		assert.ErrorIs(t, err, ErrStale)
	}
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	b[len(magic)]++ // the version
	require.NoError(t, os.WriteFile(path, b, 0o644))
	_, err = Read(path, NewKey([]byte("data"), []byte("t")))
	assert.ErrorIs(t, err, ErrStale)
	_, err = Read(filepath.Join(t.TempDir(), "none"), Key{})
	assert.True(t, errors.Is(err, fs.ErrNotExist), "%v", err)
}

// TestCorrupt: every single-byte change of the payload or its checksum,
// and every truncation, is an error (never ErrStale, never a corpus);
// a payload with a consistent checksum but a bad shape is one too.
func TestCorrupt(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.cache")
	key := NewKey([]byte("data"))
	require.NoError(t, Write(path, key, testEntry()))
	good, err := os.ReadFile(path)
	require.NoError(t, err)
	check := func(what string, b []byte) {
		t.Helper()
		require.NoError(t, os.WriteFile(path, b, 0o644))
		e, err := Read(path, key)
		if assert.Error(t, err, what) {
			assert.NotErrorIs(t, err, ErrStale, what)
		}
		assert.Nil(t, e, what)
	}
	for i := header; i < len(good); i++ {
		b := append([]byte(nil), good...)
		b[i] ^= 0x40
		check("flipped byte", b)
	}
	for n := 0; n < len(good); n += 7 {
		check("truncated", good[:n])
	}
	check("bad magic", append([]byte("XTCORPUS"), good[len(magic):]...))
	check("trailing bytes", append(append([]byte(nil), good...), 0))

	bad := testEntry()
	bad.Corpus.Unary.Col[0] = 7 // no such attribute
	require.NoError(t, Write(path, key, bad))
	_, err = Read(path, key)
	assert.ErrorContains(t, err, "attribute id")
	bad = testEntry()
	bad.Corpus.Labels[0] = 2 // no such label
	require.NoError(t, Write(path, key, bad))
	_, err = Read(path, key)
	assert.ErrorContains(t, err, "label id")
}

// TestWeightsRoundTrip: the data's sequence weights come back as written
// (nil stays nil: TestRoundTrip), and weights of the wrong count or not
// above 0 make the file corrupt.
func TestWeightsRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.cache")
	key := NewKey([]byte("weights"))
	want := testEntry()
	want.Weights = []float64{5, 0.25}
	require.NoError(t, Write(path, key, want))
	got, err := Read(path, key)
	require.NoError(t, err)
	assert.Equal(t, want.Weights, got.Weights)
	for _, bad := range [][]float64{{1}, {1, 0}, {1, -2}} {
		e := testEntry()
		e.Weights = bad
		require.NoError(t, Write(path, key, e))
		_, err := Read(path, key)
		require.ErrorContains(t, err, "corrupt", "weights %v", bad)
	}
}

// TestDecode: Decode of a file's bytes is Read of the file, and a flipped
// byte of the payload is an error naming the source.
func TestDecode(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.cache")
	key := NewKey([]byte("data"))
	require.NoError(t, Write(path, key, testEntry()))
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	got, err := Decode("side input", b, key)
	require.NoError(t, err)
	assert.Equal(t, testEntry(), got)
	_, err = Decode("side input", b, NewKey([]byte("other")))
	assert.ErrorIs(t, err, ErrStale)
	b[header+3] ^= 1
	_, err = Decode("side input", b, key)
	require.Error(t, err)
	assert.NotErrorIs(t, err, ErrStale)
	assert.Contains(t, err.Error(), "side input")
}

// TestTrainKey: every argument of TrainKey changes the key, and the same
// arguments give the same key.
func TestTrainKey(t *testing.T) {
	base := func() Key { return TrainKey("conll", "", -1, 1, []byte("U00:%x[0,0]\n"), []byte("a B\n")) }
	assert.Equal(t, base(), base())
	for name, k := range map[string]Key{
		"format":       TrainKey("conllu", "", -1, 1, []byte("U00:%x[0,0]\n"), []byte("a B\n")),
		"folds":        TrainKey("conll", "1-9", -1, 1, []byte("U00:%x[0,0]\n"), []byte("a B\n")),
		"label column": TrainKey("conll", "", 2, 1, []byte("U00:%x[0,0]\n"), []byte("a B\n")),
		"min freq":     TrainKey("conll", "", -1, 2, []byte("U00:%x[0,0]\n"), []byte("a B\n")),
		"template":     TrainKey("conll", "", -1, 1, nil, []byte("a B\n")),
		"data":         TrainKey("conll", "", -1, 1, []byte("U00:%x[0,0]\n"), []byte("a O\n")),
	} {
		assert.NotEqual(t, base(), k, name)
	}
}

// TestEntryModel: the model layout of an entry has its labels and
// dictionaries and zero weights, and the corpus is the entry's.
func TestEntryModel(t *testing.T) {
	e := testEntry()
	m, c, err := e.Model()
	require.NoError(t, err)
	assert.Same(t, e.Corpus, c)
	assert.Equal(t, e.Labels, m.Labels)
	assert.Equal(t, len(e.Unary), m.Layout.NumUnary)
	assert.Equal(t, e.Unary, m.Encoder.Unary().Names())
	assert.Zero(t, m.NonZero())
}
