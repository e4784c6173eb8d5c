package corpora

import (
	"bytes"
	"fmt"
	"io"
	"strings"
)

// CoNLLOptions configures a [CoNLLReader]. The zero value reads labeled files
// with the default line limit.
type CoNLLOptions struct {
	// Unlabeled makes every column a token column; Sequence.Labels is nil.
	// By default the last column is the label.
	Unlabeled bool
	// LabelColumn is the label's column in labeled files, 1-based;
	// negative counts from the end (-1 is the last column); 0 means -1.
	// The other columns are the token columns, in their order. A label
	// column the first line does not have is an ErrMissingLabel error.
	LabelColumn int
	// MaxLineBytes is the longest accepted line; 0 means DefaultMaxLineBytes.
	MaxLineBytes int
}

// docStart is the document separator line of the CoNLL shared tasks.
var docStart = []byte("-DOCSTART-")

// CoNLLReader reads CoNLL column files: one position per line, columns
// separated by runs of spaces or tabs (only ASCII space and tab separate;
// other Unicode spaces are part of a token), a blank (or whitespace-only) line
// between sequences, the label in the last column (or the one
// CoNLLOptions.LabelColumn names). Lines whose first column is
// -DOCSTART- are skipped and end the current sequence. Every line of a file
// must have the same number of columns; the first line fixes it. Input must
// be UTF-8 (ErrInvalidUTF8 otherwise); a leading BOM is skipped; gzip input is
// decompressed transparently and CRLF line ends are accepted.
//
// Use it like bufio.Scanner:
//
//	r := corpora.NewCoNLLReader("train.txt", f, corpora.CoNLLOptions{})
//	for r.Next() {
//		s := r.Sequence()
//		...
//	}
//	if err := r.Err(); err != nil { ... }
//
// An input with no sequence at all is an ErrEmpty error.
type CoNLLReader struct {
	lr    *lineReader
	opts  CoNLLOptions
	ncols int
	label int    // 0-based column of the label (labeled files), set with ncols
	split []span // fields of the current line, in line offsets (scratch)
	block []byte // the cells of the current sequence, concatenated
	cells []span // the cells of the current sequence, in block offsets
	first int    // line of the current sequence's first position
	seq   Sequence
	count int
	err   error
	done  bool
}

// maxKeptBlock bounds the sequence buffers a reader keeps between sequences:
// one huge sequence does not pin its buffers for the rest of the input.
const maxKeptBlock = 1 << 20

// NewCoNLLReader returns a reader of r; name is used in error messages.
func NewCoNLLReader(name string, r io.Reader, opts CoNLLOptions) *CoNLLReader {
	return &CoNLLReader{lr: newLineReader(name, r, opts.MaxLineBytes), opts: opts}
}

// Next reads the next sequence and reports whether there was one. It returns
// false at the end of the input or at the first error.
//
// The cells of a sequence are gathered into one reused buffer and handed out
// as substrings of one string per sequence: reading allocates a fixed number
// of times per sequence, not per position. Nothing handed out is reused, so
// callers may keep sequences; a kept cell keeps its sequence's string alive.
func (r *CoNLLReader) Next() bool { return r.next(nil) }

// Buffer is the memory of the sequences a reader's NextInto hands out:
// their slices of cells, reused by the next NextInto with the same Buffer
// (16 bytes per cell and 24 per position of the longest sequence read into
// it, up to maxKeptCells cells). A zero
// Buffer is ready to use.
type Buffer struct {
	cells  []string
	tokens [][]string
}

// maxKeptCells bounds the cells a Buffer keeps between sequences, like
// maxKeptBlock.
const maxKeptCells = 1 << 16

// NextInto is Next, the sequence made in b's memory: the slices of the
// Sequence that Sequence returns then (Tokens, its rows, and Labels) are
// b's and are overwritten by the next NextInto with b, so the caller must
// be done with them by then (a streaming tagger that keeps one Buffer per
// sequence in flight). The cell strings themselves are never reused: a
// kept cell stays valid. It reads the same sequences as Next and allocates
// one string per sequence once b has grown.
func (r *CoNLLReader) NextInto(b *Buffer) bool {
	if cap(b.cells) > maxKeptCells {
		*b = Buffer{}
	}
	return r.next(b)
}

