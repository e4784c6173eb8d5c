package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTrainCache: --cache writes the encoded corpus on the first run and
// reads it on the next, training the same model bytes as the text path
// (also when the run resumes from a checkpoint); a change of the data, the template or an option that shapes the
// encoding (--min-freq) rebuilds it; a corrupt cache is an error (exit 1,
// no model), not a wrong model; --select-folds refuses it.
func TestTrainCache(t *testing.T) {
	dir := t.TempDir()
	data := writeDominantCoNLL(t, dir, "train", 120, "NP")
	cache := filepath.Join(dir, "c.cache")
	tmpl := filepath.Join(dir, "t.template")
	require.NoError(t, os.WriteFile(tmpl, []byte("U00:%x[0,0]\nU01:%x[-1,0]\nB\n"), 0o644))
	train := func(model string, extra ...string) (string, int) {
		t.Helper()
		args := append([]string{"train", "--format", "conll", "--template", tmpl, "--c1", "1", "--c2", "1", "--max-iter", "5",
			"--model", filepath.Join(dir, model)}, extra...)
		_, errs, code := runTagger(t, append(args, data)...)
		return errs, code
	}
	same := func(a, b string) {
		t.Helper()
		x, err := os.ReadFile(filepath.Join(dir, a))
		require.NoError(t, err)
		y, err := os.ReadFile(filepath.Join(dir, b))
		require.NoError(t, err)
		assert.True(t, bytes.Equal(x, y), "%s and %s differ", a, b)
	}
	errs, code := train("text.model")
	require.Zero(t, code, errs)
	errs, code = train("first.model", "--cache", cache)
	require.Zero(t, code, errs)
	assert.Contains(t, errs, "wrote the cache")
	errs, code = train("second.model", "--cache", cache)
	require.Zero(t, code, errs)
	assert.Contains(t, errs, "from the cache")
	same("text.model", "first.model")
	same("text.model", "second.model")

	// A resumed run reads the cache too, and reaches the model of the same
	// resume from the text, which is the uninterrupted run's.
	ckpt, ckpt2 := filepath.Join(dir, "c.ckpt"), filepath.Join(dir, "c2.ckpt")
	errs, code = train("kept.model", "--cache", cache, "--checkpoint", ckpt, "--checkpoint-every", "2", "--keep-checkpoint")
	require.Zero(t, code, errs)
	b, err := os.ReadFile(ckpt)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(ckpt2, b, 0o644))
	errs, code = train("resumed.model", "--cache", cache, "--checkpoint", ckpt, "--resume")
	require.Zero(t, code, errs)
	assert.Contains(t, errs, "from the cache")
	assert.Contains(t, errs, "resuming from "+ckpt)
	errs, code = train("resumed-text.model", "--checkpoint", ckpt2, "--resume")
	require.Zero(t, code, errs)
	assert.Contains(t, errs, "resuming from "+ckpt2)
	same("resumed-text.model", "resumed.model")
	same("text.model", "resumed.model") // and the uninterrupted run's

	// Invalidation: another option, another template, other data.
	errs, code = train("minfreq.model", "--cache", cache, "--min-freq", "2")
	require.Zero(t, code, errs)
	assert.Contains(t, errs, "wrote the cache", "--min-freq shapes the encoding")
	require.NoError(t, os.WriteFile(tmpl, []byte("U00:%x[0,0]\nB\n"), 0o644))
	errs, code = train("tmpl.model", "--cache", cache)
	require.Zero(t, code, errs)
	assert.Contains(t, errs, "wrote the cache", "the template changed")
	b, err = os.ReadFile(data)
	require.NoError(t, err)
	half := bytes.LastIndex(b[:len(b)/2], []byte("\n\n")) + 2 // whole sentences
	require.NoError(t, os.WriteFile(data, b[:half], 0o644))
	errs, code = train("data.model", "--cache", cache)
	require.Zero(t, code, errs)
	assert.Contains(t, errs, "wrote the cache", "the data changed")
	errs, code = train("again.model", "--cache", cache)
	require.Zero(t, code, errs)
	assert.Contains(t, errs, "from the cache")

	// Corruption: one byte of the payload.
	c, err := os.ReadFile(cache)
	require.NoError(t, err)
	c[len(c)/2] ^= 1
	require.NoError(t, os.WriteFile(cache, c, 0o644))
	errs, code = train("corrupt.model", "--cache", cache)
	assert.Equal(t, 1, code, errs)
	assert.Contains(t, errs, "corrupt corpus cache")
	assert.NoFileExists(t, filepath.Join(dir, "corrupt.model"))

	_, code = train("folds.model", "--cache", cache, "--select-folds", "2")
	assert.Equal(t, 2, code)
}
