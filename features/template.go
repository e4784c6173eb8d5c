package features

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// macroLetters are the macros of the template language: %x (the cell, as
// in CRF++) and the derived macros (see Template).
const macroLetters = "xlwpsv"

// maxAffix bounds the length n of %p[row,col,n] and %s[row,col,n].
const maxAffix = 32

// Limits on the numbers inside a %x[row,col] macro. CRF++ itself accepts
// row offsets in [-8, 8] only; larger offsets are accepted here (they expand
// to _B-9, _B+9, ... in the same way) but bounded so that position arithmetic
// can never overflow.
const (
	maxRowOffset = 1 << 16
	maxColumn    = 1 << 16
)

// TemplateError reports a malformed template, or a template that cannot be
// applied to a sequence (a macro naming a column the tokens do not have).
// Line and Column are 1-based; Column counts bytes within the line.
type TemplateError struct {
	File   string // name of the template file, if the caller knows it; "template" when empty
	Line   int    // 1-based line of the template source
	Column int    // 1-based byte column within the line
	Msg    string // what was found and what was expected
}

// Error returns "file:line:column: msg".
func (e *TemplateError) Error() string {
	f := e.File
	if f == "" {
		f = "template"
	}
	return fmt.Sprintf("%s:%d:%d: %s", f, e.Line, e.Column, e.Msg)
}

// segment is one piece of a template line: either literal text or a
// %x[row,col] macro.
type segment struct {
	lit      string // literal text; used when !macro
	macro    bool
	row, col int // macro offsets
	column   int // 1-based byte column of the '%' in the source line (for errors)
	derived  int // index in Template.derived of a derived macro's column, -1 for %x

	vec bool // a %v[row,col] macro (word vectors, see Valued)
}

// rule is one compiled U or B line with at least the type letter.
type rule struct {
	line int // 1-based source line
	segs []segment
}

// Template is a compiled CRF++ feature template. It is immutable after
// Compile and safe for concurrent use by multiple goroutines.
//
// # Language
//
// A template is a sequence of lines. Blank lines and lines whose first
// non-blank character is '#' are ignored. Every other line is a feature
// template whose first character is 'U' (unigram: the expanded string is an
// attribute that generates state features attribute × label) or 'B'
// (bigram). Leading and trailing blanks (space, tab, carriage return) of a
// line are not part of the template.
//
// The text of a line is copied literally into the attribute string, except
// for macros %x[row,col], which expand to column col (0-based) of the token
// at offset row (may be negative) from the current position. Offsets that
// fall before the first token expand to "_B-1", "_B-2", ... and offsets past
// the last token to "_B+1", "_B+2", ..., exactly as in CRF++.
//
// CRF++ has only %x. So that a model can read the words alone and still see
// their spelling (a part-of-speech tagger for raw text), four macros of this
// toolkit expand to a function of the cell, with the same row and column
// arguments and the same boundary strings:
//
//	%l[row,col]    the cell lower-cased (Unicode simple folding, strings.ToLower)
//	%w[row,col]    the cell's shape: each upper-case letter X, lower-case
//	               letter x, digit d, other runes as they are, runs of the
//	               same character collapsed ("Hello" Xx, "1,234.5" d,d.d,
//	               "U.S." X.X., "mid-1990s" x-dx)
//	%p[row,col,n]  the first n runes of the cell (all of it when shorter), n in 1-32
//	%s[row,col,n]  the last n runes of the cell
//
// A template with them is not a CRF++ template (CRF++ refuses it); Wapiti's
// %t and %m tests are not supported.
//
// Two more of this toolkit's features give attributes real values, for an
// encoder made with WithValued (see Valued for the exact expansion):
// %x over a column declared valued reads the name of the cell's name:value
// item and gives the attribute its value, and %v[row,col] expands to one
// attribute per dimension of the word vector of the cell, valued by its
// coordinates (at most one %v per line, in U lines only).
//
// A comment line "# columns: word, POS" names the token columns, in order,
// for messages about input that lacks some (ColumnNames); CRF++ reads it as
// the comment it is.
//
// A B line without any macro (typically the bare line "B") turns on the
// label transition features (previous label × label). A B line with macros,
// e.g. "B01:%x[0,0]", generates observation-conditioned transition features
// (attribute × previous label × label); its attributes go to the Pair
// dictionary and to row t of the corpus' Pair matrix, describing the
// transition from position t-1 to t (row 0 is always empty, as in CRF++,
// which builds bigram features from the second token on).
//
// Following CRF++, a template without any B line has no transition features
// at all; unlike CRF++, which gives each macro-free B line its own copy of
// the transition features, every macro-free B line means the same single
// L×L transition block.
type Template struct {
	src         string
	unary       []rule
	pair        []rule
	transitions bool
	ncols       int          // 1 + largest column named by a macro, 0 when none
	derived     []derivation // the derived columns, numbered from ncols on (see derive)
	columnNames []string     // from a "# columns:" comment, nil without one
	colLine     int          // line and column of a macro naming column ncols-1
	colColumn   int
	vectors     int // 1-based line of the first %v macro, 0 when none
}

