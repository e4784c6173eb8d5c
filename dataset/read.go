package dataset

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/sparsetag/sparsetag/corpora"
	"github.com/sparsetag/sparsetag/features"
)

// Format names an input format.
type Format string

// The input formats.
const (
	CoNLL    Format = "conll"    // whitespace-separated columns, label last, blank line between sequences
	CRFsuite Format = "crfsuite" // CRFsuite attribute files: label, then name[:value] attributes
	CoNLLU   Format = "conllu"   // CoNLL-U, UPOS as the label
	OCR      Format = "ocr"      // the OCR letters file of Taskar et al. (2003)
	Text     Format = "text"     // raw text, one sentence per line (unlabeled only)
)

// Formats lists every format, in the order error messages name them.
var Formats = []Format{CoNLL, CRFsuite, CoNLLU, OCR, Text}

// LabeledFormats lists the formats that carry labels, which training and
// evaluation read: every format but raw text.
var LabeledFormats = []Format{CoNLL, CRFsuite, CoNLLU, OCR}

// Kind returns the kind of feature encoder that reads f, and false for an
// unknown format.
func (f Format) Kind() (features.Kind, bool) {
	switch f {
	case CoNLL, CoNLLU, Text:
		return features.KindTemplate, true
	case CRFsuite:
		return features.KindAttributes, true
	case OCR:
		return features.KindPixels, true
	}
	return 0, false
}

// Example is one sequence of any input format, as read from a file. Exactly
// one of Tokens, Names and Pixels is set.
type Example struct {
	Tokens [][]string  // column formats and raw text: the columns of each position, without the label
	Names  [][]string  // CRFsuite attribute files: attribute names of each position
	Values [][]float64 // parallel to Names
	Pixels [][]byte    // OCR: the image of each letter
	Labels []string    // nil when unlabeled
	Text   []string    // what to print back for each position: the first column, the first attribute, or the letter
	File   string      // name of the input, for error messages
	Line   int         // line of the first position in its file
	Weight float64     // the sequence's weight (CRFsuite's @weight:w line); 0 when not given, meaning 1
	// CoNLLU holds a CoNLL-U sentence's lines as read (comments,
	// multiword tokens, empty nodes, every column), for writing it back
	// with new labels; nil for other formats.
	CoNLLU *corpora.CoNLLUSentence
	// Offsets holds, for raw text input, each token's place in its line
	// (code points and bytes); nil for other formats.
	Offsets []corpora.Offsets
}

// Len returns the number of positions.
func (e *Example) Len() int {
	switch {
	case e.Tokens != nil:
		return len(e.Tokens)
	case e.Names != nil:
		return len(e.Names)
	}
	return len(e.Pixels)
}

// Input returns the example's input for a features.Encoder or a
// chain.Tagger: features.Columns for column formats and raw text,
// features.Attributes for CRFsuite attribute files, features.Pixels for OCR.
// It shares the example's slices.
func (e *Example) Input() features.Input {
	switch {
	case e.Tokens != nil:
		return features.Columns(e.Tokens)
	case e.Names != nil:
		return features.Attributes{Names: e.Names, Values: e.Values}
	}
	return features.Pixels(e.Pixels)
}

// at returns "file:line: " for error messages, "" when the file is
// unknown.
func (e *Example) at() string {
	if e.File == "" {
		return ""
	}
	return e.where() + ": "
}

// where returns "file:line" for error messages.
func (e *Example) where() string { return fmt.Sprintf("%s:%d", e.File, e.Line) }

// FromSequence converts a sequence of the corpora readers (column formats or
// CRFsuite attributes). The slices are shared with s. file names the input
// in error messages.
func FromSequence(file string, s corpora.Sequence) Example {
	if s.Attrs != nil {
		ex := Example{Labels: s.Labels, Names: make([][]string, len(s.Attrs)), Values: make([][]float64, len(s.Attrs)),
			Text: make([]string, len(s.Attrs)), File: file, Line: s.Line, Weight: s.Weight}
		for t, attrs := range s.Attrs {
			for _, a := range attrs {
				ex.Names[t] = append(ex.Names[t], a.Name)
				ex.Values[t] = append(ex.Values[t], a.Value)
			}
			ex.Text[t] = "_"
			if len(attrs) > 0 {
				ex.Text[t] = attrs[0].Name
			}
		}
		return ex
	}
	return fromColumns(file, s, make([]string, len(s.Tokens)))
}

// fromColumns is FromSequence for column formats, with text (of len(s.Tokens)
// strings) for Example.Text.
func fromColumns(file string, s corpora.Sequence, text []string) Example {
	ex := Example{Tokens: s.Tokens, Labels: s.Labels, Text: text, File: file, Line: s.Line, CoNLLU: s.CoNLLU}
	if ex.Tokens == nil {
		ex.Tokens = [][]string{}
	}
	for t, cols := range s.Tokens {
		ex.Text[t] = ""
		if len(cols) > 0 {
			ex.Text[t] = cols[0]
		}
	}
	return ex
}

