package corpora

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// CRFsuiteOptions configures a [CRFsuiteReader]. The zero value reads
// labeled files with the default line limit.
type CRFsuiteOptions struct {
	// Unlabeled makes every field an attribute; Sequence.Labels is nil. By
	// default the first field is the label. Files in CRFsuite's own format
	// always have the label field: read them unlabeled with IgnoreLabels.
	Unlabeled bool
	// IgnoreLabels reads the first field as the label field, as in every
	// CRFsuite file, but does not require a label there: it may be empty
	// (the line starts with a TAB) or hold anything, and Sequence.Labels is
	// nil. This is how crfsuite tag reads its input when it does not
	// evaluate, so that one file means the same to every model. Unlabeled
	// takes precedence over it.
	IgnoreLabels bool
	// MaxLineBytes is the longest accepted line; 0 means DefaultMaxLineBytes.
	MaxLineBytes int
}

// CRFsuiteReader reads CRFsuite attribute files: one position per line,
// fields separated by TAB, the first field the label (taken verbatim; see
// [CRFsuiteOptions] for unlabeled input), the others attributes `name` or `name:value`, and a blank line between
// sequences. In a name, `\:` stands for a colon and `\\` for a backslash, as
// in CRFsuite; any other backslash sequence is an ErrSyntax error. The first
// unescaped colon separates name and value; the value must be a finite float
// (ErrBadValue for text, NaN or ±Inf); a missing value means 1. Empty fields
// (two TABs in a row) are skipped. Positions with no attribute are allowed.
// Gzip, CRLF, the line limit, UTF-8 and the scanner contract are as for
// [CoNLLReader]; an input with no sequence is an ErrEmpty error.
//
// Next reads a sequence into the reader's own memory ([RawSequence], no
// string per name); Sequence makes its strings, once per sequence.
type CRFsuiteReader struct {
	lr    *lineReader
	opts  CRFsuiteOptions
	spans []span
	raw   RawSequence
	seq   Sequence
	built bool // seq holds raw's strings
	ok    bool // raw holds a sequence (the last Next that read returned true)
	count int
	err   error
	done  bool
}

// NewCRFsuiteReader returns a reader of r; name is used in error messages.
func NewCRFsuiteReader(name string, r io.Reader, opts CRFsuiteOptions) *CRFsuiteReader {
	return &CRFsuiteReader{lr: newLineReader(name, r, opts.MaxLineBytes), opts: opts}
}

// Next reads the next sequence and reports whether there was one.
func (r *CRFsuiteReader) Next() bool {
	if r.err != nil || r.done {
		return false
	}
	raw := &r.raw
	raw.reset(!r.opts.Unlabeled && !r.opts.IgnoreLabels)
	r.built, r.ok, r.seq = false, false, Sequence{}
	for {
		line, ok := r.lr.next()
		if !ok {
			if r.atEnd(raw.Len() > 0, raw.Weight) {
				r.count++
				r.ok = true
				return true
			}
			return false
		}
		if isBlank(line) {
			if raw.Len() > 0 {
				r.count++
				r.ok = true
				return true
			}
			if raw.Weight != 0 {
				r.fail(1, errorf(ErrSyntax, "a @weight line with no sequence after it"))
				return false
			}
			continue
		}
		if line[0] == '@' {
			// A declaration (CRFsuite's frontend/reader.c): @weight:w
			// weighs the sequence it is in; no other is known.
			w, col, err := parseWeightDecl(string(line), raw.Weight != 0)
			if err != nil {
				r.fail(col, err)
				return false
			}
			raw.Weight = w
			continue
		}
		if !r.item(line) {
			return false
		}
		if raw.Len() == 1 {
			raw.Line = r.lr.line
		}
	}
}

// atEnd handles the end of the input and reports whether to emit the
// sequence held (held: one is). A read error, a @weight line left without
// its sequence (weight != 0) and an input with no sequence at all are
// errors.
func (r *CRFsuiteReader) atEnd(held bool, weight float64) bool {
	if r.lr.err != nil {
		r.err = r.lr.err
		return false
	}
	r.done = true
	switch {
	case held:
		return true
	case weight != 0:
		r.err = &ParseError{File: r.lr.name, Line: r.lr.line, Err: errorf(ErrSyntax, "a @weight line with no sequence after it")}
	case r.count == 0:
		r.err = &ParseError{File: r.lr.name, Line: max(r.lr.line, 1), Err: errorf(ErrEmpty, "no sequences in input")}
	}
	return false
}