// Compile parses a CRF++ template. Errors are of type *TemplateError and
// name the line and column of the first problem.
func Compile(src string) (*Template, error) {
	t := &Template{src: src}
	for i, line := range strings.Split(src, "\n") {
		if i == 0 {
			line = strings.TrimPrefix(line, "\uFEFF") // UTF-8 byte order mark
		}
		if err := t.compileLine(line, i+1); err != nil {
			return nil, err
		}
	}
	// A derived macro reads derived column ncols+k of the rows derive
	// makes (the input's first ncols columns, then the derived ones).
	for _, rules := range [][]rule{t.unary, t.pair} {
		for k := range rules {
			for j := range rules[k].segs {
				if s := &rules[k].segs[j]; s.macro && s.derived >= 0 {
					s.col = t.ncols + s.derived
				}
			}
		}
	}
	return t, nil
}

// MustCompile is like Compile but panics if the template cannot be parsed.
// It is meant for templates written as Go literals.
func MustCompile(src string) *Template {
	t, err := Compile(src)
	if err != nil {
		panic("features: MustCompile: " + err.Error())
	}
	return t
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f' }

func (t *Template) compileLine(line string, lineNo int) error {
	start := 0
	for start < len(line) && isBlank(line[start]) {
		start++
	}
	end := len(line)
	for end > start && isBlank(line[end-1]) {
		end--
	}
	if start == end {
		return nil
	}
	if line[start] == '#' {
		if names, ok := strings.CutPrefix(strings.TrimSpace(line[start+1:end]), "columns:"); ok && t.columnNames == nil {
			for _, n := range strings.Split(names, ",") {
				t.columnNames = append(t.columnNames, strings.TrimSpace(n))
			}
		}
		return nil
	}
	errAt := func(i int, format string, args ...any) error {
		return &TemplateError{Line: lineNo, Column: i + 1, Msg: fmt.Sprintf(format, args...)}
	}
	kind := line[start]
	if kind != 'U' && kind != 'B' {
		return errAt(start, "unknown template type %q: want a line starting with U (unigram), B (bigram) or # (comment)", kind)
	}
	r := rule{line: lineNo}
	lit := start // start of the pending literal text
	i := start + 1
	for i < end {
		if line[i] != '%' {
			i++
			continue
		}
		if i > lit {
			r.segs = append(r.segs, segment{lit: line[lit:i]})
		}
		pct := i
		mc, next, err := parseMacro(line, pct, end, errAt)
		if err != nil {
			return err
		}
		i = next
		seg := segment{macro: true, row: mc.row, col: mc.col, column: pct + 1, derived: -1, vec: mc.op == 'v'}
		if seg.vec {
			if err := t.checkVector(r.segs, kind, lineNo, pct); err != nil {
				return err
			}
		} else if mc.op != 'x' {
			seg.derived = t.derivedColumn(derivation{op: mc.op, col: mc.col, n: mc.n})
		}
		r.segs = append(r.segs, seg)
		if mc.col+1 > t.ncols {
			t.ncols, t.colLine, t.colColumn = mc.col+1, lineNo, pct+1
		}
		lit = i
	}
	if end > lit {
		r.segs = append(r.segs, segment{lit: line[lit:end]})
	}
	if kind == 'U' {
		t.unary = append(t.unary, r)
		return nil
	}
	t.transitions = true
	for _, s := range r.segs {
		if s.macro {
			t.pair = append(t.pair, r)
			break
		}
	}
	return nil
}

// macro is one parsed macro of a template line: %x[row,col], or %l, %w
// [row,col], %p, %s [row,col,n].
type macro struct {
	op       byte
	row, col int
	n        int // the affix length of %p and %s
}

// parseMacro parses the macro whose '%' is at line[pct] (the line's text
// ends at end) and returns it and the index after its ']'; errAt makes
// its errors (line and column).
func parseMacro(line string, pct, end int, errAt func(i int, format string, args ...any) error) (macro, int, error) {
	i := pct + 1
	if i >= end {
		return macro{}, 0, errAt(pct, "'%%' at end of line: want a macro %%x[row,col]")
	}
	op := line[i]
	if !strings.ContainsRune(macroLetters, rune(op)) {
		return macro{}, 0, errAt(pct, "unknown macro %%%s: want %%x[row,col] (or %%l, %%w, %%v [row,col], %%p, %%s [row,col,n])", quoteRune(line[i:end]))
	}
	i++
	if i >= end || line[i] != '[' {
		return macro{}, 0, errAt(i, "want '[' after %%%c", op)
	}
	i++
	row, j, msg := parseInt(line[:end], i, true, maxRowOffset)
	if msg != "" {
		return macro{}, 0, errAt(j, "row offset: %s", msg)
	}
	i = j
	if i >= end || line[i] != ',' {
		return macro{}, 0, errAt(i, "want ',' after the row offset of %%x[row,col]")
	}
	i++
	col, j, msg := parseInt(line[:end], i, false, maxColumn)
	if msg != "" {
		return macro{}, 0, errAt(j, "column: %s", msg)
	}
	i = j
	n := 0
	if op == 'p' || op == 's' {
		if i >= end || line[i] != ',' {
			return macro{}, 0, errAt(i, "want ',' and a length after the column of %%%c[row,col,n]", op)
		}
		i++
		n, j, msg = parseInt(line[:end], i, false, maxAffix)
		if msg == "" && n == 0 {
			msg = fmt.Sprintf("want a length from 1 to %d", maxAffix)
		}
		if msg != "" {
			return macro{}, 0, errAt(j, "length: %s", msg)
		}
		i = j
	}
	if i >= end || line[i] != ']' {
		if op == 'p' || op == 's' {
			return macro{}, 0, errAt(i, "want ']' to close %%%c[row,col,n]", op)
		}
		return macro{}, 0, errAt(i, "want ']' to close %%%c[row,col]", op)
	}
	return macro{op: op, row: row, col: col, n: n}, i + 1, nil
}

// quoteRune returns the first rune of s as a quoted Go rune literal, for
// error messages.
func quoteRune(s string) string {
	for _, r := range s {
		return strconv.QuoteRune(r)
	}
	return `""`
}

// parseInt reads an optionally signed decimal integer at s[i:] and returns it
// and the index after it. On failure it returns a message and the index of the
// offending byte.
func parseInt(s string, i int, signed bool, limit int) (int, int, string) {
	neg := false
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		if !signed {
			return 0, i, "want a non-negative integer"
		}
		neg = s[i] == '-'
		i++
	}
	d := i
	v := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		v = v*10 + int(s[i]-'0')
		if v > limit {
			return 0, d, fmt.Sprintf("integer too large (limit %d)", limit)
		}
		i++
	}
	if i == d {
		if i < len(s) {
			return 0, i, fmt.Sprintf("want an integer, found %s", quoteRune(s[i:]))
		}
		return 0, i, "want an integer, found end of line"
	}
	if neg {
		v = -v
	}
	return v, i, ""
}