// FromWord converts an OCR word; its letters are both the labels and the
// text. The slices are shared with w.
func FromWord(file string, w corpora.Word) Example {
	return Example{Pixels: w.Pixels, Labels: w.Labels, Text: w.Labels, File: file, Line: w.Line}
}

// MaxSequenceLen bounds the length of one sequence: a file whose blank
// separator lines are missing would otherwise become one huge lattice.
const MaxSequenceLen = 100000

// maxKeptText bounds the Text a Buffer keeps between sequences: one huge
// sequence does not pin its memory for the rest of the input.
const maxKeptText = 1 << 16

// MaxFold bounds fold numbers (the OCR data has folds 0-9).
const MaxFold = 1000

// Options selects how Read, ReadFile and NewReader read their input.
type Options struct {
	Format Format
	// Labeled reads the labels, which training and evaluation need: the
	// zero value reads input to be tagged (Example.Labels nil). Text input
	// has none; unlabeled CRFsuite input skips its label field.
	Labeled bool
	Folds   []int // OCR folds to keep; nil keeps all
	// LabelColumn is the label's column of labeled CoNLL input, 1-based,
	// negative from the end; 0 means the last (corpora.CoNLLOptions).
	LabelColumn int
}

// ReadFile reads every sequence of the file at path with Read; gzipped
// files are decompressed.
func ReadFile(path string, opts Options) ([]Example, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Read(path, f, opts)
}

