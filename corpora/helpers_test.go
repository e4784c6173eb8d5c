package corpora

import (
	"bytes"
	"compress/gzip"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// wantParseError checks that err is a *ParseError for file at line (and at
// col when col > 0) wrapping sentinel.
func wantParseError(t *testing.T, err error, sentinel error, file string, line, col int) *ParseError {
	t.Helper()
	require.Error(t, err, "want %v", sentinel)
	var pe *ParseError
	require.ErrorAs(t, err, &pe)
	assert.ErrorIs(t, err, sentinel)
	assert.Equal(t, file, pe.File, "file of error %q", err)
	assert.Equal(t, line, pe.Line, "line of error %q", err)
	if col > 0 {
		assert.Equal(t, col, pe.Column, "column of error %q", err)
	}
	return pe
}

// gz compresses b.
func gz(t testing.TB, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	if _, err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
