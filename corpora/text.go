package corpora

import (
	"io"
	"unicode/utf8"
)

// TextOptions configures a [TextReader].
type TextOptions struct {
	// MaxLineBytes is the longest accepted line; 0 means DefaultMaxLineBytes.
	MaxLineBytes int
}

// TextReader reads raw text, one sentence per line, one Sequence per line
// that has at least one token: Tokens[t] = []string{form} with the Penn
// Treebank forms of the tokens of [Tokenize] (Token.Word: do n't, -LRB-,
// quotes as doubled backquotes and apostrophes, as in the corpora models
// are trained on), Labels nil.
// Lines without a token are skipped. Gzip, CRLF, the line limit and the
// scanner contract are as for [CoNLLReader]; invalid UTF-8 is an
// ErrInvalidUTF8 error with its column. An input without any token is an
// ErrEmpty error.
type TextReader struct {
	lr    *lineReader
	seq   Sequence
	toks  []Token
	offs  []Offsets
	count int
	err   error
}

// Offsets place a token in its line: Start and End in code points,
// StartByte and EndByte in bytes (Token.Start and Token.End).
type Offsets struct {
	Start, End         int
	StartByte, EndByte int
}

// NewTextReader returns a reader of r; name is used in error messages.
func NewTextReader(name string, r io.Reader, opts TextOptions) *TextReader {
	return &TextReader{lr: newLineReader(name, r, opts.MaxLineBytes)}
}

// Next reads the next non-empty line and reports whether there was one.
func (r *TextReader) Next() bool {
	if r.err != nil {
		return false
	}
	for {
		line, ok := r.lr.next()
		if !ok {
			if r.lr.err != nil {
				r.err = r.lr.err
			} else if r.count == 0 {
				r.err = &ParseError{File: r.lr.name, Line: max(r.lr.line, 1), Err: errorf(ErrEmpty, "no text in input")}
			}
			return false
		}
		if col := checkUTF8(line); col > 0 {
			r.err = &ParseError{File: r.lr.name, Line: r.lr.line, Column: col, Err: errorf(ErrInvalidUTF8, "invalid UTF-8")}
			return false
		}
		toks, err := Tokenize(string(line))
		if err != nil {
			r.err = &ParseError{File: r.lr.name, Line: r.lr.line, Err: err}
			return false
		}
		if len(toks) == 0 {
			continue
		}
		r.toks = toks
		r.offs = codePointOffsets(string(line), toks)
		words := make([]string, len(toks))
		s := Sequence{Tokens: make([][]string, len(toks)), Line: r.lr.line}
		for t, tok := range toks {
			words[t] = tok.Word
			s.Tokens[t] = words[t : t+1 : t+1]
		}
		r.seq = s
		r.count++
		return true
	}
}

// Sequence returns the line read by the last successful call to Next.
func (r *TextReader) Sequence() Sequence { return r.seq }

// Offsets returns the tokens of the last line read by Next, with byte offsets
// into that line (without its line break): Sequence().Tokens[t][0] is
// Offsets()[t].Word.
func (r *TextReader) Offsets() []Token { return r.toks }

// CodePoints returns the offsets of the tokens of the last line read by
// Next in code points and bytes (without its line break); a new slice for
// every line.
func (r *TextReader) CodePoints() []Offsets { return r.offs }

// codePointOffsets returns the offsets of toks (whose starts never
// decrease) in line, in code points and bytes, in one pass over line.
func codePointOffsets(line string, toks []Token) []Offsets {
	out := make([]Offsets, len(toks))
	b, c := 0, 0 // a byte offset and its code point offset
	for k, t := range toks {
		c += utf8.RuneCountInString(line[b:t.Start])
		b = t.Start
		out[k] = Offsets{Start: c, End: c + utf8.RuneCountInString(line[t.Start:t.End]), StartByte: t.Start, EndByte: t.End}
	}
	return out
}

// Err returns the first error met, nil at a clean end of input.
func (r *TextReader) Err() error { return r.err }