// item parses one item line (label, then attributes, tab-separated) and
// appends its label and attributes to r.raw; it reports false after
// recording an error (r.fail).
func (r *CRFsuiteReader) item(line []byte) bool {
	if col := checkUTF8(line); col > 0 {
		r.fail(col, errorf(ErrInvalidUTF8, "invalid UTF-8"))
		return false
	}
	sp := splitExact(r.spans[:0], line, '\t')
	r.spans = sp
	raw := &r.raw
	switch {
	case r.opts.IgnoreLabels && !r.opts.Unlabeled:
		sp = sp[1:]
	case !r.opts.Unlabeled:
		if sp[0].start == sp[0].end || isBlank(line[sp[0].start:sp[0].end]) {
			r.fail(1, errorf(ErrMissingLabel, "expected a label in the first field"))
			return false
		}
		if bytes.HasPrefix(line[sp[0].start:], utf8BOM) {
			// Only a file's first line may open with a BOM (skipped);
			// one here is most likely a second file concatenated to
			// the first, and the label would silently be a new one.
			r.fail(sp[0].start+1, errorf(ErrSyntax, "label starts with a byte-order mark (U+FEFF) inside the file: concatenated files?"))
			return false
		}
		raw.Labels = append(raw.Labels, line[sp[0].start:sp[0].end]...)
		raw.LabelPtr = append(raw.LabelPtr, len(raw.Labels))
		sp = sp[1:]
	}
	for _, f := range sp {
		if f.start == f.end {
			continue
		}
		names, v, col, err := appendAttr(raw.Names, line[f.start:f.end])
		if err != nil {
			r.fail(f.start+col, err)
			return false
		}
		raw.Names = names
		raw.NamePtr = append(raw.NamePtr, len(names))
		raw.Values = append(raw.Values, v)
	}
	raw.PosPtr = append(raw.PosPtr, len(raw.NamePtr)-1)
	return true
}

// MaxWeight bounds a sequence weight (@weight:w): a larger one would
// dominate any corpus and overflow the scores, so it is a mistake.
const MaxWeight = 1e6

// ParseWeight parses a sequence weight: a finite number above 0 and at
// most MaxWeight.
func ParseWeight(s string) (float64, error) {
	w, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	switch {
	case err != nil || math.IsNaN(w) || math.IsInf(w, 0):
		return 0, errorf(ErrBadValue, "sequence weight %q is not a finite number", s)
	case w <= 0:
		return 0, errorf(ErrBadValue, "sequence weight %s is not above 0 (leave the sequence out instead)", s)
	case w > MaxWeight:
		return 0, errorf(ErrBadValue, "sequence weight %s is above the maximum %g", s, float64(MaxWeight))
	}
	return w, nil
}

// parseWeightDecl parses a declaration line (it starts with '@'): only
// "@weight:w" alone on its line, once per sequence. On error it returns
// the 1-based column of the problem.
func parseWeightDecl(line string, again bool) (float64, int, error) {
	name, value, ok := strings.Cut(strings.TrimRight(line, "\t\r"), ":")
	switch {
	case name != "@weight":
		return 0, 1, errorf(ErrSyntax, "unknown declaration %q (CRFsuite knows only @weight:w; a label cannot start with @)", strings.SplitN(name, "\t", 2)[0])
	case !ok:
		return 0, 1, errorf(ErrSyntax, "@weight needs a value: @weight:w")
	case strings.Contains(value, "\t"):
		return 0, len(name) + 2 + strings.Index(value, "\t"), errorf(ErrSyntax, "@weight:w must be alone on its line")
	case again:
		return 0, 1, errorf(ErrSyntax, "a second @weight line for the same sequence")
	}
	w, err := ParseWeight(value)
	if err != nil {
		return 0, len(name) + 2, err
	}
	return w, 0, nil
}

// appendAttr parses one `name[:value]` field f: it appends the name,
// unescaped, to dst and returns it with the value (1 when f gives none).
// On error it returns the 1-based column of the problem inside the field.
func appendAttr(dst, f []byte) ([]byte, float64, int, error) {
	start := len(dst)
	colon := -1
	for i := 0; i < len(f); i++ {
		c := f[i]
		if c == '\\' {
			if i+1 >= len(f) || (f[i+1] != ':' && f[i+1] != '\\') {
				return dst[:start], 0, i + 1, errorf(ErrSyntax, `bad escape in attribute name: only \: and \\ are allowed`)
			}
			i++
			dst = append(dst, f[i])
			continue
		}
		if c == ':' {
			colon = i
			break
		}
		dst = append(dst, c)
	}
	if len(dst) == start {
		return dst, 0, 1, errorf(ErrSyntax, "empty attribute name")
	}
	if colon < 0 {
		return dst, 1, 0, nil
	}
	value := f[colon+1:]
	v, err := strconv.ParseFloat(string(value), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return dst[:start], 0, colon + 2, errorf(ErrBadValue, "attribute %q: expected a finite number after ':', got %q", dst[start:], value)
	}
	return dst, v, 0, nil
}

