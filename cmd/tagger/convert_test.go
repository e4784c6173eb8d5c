package main

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sparsetag/sparsetag/peer"
	"github.com/sparsetag/sparsetag/tagging"
)

// TestConvert converts the CRFsuite fixture model and checks that eval
// with the converted model prints exactly what eval with the CRFsuite model
// prints; a CRF++ model is refused (exit 1, the reason named) and missing
// flags are a usage error.
func TestConvert(t *testing.T) {
	out := filepath.Join(t.TempDir(), "conv.model")
	stdout, errs, code := runTagger(t, "convert", "--model", "../../peer/testdata/conll.crfsuite.gz", "--out", out)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, stdout, "converted CRFsuite model")
	// The count the command prints is the peer model's own count of
	// non-zero weights.
	pm, err := tagging.LoadWeights("../../peer/testdata/conll.crfsuite.gz")
	require.NoError(t, err)
	nonZero := 0
	require.NoError(t, pm.Weights(func(w peer.Weight) error {
		if w.Value != 0 {
			nonZero++
		}
		return nil
	}))
	assert.Contains(t, stdout, fmt.Sprintf(" %d non-zero weights", nonZero))

	want, errs, code := runTagger(t, "eval", "--model", "../../peer/testdata/conll.crfsuite.gz", "../../peer/testdata/test.crfsuite.gz")
	require.Equal(t, 0, code, errs)
	got, errs, code := runTagger(t, "eval", "--format", "crfsuite", "--model", out, "../../peer/testdata/test.crfsuite.gz")
	require.Equal(t, 0, code, errs)
	assert.Equal(t, want, got)

	_, errs, code = runTagger(t, "convert", "--model", "../../peer/testdata/conll.crfpp.gz", "--out", filepath.Join(t.TempDir(), "x.model"))
	assert.Equal(t, 1, code)
	assert.Contains(t, errs, "cannot be converted exactly")
	_, _, code = runTagger(t, "convert", "--model", "../../peer/testdata/conll.crfpp.gz")
	assert.Equal(t, 2, code)
}