// Source returns the exact text the template was compiled from. Compiling it
// again gives an equivalent template; model files store it.
func (t *Template) Source() string { return t.src }

// HasTransitions reports whether the template has at least one B line, which
// (following CRF++) turns on the label transition features.
func (t *Template) HasTransitions() bool { return t.transitions }

// NumUnary returns the number of U lines: each yields one unary attribute per
// position.
func (t *Template) NumUnary() int { return len(t.unary) }

// NumPair returns the number of B lines with at least one macro: each yields
// one pair attribute per position after the first.
func (t *Template) NumPair() int { return len(t.pair) }

// Columns returns the number of token columns the template needs: one more
// than the largest column named by a macro, or 0 if there is no macro.
func (t *Template) Columns() int { return t.ncols }

// ColumnNames returns the names of the token columns given by the
// template's first "# columns: a, b, ..." comment line, nil without one.
// The slice must not be modified.
func (t *Template) ColumnNames() []string { return t.columnNames }

// check verifies that every token has the columns the template needs.
func (t *Template) check(cols [][]string) error {
	if t.ncols == 0 {
		return nil
	}
	for i, tok := range cols {
		if len(tok) < t.ncols {
			return &TemplateError{Line: t.colLine, Column: t.colColumn,
				Msg: fmt.Sprintf("macro names column %d, but token %d has only %d column(s)", t.ncols-1, i, len(tok))}
		}
	}
	return nil
}

// appendRule appends the expansion of r at position pos of cols to dst.
// cols must have passed check.
func appendRule(dst []byte, r *rule, cols [][]string, pos int) []byte {
	return appendRuleDim(dst, r, cols, pos, 0)
}

