package corpora

import (
	"bytes"
	"compress/gzip"
	"errors"
	"math"
	"testing"
)

// wantParseError checks that err is a *ParseError for file at line (and at
// col when col > 0) wrapping sentinel.
func wantParseError(t *testing.T, err error, sentinel error, file string, line, col int) *ParseError {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want %v", sentinel)
	}
	var pe *ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("error %v (%T) is not a *ParseError", err, err)
	}
	if !errors.Is(err, sentinel) {
		t.Errorf("error %q does not wrap %v", err, sentinel)
	}
	if pe.File != file || pe.Line != line {
		t.Errorf("error %q at %s:%d, want %s:%d", err, pe.File, pe.Line, file, line)
	}
	if col > 0 && pe.Column != col {
		t.Errorf("error %q at column %d, want %d", err, pe.Column, col)
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

// within checks |got-want| <= tol with finite got (testify's InDelta passes
// on NaN, see style.md A16).
func within(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if math.IsNaN(got) || math.IsInf(got, 0) || math.Abs(got-want) > tol {
		t.Errorf("%s = %.6g, want %.6g ± %.3g", what, got, want, tol)
	}
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) || (a == nil) != (b == nil) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
