package corpora

import "io"

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
	count int
	err   error
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

// Err returns the first error met, nil at a clean end of input.
func (r *TextReader) Err() error { return r.err }
