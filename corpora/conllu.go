package corpora

import (
	"bytes"
	"io"
	"strconv"
)

// CoNLLULabel selects the CoNLL-U column used as the label.
type CoNLLULabel int

const (
	// UPOS labels positions with the universal part-of-speech tag (column 4).
	UPOS CoNLLULabel = iota
	// XPOS labels positions with the language-specific tag (column 5).
	XPOS
)

// Token columns of a Sequence read by a [CoNLLUReader]: Tokens[t][CoNLLUForm]
// is the word form, and so on.
const (
	CoNLLUForm     = 0 // FORM (CoNLL-U column 2)
	CoNLLULemma    = 1 // LEMMA (column 3)
	CoNLLUOtherPOS = 2 // the POS column that is not the label: XPOS when labeling UPOS, UPOS when labeling XPOS
	CoNLLUFeats    = 3 // FEATS (column 6)
)

// CoNLLUSentence is what a [CoNLLUReader] keeps of a sentence beyond the
// columns of its words, so that the sentence can be written back whole
// with new labels: Lines holds its lines as read, without line breaks
// (comments, multiword-token ranges, empty nodes and words, in file order),
// Words[t] is the index in Lines of word t, and LabelColumn is the 0-based
// column of the label in a word line (3 for UPOS, 4 for XPOS).
type CoNLLUSentence struct {
	Lines       []string
	Words       []int
	LabelColumn int
}

// CoNLLUOptions configures a [CoNLLUReader]. The zero value labels with UPOS.
type CoNLLUOptions struct {
	// Label selects the label column (UPOS by default).
	Label CoNLLULabel
	// Unlabeled leaves Sequence.Labels nil and accepts "_" in the label
	// column. By default "_" or an empty label is an ErrMissingLabel error.
	Unlabeled bool
	// MaxLineBytes is the longest accepted line; 0 means DefaultMaxLineBytes.
	MaxLineBytes int
}

// CoNLLUReader reads Universal Dependencies .conllu files
// (https://universaldependencies.org/format.html): 10 TAB-separated columns
// ID FORM LEMMA UPOS XPOS FEATS HEAD DEPREL DEPS MISC per word, a blank line
// after each sentence, comment lines starting with '#'. Multi-word token lines
// (ID "3-4") and empty nodes (ID "5.1") are skipped, so a Sequence holds the
// syntactic words; their IDs must run 1, 2, 3, ... (ErrSyntax otherwise).
// Sequence.CoNLLU keeps every line of the sentence, comments and skipped
// lines included, for writing it back (see [CoNLLUSentence]); comment lines
// belong to the sentence that follows them.
//
// Tokens[t] has 4 columns: FORM, LEMMA, the other POS column and FEATS (see
// [CoNLLUForm] and friends). HEAD, DEPREL, DEPS and MISC are dropped. Note
// that LEMMA, FEATS and the other POS column are themselves annotations: a
// tagger meant for raw text should use only the FORM column. Gzip, CRLF, the
// line limit, UTF-8 and the scanner contract are as for [CoNLLReader].
type CoNLLUReader struct {
	lr    *lineReader
	opts  CoNLLUOptions
	spans []span
	seq   Sequence
	count int
	err   error
	done  bool
}

// NewCoNLLUReader returns a reader of r; name is used in error messages.
func NewCoNLLUReader(name string, r io.Reader, opts CoNLLUOptions) *CoNLLUReader {
	return &CoNLLUReader{lr: newLineReader(name, r, opts.MaxLineBytes), opts: opts}
}

const conlluColumns = 10

