package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestModelFormatCRFsuite: train --model-format crfsuite writes the bytes
// convert --to crfsuite writes from the same model in our format, and eval
// prints the same with either file; models CRFsuite cannot express are
// refused, before training for train.
func TestModelFormatCRFsuite(t *testing.T) {
	dir := t.TempDir()
	data := "../../peer/testdata/test.crfsuite.gz"
	ours, crfs, conv := filepath.Join(dir, "a.model"), filepath.Join(dir, "a.crfsuite"), filepath.Join(dir, "b.crfsuite")
	_, errs, code := runTagger(t, "train", "--quiet", "--format", "crfsuite", "--max-iter", "10", "--model", ours, data)
	require.Equal(t, 0, code, errs)
	_, errs, code = runTagger(t, "train", "--quiet", "--format", "crfsuite", "--max-iter", "10", "--model-format", "crfsuite", "--model", crfs, data)
	require.Equal(t, 0, code, errs)
	stdout, errs, code := runTagger(t, "convert", "--to", "crfsuite", "--model", ours, "--out", conv)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, stdout, "-> CRFsuite model")
	a, err := os.ReadFile(crfs)
	require.NoError(t, err)
	b, err := os.ReadFile(conv)
	require.NoError(t, err)
	assert.True(t, bytes.HasPrefix(a, []byte("lCRF")))
	assert.True(t, bytes.Equal(a, b), "train --model-format crfsuite and convert --to crfsuite wrote different bytes")

	want, errs, code := runTagger(t, "eval", "--format", "crfsuite", "--model", ours, data)
	require.Equal(t, 0, code, errs)
	got, errs, code := runTagger(t, "eval", "--model", crfs, data)
	require.Equal(t, 0, code, errs)
	assert.Equal(t, want, got)

	// Round trip back to ours: the CRFsuite file converts to a model
	// that evaluates alike.
	back := filepath.Join(dir, "back.model")
	_, errs, code = runTagger(t, "convert", "--model", crfs, "--out", back)
	require.Equal(t, 0, code, errs)
	got, errs, code = runTagger(t, "eval", "--format", "crfsuite", "--model", back, data)
	require.Equal(t, 0, code, errs)
	assert.Equal(t, want, got)

	// Refusals: a template model, before training (usage, exit 2) and in
	// convert (exit 1, the reason named); an unknown format.
	_, errs, code = runTagger(t, "train", "--model-format", "crfsuite", "--model", filepath.Join(dir, "x"), "embedded:conll2000/test.txt.gz")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "needs --format crfsuite")
	tm := filepath.Join(dir, "t.model")
	_, errs, code = runTagger(t, "train", "--quiet", "--max-iter", "2", "--model", tm, "../../peer/testdata/test.txt.gz")
	require.Equal(t, 0, code, errs)
	_, errs, code = runTagger(t, "convert", "--to", "crfsuite", "--model", tm, "--out", filepath.Join(dir, "t.crfsuite"))
	assert.Equal(t, 1, code)
	assert.Contains(t, errs, "CRFsuite models read name:value attributes only")
	_, err = os.Stat(filepath.Join(dir, "t.crfsuite"))
	assert.True(t, os.IsNotExist(err))
	_, _, code = runTagger(t, "convert", "--to", "wapiti", "--model", tm, "--out", filepath.Join(dir, "t.w"))
	assert.Equal(t, 2, code)
}