// next is Next, in b's memory when b is not nil.
func (r *CoNLLReader) next(b *Buffer) bool {
	if r.err != nil || r.done {
		return false
	}
	if cap(r.block) > maxKeptBlock {
		r.block, r.cells = nil, nil
	}
	r.block, r.cells = r.block[:0], r.cells[:0]
	for {
		line, ok := r.lr.next()
		if !ok {
			return r.end(b)
		}
		switch r.addLine(line) {
		case lineToken:
		case lineSeparator:
			if len(r.cells) > 0 {
				return r.emit(b)
			}
		case lineFailed:
			return false
		}
	}
}

// The kinds of line addLine reports.
const (
	lineToken     = iota // a position, added to the current sequence
	lineSeparator        // a blank or -DOCSTART- line
	lineFailed           // an error, recorded in r.err
)

// addLine checks one line and adds its cells to the current sequence.
func (r *CoNLLReader) addLine(line []byte) int {
	if isBlank(line) {
		return lineSeparator
	}
	if col := checkUTF8(line); col > 0 {
		r.fail(col, errorf(ErrInvalidUTF8, "invalid UTF-8"))
		return lineFailed
	}
	sp := splitColumns(r.split[:0], line)
	r.split = sp
	if bytes.Equal(line[sp[0].start:sp[0].end], docStart) {
		return lineSeparator
	}
	if !r.checkColumns(line, sp) {
		return lineFailed
	}
	if len(r.cells) == 0 {
		r.first = r.lr.line
	}
	for _, f := range sp {
		start := len(r.block)
		r.block = append(r.block, line[f.start:f.end]...)
		r.cells = append(r.cells, span{start, len(r.block)})
	}
	return lineToken
}

// checkColumns checks the number of fields sp of line against the first
// line's (which fixes it) and reports whether it is right.
func (r *CoNLLReader) checkColumns(line []byte, sp []span) bool {
	k := len(sp)
	switch {
	case r.ncols == 0 && k < 2 && !r.opts.Unlabeled:
		r.fail(len(line)+1, errorf(ErrMissingLabel, "expected a token column and a label column, got 1 column"))
		return false
	case r.ncols == 0 && !r.opts.Unlabeled:
		lc := r.opts.LabelColumn
		switch {
		case lc == 0:
			r.label = k - 1
		case lc > 0:
			r.label = lc - 1
		default:
			r.label = k + lc
		}
		if r.label < 0 || r.label >= k {
			r.fail(len(line)+1, errorf(ErrMissingLabel, "no label column %d: the line has %d columns", lc, k))
			return false
		}
		r.ncols = k
	case r.ncols == 0:
		r.ncols = k
	case k != r.ncols:
		col := len(line) + 1
		if k > r.ncols {
			col = sp[r.ncols].start + 1
		}
		r.fail(col, errorf(ErrFieldCount, "expected %d columns, got %d", r.ncols, k))
		return false
	}
	return true
}

// end handles the end of the input (or a read error): it emits the last
// sequence, if any (in b's memory when b is not nil).
func (r *CoNLLReader) end(b *Buffer) bool {
	if r.lr.err != nil {
		r.err = r.lr.err
		return false
	}
	r.done = true
	if len(r.cells) > 0 {
		return r.emit(b)
	}
	if r.count == 0 {
		r.err = &ParseError{File: r.lr.name, Line: max(r.lr.line, 1), Err: errorf(ErrEmpty, "no sequences in input")}
	}
	return false
}

// emit makes the current sequence r.seq out of one string holding all its
// cells and one slice of all their substrings (see cellStrings); Tokens and
// Labels are windows of that slice. The slices are fresh, or b's when b is
// not nil.
func (r *CoNLLReader) emit(b *Buffer) bool {
	w := r.ncols // token columns
	if !r.opts.Unlabeled {
		w--
	}
	T := len(r.cells) / r.ncols
	var cells []string
	var tokens [][]string
	if b != nil {
		b.cells = grow(b.cells, len(r.cells))
		b.tokens = grow(b.tokens, T)
		cells, tokens = b.cells, b.tokens
	} else {
		cells, tokens = make([]string, len(r.cells)), make([][]string, T)
	}
	r.cellStrings(cells, w)
	r.seq = Sequence{Tokens: tokens, Line: r.first}
	for t := range T {
		r.seq.Tokens[t] = cells[t*w : (t+1)*w : (t+1)*w]
	}
	if w < r.ncols {
		r.seq.Labels = cells[T*w:]
	}
	r.count++
	return true
}