// Next reads the next sentence and reports whether there was one.
func (r *CoNLLUReader) Next() bool {
	if r.err != nil || r.done {
		return false
	}
	const k = 5 // 4 token columns + label
	cells := make([]string, 0, 32*k)
	var sent CoNLLUSentence
	T, first := 0, 0
	labelCol, otherCol := 3, 4
	if r.opts.Label == XPOS {
		labelCol, otherCol = 4, 3
	}
	sent.LabelColumn = labelCol
	emit := func() bool {
		r.seq = buildColumns(cells, k, true, first)
		if r.opts.Unlabeled {
			r.seq.Labels = nil
		}
		r.seq.CoNLLU = &sent
		r.count++
		return true
	}
	for {
		line, ok := r.lr.next()
		if !ok {
			return r.atEnd(T > 0) && emit()
		}
		if isBlank(line) {
			if T > 0 {
				return emit()
			}
			continue
		}
		if line[0] == '#' {
			sent.Lines = append(sent.Lines, string(line))
			continue
		}
		sp, word, ok := r.word(line, T, labelCol)
		if !ok {
			return false
		}
		if !word {
			sent.Lines = append(sent.Lines, string(line)) // multi-word token or empty node
			continue
		}
		s := string(line)
		sent.Words = append(sent.Words, len(sent.Lines))
		sent.Lines = append(sent.Lines, s)
		for _, j := range [k]int{1, 2, otherCol, 5, labelCol} {
			cells = append(cells, s[sp[j].start:sp[j].end])
		}
		if T == 0 {
			first = r.lr.line
		}
		T++
	}
}

// atEnd handles the end of the input (or a read error): it reports whether
// a sentence was pending (pending), to be emitted, and records the read
// error, or ErrEmpty when the input held no sentence at all.
func (r *CoNLLUReader) atEnd(pending bool) bool {
	if r.lr.err != nil {
		r.err = r.lr.err
		return false
	}
	r.done = true
	if pending {
		return true
	}
	if r.count == 0 {
		r.err = &ParseError{File: r.lr.name, Line: max(r.lr.line, 1), Err: errorf(ErrEmpty, "no sentences in input")}
	}
	return false
}

// word checks a token line of a sentence that has T words so far and
// returns its columns. word is false for a multi-word token or an empty
// node (an ID range or decimal), kept as a line of the sentence only; ok
// is false after an error (recorded in r.err).
func (r *CoNLLUReader) word(line []byte, T, labelCol int) (sp []span, word, ok bool) {
	if col := checkUTF8(line); col > 0 {
		r.fail(col, errorf(ErrInvalidUTF8, "invalid UTF-8"))
		return nil, false, false
	}
	sp = splitExact(r.spans[:0], line, '\t')
	r.spans = sp
	if len(sp) != conlluColumns {
		col := len(line) + 1
		if len(sp) > conlluColumns {
			col = sp[conlluColumns].start + 1
		}
		r.fail(col, errorf(ErrFieldCount, "expected %d tab-separated columns, got %d", conlluColumns, len(sp)))
		return nil, false, false
	}
	id := line[sp[0].start:sp[0].end]
	if bytes.IndexByte(id, '-') >= 0 || bytes.IndexByte(id, '.') >= 0 {
		return sp, false, true
	}
	n, err := strconv.Atoi(string(id))
	if err != nil {
		r.fail(1, errorf(ErrBadValue, "expected a word ID (integer, range or decimal), got %q", id))
		return nil, false, false
	}
	if n != T+1 {
		r.fail(1, errorf(ErrSyntax, "expected word ID %d, got %d", T+1, n))
		return nil, false, false
	}
	lab := sp[labelCol]
	if !r.opts.Unlabeled {
		if v := line[lab.start:lab.end]; len(v) == 0 || (len(v) == 1 && v[0] == '_') {
			name := "UPOS"
			if r.opts.Label == XPOS {
				name = "XPOS"
			}
			r.fail(lab.start+1, errorf(ErrMissingLabel, "expected a %s label, got %q", name, v))
			return nil, false, false
		}
	}
	return sp, true, true
}

func (r *CoNLLUReader) fail(col int, err error) {
	r.err = &ParseError{File: r.lr.name, Line: r.lr.line, Column: col, Err: err}
}

// Sequence returns the sentence read by the last successful call to Next.
func (r *CoNLLUReader) Sequence() Sequence { return r.seq }

// Err returns the first error met, nil at a clean end of input.
func (r *CoNLLUReader) Err() error { return r.err }

// ReadCoNLLU reads all sentences of a .conllu file.
func ReadCoNLLU(name string, rd io.Reader, opts CoNLLUOptions) ([]Sequence, error) {
	r := NewCoNLLUReader(name, rd, opts)
	var out []Sequence
	for r.Next() {
		out = append(out, r.Sequence())
	}
	return out, r.Err()
}