// appendRuleDim is appendRule for a line that may have a %v macro, which
// expands to dim (the caller has checked that its word has a vector).
func appendRuleDim(dst []byte, r *rule, cols [][]string, pos, dim int) []byte {
	n := len(cols)
	for k := range r.segs {
		s := &r.segs[k]
		switch i := pos + s.row; {
		case !s.macro:
			dst = append(dst, s.lit...)
		case s.vec:
			dst = strconv.AppendInt(dst, int64(dim), 10)
		case i < 0:
			dst = append(dst, "_B-"...)
			dst = strconv.AppendInt(dst, int64(-i), 10)
		case i >= n:
			dst = append(dst, "_B+"...)
			dst = strconv.AppendInt(dst, int64(i-n+1), 10)
		default:
			dst = append(dst, cols[i][s.col]...)
		}
	}
	return dst
}

// Expand returns the attribute strings of position pos of the sequence cols
// (cols[t][c] is column c of token t): one per U line, in template order, and
// one per B line with macros (none at position 0). It allocates and is meant
// for inspection and tests; encoding goes through an Encoder.
func (t *Template) Expand(cols [][]string, pos int) (unary, pair []string, err error) {
	if pos < 0 || pos >= len(cols) {
		return nil, nil, fmt.Errorf("features: Expand: position %d out of range [0,%d)", pos, len(cols))
	}
	if err := t.check(cols); err != nil {
		return nil, nil, err
	}
	if t.vectors != 0 {
		return nil, nil, &TemplateError{Line: t.vectors, Column: 1, Msg: "Expand does not expand %v (word vectors): encode with an encoder that has embeddings (WithValued)"}
	}
	cols, _, _ = t.derive(cols, nil, nil)
	var buf []byte
	for k := range t.unary {
		buf = appendRule(buf[:0], &t.unary[k], cols, pos)
		unary = append(unary, string(buf))
	}
	if pos > 0 {
		for k := range t.pair {
			buf = appendRule(buf[:0], &t.pair[k], cols, pos)
			pair = append(pair, string(buf))
		}
	}
	return unary, pair, nil
}

// derivation is a derived column: op ('l', 'w', 'p' or 's', the macro's
// letter) applied to input column col, n runes for 'p' and 's'.
type derivation struct {
	op  byte
	col int
	n   int
}

// derivedColumn returns the index of d in t.derived, adding it: macros of
// the same function of the same column read one derived column.
func (t *Template) derivedColumn(d derivation) int {
	for k, e := range t.derived {
		if e == d {
			return k
		}
	}
	t.derived = append(t.derived, d)
	return len(t.derived) - 1
}

// width returns the number of columns of the rows the macros read: the
// input's first ncols columns, then the derived ones.
func (t *Template) width() int { return t.ncols + len(t.derived) }

// apply returns the derived value of cell.
func (d derivation) apply(cell string) string {
	switch d.op {
	case 'l':
		return strings.ToLower(cell)
	case 'w':
		return shape(cell)
	case 'p':
		k := 0
		for i := range cell {
			if k == d.n {
				return cell[:i]
			}
			k++
		}
		return cell
	case 's':
		k := 0
		for i := len(cell); i > 0; {
			if k == d.n {
				return cell[i:]
			}
			_, size := utf8.DecodeLastRuneInString(cell[:i])
			i -= size
			k++
		}
		return cell
	}
	panic("features: unknown derivation " + string(d.op))
}

// shape returns the shape of s for %w: X for an upper-case letter, x for a
// lower-case one, d for a digit, other runes as they are, each run of one
// character collapsed.
func shape(s string) string {
	b := make([]byte, 0, len(s))
	var last rune = -1
	for _, r := range s {
		c := r
		switch {
		case unicode.IsUpper(r):
			c = 'X'
		case unicode.IsLower(r):
			c = 'x'
		case unicode.IsDigit(r):
			c = 'd'
		}
		if c == last {
			continue
		}
		last = c
		b = utf8.AppendRune(b, c)
	}
	return string(b)
}

// derive returns the rows the macros read for the tokens cols (which have
// passed check): cols itself without derived macros, else rows of width()
// cells, the first ncols of each token, then its derived columns, made in
// rows and cells (reused scratch, returned for the next call).
func (t *Template) derive(cols [][]string, rows [][]string, cells []string) ([][]string, [][]string, []string) {
	if len(t.derived) == 0 {
		return cols, rows, cells
	}
	w := t.width()
	rows, cells = rows[:0], slices.Grow(cells[:0], len(cols)*w)
	for _, tok := range cols {
		start := len(cells)
		cells = append(cells, tok[:t.ncols]...)
		for _, d := range t.derived {
			cells = append(cells, d.apply(tok[d.col]))
		}
		rows = append(rows, cells[start:start+w:start+w])
	}
	return rows, rows, cells
}
