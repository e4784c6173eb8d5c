package rawtext

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
)

// DefaultMaxDocumentBytes is the longest document a Reader accepts when
// its options leave MaxDocumentBytes at 0.
const DefaultMaxDocumentBytes = 8 << 20

// Options configures a [Reader].
type Options struct {
	// PerInput reads the whole input as one document; otherwise each line
	// is a document (lines without a non-space character are skipped).
	PerInput bool
	// MaxDocumentBytes bounds a document; 0 means DefaultMaxDocumentBytes.
	// A longer one is an ErrTooLong error, and is never held whole.
	MaxDocumentBytes int
}

// Reader reads documents, one per line or one per input, in the manner of
// bufio.Scanner:
//
//	r := rawtext.NewReader(name, f, rawtext.Options{})
//	for r.Next() {
//		text, line := r.Text(), r.Line()
//	}
//	err := r.Err()
//
// Gzip input is decompressed, a UTF-8 byte order mark at the start is
// skipped and a line's CR LF break is a line break. Invalid UTF-8 and NUL
// bytes are ErrInvalidText errors naming the file, line and byte. An
// input without any document gives no document and no error.
type Reader struct {
	name string
	br   *bufio.Reader
	opts Options
	text string
	line int // line of the current document's start
	next int // line of the next unread line
	err  error
	done bool
	buf  []byte
}

// NewReader returns a Reader of r; name names it in errors.
func NewReader(name string, r io.Reader, opts Options) *Reader {
	if opts.MaxDocumentBytes <= 0 {
		opts.MaxDocumentBytes = DefaultMaxDocumentBytes
	}
	return &Reader{name: name, br: bufio.NewReaderSize(r, 64<<10), opts: opts, next: 1}
}

// Error is an error in a document: the input's name, the document's first
// line and, when known, the byte offset in the document.
type Error struct {
	File string
	Line int
	Err  error
}

func (e *Error) Error() string { return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err) }
func (e *Error) Unwrap() error { return e.Err }

// start detects gzip and skips a byte order mark, once.
func (r *Reader) start() error {
	if magic, _ := r.br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(r.br)
		if err != nil {
			return err
		}
		r.br = bufio.NewReaderSize(zr, 64<<10)
	}
	if bom, _ := r.br.Peek(3); bytes.Equal(bom, []byte("\xef\xbb\xbf")) {
		r.br.Discard(3)
	}
	return nil
}

// Next reads the next document and reports whether there was one.
func (r *Reader) Next() bool {
	if r.err != nil || r.done {
		return false
	}
	if r.next == 1 && r.line == 0 {
		if err := r.start(); err != nil {
			r.err = &Error{File: r.name, Line: 1, Err: err}
			return false
		}
	}
	for {
		r.line = r.next
		doc, err := r.read()
		if err != nil {
			r.err = &Error{File: r.name, Line: r.line, Err: err}
			return false
		}
		if doc == nil {
			r.done = true
			return false
		}
		if !blank(doc) {
			if err := CheckText(string(doc)); err != nil {
				r.err = &Error{File: r.name, Line: r.line, Err: err}
				return false
			}
			r.text = string(doc)
			return true
		}
		if r.opts.PerInput {
			r.done = true
			return false
		}
	}
}

// read reads one document (a line without its break, or the input), nil
// at the end of input.
func (r *Reader) read() ([]byte, error) {
	r.buf = r.buf[:0]
	max := r.opts.MaxDocumentBytes
	for {
		chunk, err := r.br.ReadSlice('\n')
		r.buf = append(r.buf, chunk...)
		if n := bytes.Count(chunk, []byte{'\n'}); n > 0 {
			r.next += n
		}
		if len(r.buf) > max+2 { // room for a CR LF
			return nil, fmt.Errorf("%w: more than %d bytes (raise the limit or split the input)", ErrTooLong, max)
		}
		switch {
		case err == nil && !r.opts.PerInput:
			doc := bytes.TrimSuffix(r.buf[:len(r.buf)-1], []byte{'\r'})
			return doc, nil
		case err == nil, errors.Is(err, bufio.ErrBufferFull):
			continue
		case err == io.EOF:
			if len(r.buf) == 0 {
				return nil, nil
			}
			if !r.opts.PerInput {
				return bytes.TrimSuffix(r.buf, []byte{'\r'}), nil
			}
			return r.buf, nil
		default:
			return nil, err
		}
	}
}

func blank(b []byte) bool { return len(bytes.TrimSpace(b)) == 0 }

// Text returns the document read by the last successful Next (without its
// line break, when documents are lines).
func (r *Reader) Text() string { return r.text }

// Line returns the line of the input where the last document read starts.
func (r *Reader) Line() int { return r.line }

// Err returns the first error met, nil at a clean end of input.
func (r *Reader) Err() error { return r.err }