// Read reads every sequence of r in the given format; name is the input's
// name in error messages. It fails on input without any sequence and on a
// sequence longer than MaxSequenceLen. Use a Reader to read one sequence at
// a time.
func Read(name string, r io.Reader, opts Options) ([]Example, error) {
	sr, err := NewReader(name, r, opts)
	if err != nil {
		return nil, err
	}
	var out []Example
	for sr.Next() {
		out = append(out, sr.Example())
	}
	if err := sr.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// Reader reads the sequences of one input one at a time, in any format, so
// that memory is bounded by the longest sequence rather than the input's
// size (except for the OCR format, whose letters are grouped into words by
// id and which is read whole). Use it like bufio.Scanner:
//
//	r, err := dataset.NewReader(name, f, opts)
//	for r.Next() {
//		ex := r.Example()
//		...
//	}
//	if err := r.Err(); err != nil { ... }
//
// Like Read, it fails on input without any sequence and on a sequence longer
// than MaxSequenceLen. A Reader is not safe for concurrent use.
type Reader struct {
	name  string
	next  func() bool
	seq   func() corpora.Sequence
	err   func() error
	words []corpora.Word          // OCR
	conll *corpora.CoNLLReader    // CoNLL, for NextInto
	crf   *corpora.CRFsuiteReader // CRFsuite, for nextRaw
	text  *corpora.TextReader     // raw text, for the tokens' offsets
	ex    Example
	count int
	fail  error
}

// NewReader returns a Reader of r in the format of opts; name is the
// input's name in error messages. It fails at once for an unknown format,
// labeled raw text, and OCR input that cannot be read.
func NewReader(name string, r io.Reader, opts Options) (*Reader, error) {
	sr := &Reader{name: name}
	labeled := opts.Labeled
	switch opts.Format {
	case CoNLL:
		cr := corpora.NewCoNLLReader(name, r, corpora.CoNLLOptions{Unlabeled: !labeled, LabelColumn: opts.LabelColumn})
		sr.next, sr.seq = cr.Next, cr.Sequence
		sr.err = cr.Err
		sr.conll = cr
	case CoNLLU:
		cr := corpora.NewCoNLLUReader(name, r, corpora.CoNLLUOptions{Unlabeled: !labeled})
		sr.next, sr.seq = cr.Next, cr.Sequence
		sr.err = cr.Err
	case Text:
		if labeled {
			return nil, errors.New("format text is unlabeled: it can be tagged, not used for training or evaluation")
		}
		tr := corpora.NewTextReader(name, r, corpora.TextOptions{})
		sr.next, sr.seq = tr.Next, tr.Sequence
		sr.err = tr.Err
		sr.text = tr
	case CRFsuite:
		// A CRFsuite file always has its label field: unlabeled reading
		// ignores it (empty or not), as crfsuite tag does, so that one file
		// means the same to a CRFsuite model and to ours.
		cr := corpora.NewCRFsuiteReader(name, r, corpora.CRFsuiteOptions{IgnoreLabels: !labeled})
		sr.next, sr.seq = cr.Next, cr.Sequence
		sr.err = cr.Err
		sr.crf = cr
	case OCR:
		words, err := corpora.ReadOCR(name, r, corpora.OCROptions{Folds: opts.Folds})
		if err != nil {
			return nil, err
		}
		sr.words = words
		sr.err = func() error { return nil }
	default:
		return nil, fmt.Errorf("unknown format %q (want conll, crfsuite, conllu, ocr or text)", opts.Format)
	}
	return sr, nil
}

// Next reads the next sequence and reports whether there was one. It
// returns false at the end of the input or at the first error.
func (r *Reader) Next() bool { return r.read(nil) }

// Buffer is the memory of the Examples a Reader's NextInto hands out,
// reused by the next NextInto with the same Buffer. A zero Buffer is ready
// to use.
type Buffer struct {
	seq  corpora.Buffer
	text []string
}

// NextInto is Next, the Example made in b's memory: the slices of the
// Example that Example returns then (Tokens and its rows, Labels, Text) are
// b's and are overwritten by the next NextInto with b, so the caller must
// be done with them by then. It is meant for streaming taggers, which keep
// one Buffer per sequence in flight (training keeps its examples: it reads
// them with Next). The strings are never reused. Only CoNLL input is read
// into b; other formats allocate as Next does.
func (r *Reader) NextInto(b *Buffer) bool { return r.read(b) }

// read is Next, in b's memory when b is not nil.
func (r *Reader) read(b *Buffer) bool {
	if r.fail != nil {
		return false
	}
	switch {
	case r.next == nil:
		if r.count >= len(r.words) {
			return r.end()
		}
		r.ex = FromWord(r.name, r.words[r.count])
		r.words[r.count] = corpora.Word{} // let the word go once it is tagged
	case b != nil && r.conll != nil:
		if !r.conll.NextInto(&b.seq) {
			return r.end()
		}
		s := r.conll.Sequence()
		if cap(b.text) > maxKeptText {
			b.text = nil
		}
		if n := len(s.Tokens); cap(b.text) < n {
			b.text = make([]string, n)
		}
		b.text = b.text[:len(s.Tokens)]
		r.ex = fromColumns(r.name, s, b.text)
	default:
		if !r.next() {
			return r.end()
		}
		r.ex = FromSequence(r.name, r.seq())
		if r.text != nil {
			r.ex.Offsets = r.text.CodePoints()
		}
	}
	r.count++
	if n := r.ex.Len(); n > MaxSequenceLen {
		r.fail = fmt.Errorf("%s: sequence of %d positions, more than the limit %d (missing blank lines between sentences?)", r.ex.where(), n, MaxSequenceLen)
		r.ex = Example{}
		return false
	}
	return true
}

// nextRaw is Next for CRFsuite input without the strings of an Example:
// the sequence is r.crf.Raw(), in the reader's memory until the next call,
// and Example returns the zero Example.
func (r *Reader) nextRaw() bool {
	if r.fail != nil {
		return false
	}
	r.ex = Example{}
	if !r.crf.Next() {
		return r.end()
	}
	r.count++
	if raw := r.crf.Raw(); raw.Len() > MaxSequenceLen {
		r.fail = fmt.Errorf("%s:%d: sequence of %d positions, more than the limit %d (missing blank lines between sentences?)", r.name, raw.Line, raw.Len(), MaxSequenceLen)
		return false
	}
	return true
}

func (r *Reader) end() bool {
	if err := r.err(); err != nil {
		r.fail = err
	} else if r.count == 0 {
		r.fail = fmt.Errorf("%s: no sequences found", r.name)
	}
	return false
}

// Example returns the sequence read by the last successful Next or
// NextInto. After Next, its slices are not reused: the caller may keep
// them; after NextInto, see there.
func (r *Reader) Example() Example { return r.ex }

// Err returns the first error met, nil at a clean end of input.
func (r *Reader) Err() error { return r.fail }

// ParseFolds parses "1-9" or "0,2,4" into fold numbers; "" means all (nil).
// Folds must be below MaxFold.
func ParseFolds(s string) ([]int, error) {
	if s == "" {
		return nil, nil
	}
	var out []int
	for _, part := range strings.Split(s, ",") {
		var lo, hi int
		if n, err := fmt.Sscanf(part, "%d-%d", &lo, &hi); err == nil && n == 2 {
			if lo > hi || lo < 0 || hi >= MaxFold {
				return nil, fmt.Errorf("bad fold range %q (want lo-hi with 0 <= lo <= hi < %d)", part, MaxFold)
			}
			for f := lo; f <= hi; f++ {
				out = append(out, f)
			}
			continue
		}
		var f int
		if _, err := fmt.Sscanf(part, "%d", &f); err != nil || fmt.Sprint(f) != strings.TrimSpace(part) || f < 0 || f >= MaxFold {
			return nil, fmt.Errorf("bad fold %q (want e.g. 0, 1-9 or 0,2,4; folds are below %d)", part, MaxFold)
		}
		out = append(out, f)
	}
	return out, nil
}
