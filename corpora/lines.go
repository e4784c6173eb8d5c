package corpora

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"io"
	"unicode/utf8"
)

// DefaultMaxLineBytes is the longest line (without its line break) a reader
// accepts when its options leave MaxLineBytes at 0. A longer line is an
// ErrLineTooLong error; the reader never holds more than about this many
// bytes of one line in memory.
const DefaultMaxLineBytes = 1 << 20

// bufSize is the size of the bufio.Reader under every reader.
const bufSize = 64 << 10

// gzipMagic starts every gzip stream (RFC 1952, ID1 ID2).
var gzipMagic = []byte{0x1f, 0x8b}

// utf8BOM is skipped at the start of a file.
var utf8BOM = []byte{0xef, 0xbb, 0xbf}

// lineReader yields the lines of a possibly gzip-compressed stream, without
// the trailing "\n" or "\r\n", enforcing a maximum line length. The slice it
// returns is valid until the next call.
type lineReader struct {
	name    string
	src     io.Reader
	br      *bufio.Reader
	max     int
	line    int    // number of the line last returned
	long    []byte // accumulates lines longer than the bufio buffer
	err     error  // sticky *ParseError
	eof     bool
	started bool
}

func newLineReader(name string, r io.Reader, maxLine int) *lineReader {
	if maxLine <= 0 {
		maxLine = DefaultMaxLineBytes
	}
	return &lineReader{name: name, src: r, max: maxLine}
}

// fail records a sticky error at line:col.
func (lr *lineReader) fail(line, col int, err error) {
	if lr.err == nil {
		lr.err = &ParseError{File: lr.name, Line: line, Column: col, Err: err}
	}
}

// start sniffs the gzip magic and sets up the buffered reader.
func (lr *lineReader) start() {
	lr.started = true
	br := bufio.NewReaderSize(lr.src, bufSize)
	head, err := br.Peek(2)
	if err != nil && err != io.EOF {
		lr.fail(1, 0, err)
		return
	}
	if bytes.Equal(head, gzipMagic) {
		gz, err := gzip.NewReader(br)
		if err != nil {
			lr.fail(1, 0, err)
			return
		}
		br = bufio.NewReaderSize(gz, bufSize)
	}
	lr.br = br
}

// next returns the next line. It returns false at the end of the input or on
// an error, which lr.err then holds.
func (lr *lineReader) next() ([]byte, bool) {
	if !lr.started {
		lr.start()
	}
	if lr.err != nil || lr.eof {
		return nil, false
	}
	lr.long = lr.long[:0]
	for {
		chunk, err := lr.br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			// +2 leaves room for a "\r\n" that is not part of the line.
			if len(lr.long)+len(chunk) > lr.max+2 {
				lr.fail(lr.line+1, lr.max+1, errorf(ErrLineTooLong, "line longer than %d bytes", lr.max))
				return nil, false
			}
			lr.long = append(lr.long, chunk...)
			continue
		}
		if err != nil && err != io.EOF {
			lr.fail(lr.line+1, 0, err)
			return nil, false
		}
		if err == io.EOF {
			lr.eof = true
			if len(chunk) == 0 && len(lr.long) == 0 {
				return nil, false
			}
		}
		line := chunk
		if len(lr.long) > 0 {
			lr.long = append(lr.long, chunk...)
			line = lr.long
		}
		lr.line++
		line = bytes.TrimSuffix(line, []byte{'\n'})
		line = bytes.TrimSuffix(line, []byte{'\r'})
		if len(line) > lr.max {
			lr.fail(lr.line, lr.max+1, errorf(ErrLineTooLong, "line longer than %d bytes", lr.max))
			return nil, false
		}
		if lr.line == 1 {
			line = bytes.TrimPrefix(line, utf8BOM)
		}
		if i := bytes.IndexByte(line, '\r'); i >= 0 {
			lr.fail(lr.line, i+1, errorf(ErrSyntax, "carriage return inside a line (only LF and CRLF line ends are supported)"))
			return nil, false
		}
		return line, true
	}
}

// checkUTF8 returns the 1-based byte column of the first invalid UTF-8
// sequence in line, or 0 if line is valid.
func checkUTF8(line []byte) int {
	if utf8.Valid(line) {
		return 0
	}
	for i := 0; i < len(line); {
		r, n := utf8.DecodeRune(line[i:])
		if r == utf8.RuneError && n <= 1 {
			return i + 1
		}
		i += n
	}
	return 0
}

// span is a field [start, end) of a line, in bytes.
type span struct{ start, end int }

// splitColumns appends to dst the non-empty fields of line separated by runs
// of spaces and tabs, testing the two bytes inline (no call per byte).
func splitColumns(dst []span, line []byte) []span {
	start := -1
	for i, c := range line {
		if c == ' ' || c == '\t' {
			if start >= 0 {
				dst = append(dst, span{start, i})
				start = -1
			}
		} else if start < 0 {
			start = i
		}
	}
	if start >= 0 {
		dst = append(dst, span{start, len(line)})
	}
	return dst
}

// splitExact appends to dst every field of line separated by single sep
// bytes, empty fields included (as strings.Split does).
func splitExact(dst []span, line []byte, sep byte) []span {
	start := 0
	for i, c := range line {
		if c == sep {
			dst = append(dst, span{start, i})
			start = i + 1
		}
	}
	return append(dst, span{start, len(line)})
}

func isSpaceOrTab(c byte) bool { return c == ' ' || c == '\t' }

// isBlank reports whether line holds only spaces and tabs.
func isBlank(line []byte) bool {
	for _, c := range line {
		if !isSpaceOrTab(c) {
			return false
		}
	}
	return true
}