// escapeAttr escapes ':' and '\' in an attribute name.
func escapeAttr(s string) string {
	if !strings.ContainsAny(s, `:\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == ':' || s[i] == '\\' {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func (r *CRFsuiteReader) fail(col int, err error) {
	r.err = &ParseError{File: r.lr.name, Line: r.lr.line, Column: col, Err: err}
}

// Sequence returns the sequence read by the last successful call to Next
// (the zero Sequence after a Next that failed on bad input). Its Attrs is
// set and its Tokens is nil. Its slices and strings are its own: they are
// not reused.
func (r *CRFsuiteReader) Sequence() Sequence {
	if !r.built && r.ok {
		r.seq = r.raw.sequence()
		r.built = true
	}
	return r.seq
}

// Raw returns the sequence read by the last successful call to Next as
// bytes, in the reader's memory: the next Next overwrites it. Reading it
// allocates nothing.
func (r *CRFsuiteReader) Raw() *RawSequence { return &r.raw }

// Err returns the first error met, nil at a clean end of input.
func (r *CRFsuiteReader) Err() error { return r.err }

// ReadCRFsuite reads all sequences of a CRFsuite attribute file.
func ReadCRFsuite(name string, rd io.Reader, opts CRFsuiteOptions) ([]Sequence, error) {
	r := NewCRFsuiteReader(name, rd, opts)
	var out []Sequence
	for r.Next() {
		out = append(out, r.Sequence())
	}
	return out, r.Err()
}

// WriteCRFsuite writes s (which must have Attrs) in CRFsuite format followed
// by a blank line. Values equal to 1 are written as a bare name; others with
// strconv's shortest round-trip form. Names are escaped. It fails on a label
// or name that could not be read back (empty, holding a TAB or line break,
// or opening a line with a byte-order mark or @, which opens a declaration)
// and on a non-finite value. A Weight is written as a @weight:w line first.
func WriteCRFsuite(w io.Writer, s Sequence) error {
	if s.Tokens != nil && s.Attrs == nil {
		return fmt.Errorf("corpora: WriteCRFsuite: sequence has no attributes")
	}
	if s.Labels != nil && len(s.Labels) != len(s.Attrs) {
		return fmt.Errorf("corpora: WriteCRFsuite: %d labels for %d positions", len(s.Labels), len(s.Attrs))
	}
	// A field opening a line cannot start with a BOM (the reader skips one
	// opening the file and refuses labels starting with one); elsewhere
	// it is an ordinary character.
	bad := func(x string, opensLine bool) bool {
		return x == "" || strings.ContainsAny(x, "\t\r\n") || (opensLine && (strings.HasPrefix(x, "\uFEFF") || strings.HasPrefix(x, "@")))
	}
	var b strings.Builder
	if s.Weight != 0 {
		if _, err := ParseWeight(strconv.FormatFloat(s.Weight, 'g', -1, 64)); err != nil {
			return fmt.Errorf("corpora: WriteCRFsuite: %v", err)
		}
		b.WriteString("@weight:" + strconv.FormatFloat(s.Weight, 'g', -1, 64) + "\n")
	}
	for t, attrs := range s.Attrs {
		lineStart := b.Len()
		if s.Labels != nil {
			if bad(s.Labels[t], true) || strings.TrimLeft(s.Labels[t], " ") == "" {
				return fmt.Errorf("corpora: WriteCRFsuite: position %d: label %q cannot be written", t, s.Labels[t])
			}
			b.WriteString(s.Labels[t])
		}
		for j, a := range attrs {
			if bad(a.Name, s.Labels == nil && j == 0) || math.IsNaN(a.Value) || math.IsInf(a.Value, 0) {
				return fmt.Errorf("corpora: WriteCRFsuite: position %d attribute %d: %q:%v cannot be written", t, j, a.Name, a.Value)
			}
			if s.Labels != nil || j > 0 {
				b.WriteByte('\t')
			}
			b.WriteString(escapeAttr(a.Name))
			if a.Value != 1 {
				b.WriteByte(':')
				b.WriteString(strconv.FormatFloat(a.Value, 'g', -1, 64))
			}
		}
		if isBlank([]byte(b.String()[lineStart:])) {
			return fmt.Errorf("corpora: WriteCRFsuite: position %d would be a blank line", t)
		}
		b.WriteByte('\n')
	}
	b.WriteByte('\n')
	_, err := io.WriteString(w, b.String())
	return err
}