// grow returns s resized to n elements, reusing its capacity. A buffer
// grows only to the longest sequence read into it (a new longest sequence
// is rare after a few), so that a streaming reader's buffers take little
// more than the sequences in flight.
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// cellStrings writes the cells of the current sequence into cells (one per
// cell) as substrings of one new string: the w token cells of each
// position, position by position, then the labels (column r.label, when w
// < r.ncols) of every position.
func (r *CoNLLReader) cellStrings(cells []string, w int) {
	text := string(r.block)
	k := r.ncols
	T := len(r.cells) / k
	for t := range T {
		row := r.cells[t*k : (t+1)*k]
		if w == k || r.label == w { // unlabeled, or the label last
			for j, c := range row[:w] {
				cells[t*w+j] = text[c.start:c.end]
			}
			if w < k {
				cells[T*w+t] = text[row[w].start:row[w].end]
			}
			continue
		}
		j := t * w
		for c := range row {
			if c == r.label {
				continue
			}
			cells[j] = text[row[c].start:row[c].end]
			j++
		}
		cells[T*w+t] = text[row[r.label].start:row[r.label].end]
	}
}

func (r *CoNLLReader) fail(col int, err error) {
	r.err = &ParseError{File: r.lr.name, Line: r.lr.line, Column: col, Err: err}
}

// Sequence returns the sequence read by the last successful call to Next.
func (r *CoNLLReader) Sequence() Sequence { return r.seq }

// Err returns the first error met, nil at a clean end of input. It is a
// *ParseError.
func (r *CoNLLReader) Err() error { return r.err }

// Columns returns the number of columns per line (label included), 0 before
// the first line is read.
func (r *CoNLLReader) Columns() int { return r.ncols }

// ReadCoNLL reads all sequences of a CoNLL column file.
func ReadCoNLL(name string, rd io.Reader, opts CoNLLOptions) ([]Sequence, error) {
	r := NewCoNLLReader(name, rd, opts)
	var out []Sequence
	for r.Next() {
		out = append(out, r.Sequence())
	}
	return out, r.Err()
}

// WriteCoNLL writes s in CoNLL column format, columns separated by one space,
// label last (when s.Labels is set), followed by a blank line. It fails if a
// cell is empty or holds a space, tab or line break, or if a first cell is
// -DOCSTART-, since the file could not be read back. A line whose first cell
// starts with a byte-order mark is written after one space (a BOM opening a
// file is skipped by the reader; leading blanks are too).
func WriteCoNLL(w io.Writer, s Sequence) error {
	if s.Tokens == nil {
		return fmt.Errorf("corpora: WriteCoNLL: sequence has no token columns")
	}
	if s.Labels != nil && len(s.Labels) != len(s.Tokens) {
		return fmt.Errorf("corpora: WriteCoNLL: %d labels for %d positions", len(s.Labels), len(s.Tokens))
	}
	var b strings.Builder
	for t, row := range s.Tokens {
		cells := row
		if s.Labels != nil {
			cells = append(row[:len(row):len(row)], s.Labels[t])
		}
		for j, c := range cells {
			if c == "" || strings.ContainsAny(c, " \t\r\n") || (j == 0 && c == "-DOCSTART-") {
				return fmt.Errorf("corpora: WriteCoNLL: position %d column %d: %q cannot be written", t, j, c)
			}
			// A line starting with a BOM would lose it when it is the
			// file's first; the reader skips leading blanks, so one space
			// keeps the cell whole wherever the line lands.
			if j > 0 || strings.HasPrefix(c, "\uFEFF") {
				b.WriteByte(' ')
			}
			b.WriteString(c)
		}
		b.WriteByte('\n')
	}
	b.WriteByte('\n')
	_, err := io.WriteString(w, b.String())
	return err
}
