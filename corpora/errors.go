package corpora

import (
	"errors"
	"fmt"
)

// Sentinel errors. A reader reports them wrapped in a [*ParseError] that names
// the file, line and column; test for them with [errors.Is].
var (
	// ErrFieldCount: a line has the wrong number of columns or fields.
	ErrFieldCount = errors.New("corpora: wrong number of fields")
	// ErrMissingLabel: a labeled reader found a position without a label.
	ErrMissingLabel = errors.New("corpora: missing label")
	// ErrBadValue: a field that must be a number (or a pixel, a letter)
	// does not parse, or is NaN or infinite.
	ErrBadValue = errors.New("corpora: bad value")
	// ErrLineTooLong: a line is longer than the reader's MaxLineBytes.
	ErrLineTooLong = errors.New("corpora: line too long")
	// ErrInvalidUTF8: a line is not valid UTF-8.
	ErrInvalidUTF8 = errors.New("corpora: invalid UTF-8")
	// ErrEmpty: the input holds no sequence (or no word) at all.
	ErrEmpty = errors.New("corpora: no data")
	// ErrSyntax: any other malformed construct (a bad escape in a CRFsuite
	// attribute, an out-of-order CoNLL-U token ID, ...).
	ErrSyntax = errors.New("corpora: syntax error")
	// ErrBrokenChain: OCR letters whose next_id links do not form simple
	// chains (unknown target, two letters pointing to one, a cycle, or a
	// word whose letters disagree on word_id or fold).
	ErrBrokenChain = errors.New("corpora: broken next_id chain")
)

// ParseError reports malformed input with its position, in the manner of
// encoding/csv's ParseError. Line and Column are 1-based; Column counts bytes
// and is 0 when the error concerns a whole line or the whole file.
type ParseError struct {
	File   string // name given to the reader; "<input>" if empty
	Line   int    // line of the error
	Column int    // byte column of the error, 0 if unknown
	Err    error  // what was wrong; errors.Is matches the sentinels above
}

// Error returns "file:line:col: msg", or "file:line: msg" when Column is 0.
func (e *ParseError) Error() string {
	file := e.File
	if file == "" {
		file = "<input>"
	}
	if e.Column > 0 {
		return fmt.Sprintf("%s:%d:%d: %v", file, e.Line, e.Column, e.Err)
	}
	return fmt.Sprintf("%s:%d: %v", file, e.Line, e.Err)
}

// Unwrap returns the underlying error.
func (e *ParseError) Unwrap() error { return e.Err }

// detailError is a sentinel plus a precise message such as "expected 3
// columns, got 2". Its text is only the message: the position and the message
// say enough, and errors.Is still finds the sentinel.
type detailError struct {
	kind error
	msg  string
}

func (e *detailError) Error() string { return e.msg }
func (e *detailError) Unwrap() error { return e.kind }

// errorf builds a detailError.
func errorf(kind error, format string, args ...any) error {
	return &detailError{kind: kind, msg: fmt.Sprintf(format, args...)}
}
