package features

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/sparsetag/sparsetag/sparse"
)

// Valued gives a template encoder real-valued attributes: token columns
// that hold name:value items, and word vectors.
//
// # Valued columns
//
// A cell of a column listed in Columns (0-based, as in %x[row,col]) holds
// one item "name:value" or "name" (value 1), as a CRFsuite attribute: the
// first unescaped ':' separates name and value, `\:` stands for a colon and
// `\\` for a backslash in the name, the value is a finite number. Macros
// read the name: %x[row,col] expands to it, %l, %w, %p and %s to a function
// of it. The attribute a template line expands to has as value the product
// of the values of the valued cells its macros read (1 for a line that
// reads none, and for offsets outside the sequence, which expand to _B-1,
// _B+1, ... as usual). An attribute whose value is 0 is left out (it would
// add nothing to any score).
//
// # Word vectors
//
// A template line with a macro %v[row,col] expands, at position t, to D
// attributes (D = Embeddings.Dim()): the line with the macro replaced by
// the dimension 0, 1, ..., D-1, valued by the coordinates of the vector of
// the word in column col of token t+row (times the values of the line's
// valued cells, if any). "U50:%v[-1,0]" gives "U50:0" ... "U50:49", the
// vector of the previous word. Coordinates equal to 0 give no attribute;
// an unknown word (see Embeddings) and an offset outside the sequence give
// none at all (the zero vector). A line has at most one %v, and only U
// lines may have one.
//
// # Rows
//
// The rows of an encoder with Valued carry values (sparse.Matrix.Val):
// binary attributes have value 1. Attributes of the same name at one
// position (two lines that expand to the same string) add their values.
// Encoding builds attribute strings (the frozen lookup of plain templates
// is not used) and allocates nothing per token in steady state (a name
// with escapes is unescaped into a new string). The
// encoded corpus holds every non-zero coordinate of every vector a
// template reads, 12 bytes each (id and value), unless the encoder stores
// the pure %v lines as dense blocks (DenseVectors: 4 bytes per position
// and line); the table itself is held once, by the Embeddings.
type Valued struct {
	Columns    []int       // 0-based columns holding name:value items, increasing
	Embeddings *Embeddings // the vectors %v reads; nil when the template has no %v
}

// valued is an encoder's Valued, checked.
type valued struct {
	cols  []int
	isVal []bool // isVal[c]: input column c is valued (len ncols)
	emb   *Embeddings

	// dense: encode the pure %v lines as dense blocks (DenseVectors).
	dense bool
	// block[k] is the dense block of unary rule k, -1 for a rule that is
	// not a pure %v line (pureVector); nblocks counts the blocks.
	block   []int
	nblocks int
}

// HasVectors reports whether the template has a %v macro.
func (t *Template) HasVectors() bool { return t.vectors != 0 }

// checkVector checks a %v macro at byte pct of line lineNo, in a line of
// the given kind whose segments so far are segs.
func (t *Template) checkVector(segs []segment, kind byte, lineNo, pct int) error {
	if kind != 'U' {
		return &TemplateError{Line: lineNo, Column: pct + 1, Msg: "%v (word vectors) may only appear in U lines"}
	}
	for _, s := range segs {
		if s.vec {
			return &TemplateError{Line: lineNo, Column: pct + 1, Msg: "a second %v on one line: want at most one (their product would have D×D attributes)"}
		}
	}
	if t.vectors == 0 {
		t.vectors = lineNo
	}
	return nil
}

// WithValued returns an encoder that reads what the template encoder e
// reads, with the valued columns and word vectors of v (see Valued), and
// shares e's dictionaries. A zero v returns e itself, so that an encoder
// without valued input stays the plain one. It is an error if e is not a
// template encoder, if a column is not read by the template or listed
// twice, or if embeddings are given without a %v in the template or
// missing with one.
func WithValued(e *Encoder, v Valued) (*Encoder, error) {
	if len(v.Columns) == 0 && v.Embeddings == nil {
		return e, nil
	}
	if e.kind != KindTemplate {
		return nil, fmt.Errorf("features: valued columns and embeddings need a template encoder, not %v", e.kind)
	}
	t := e.tmpl
	val := &valued{cols: slices.Clone(v.Columns), isVal: make([]bool, t.ncols), emb: v.Embeddings}
	for i, c := range v.Columns {
		switch {
		case c < 0 || c >= t.ncols:
			return nil, fmt.Errorf("features: valued column %d: the template reads columns 0 to %d", c, t.ncols-1)
		case i > 0 && c <= v.Columns[i-1]:
			return nil, fmt.Errorf("features: valued columns %v: want increasing column numbers", v.Columns)
		}
		val.isVal[c] = true
	}
	switch {
	case v.Embeddings != nil && t.vectors == 0:
		return nil, errors.New("features: embeddings given, but the template has no %v[row,col] macro to read them")
	case v.Embeddings == nil && t.vectors != 0:
		return nil, errNoEmbeddings(t)
	}
	val.block = make([]int, len(t.unary))
	for k := range t.unary {
		val.block[k] = -1
		if val.emb != nil && pureVector(&t.unary[k], val.isVal) {
			val.block[k] = val.nblocks
			val.nblocks++
		}
	}
	r := e.Clone()
	r.val = val
	return r, nil
}

func errNoEmbeddings(t *Template) error {
	return &TemplateError{Line: t.vectors, Column: 1, Msg: "the template reads word vectors (%v) but the encoder has no embeddings (see WithValued)"}
}

// Valued returns the valued columns and embeddings of the encoder (zero
// for an encoder without them). The slice must not be modified.
func (e *Encoder) Valued() Valued {
	if e.val == nil {
		return Valued{}
	}
	return Valued{Columns: e.val.cols, Embeddings: e.val.emb}
}

// columnsValued is columns for an encoder with Valued (or a template with
// %v and no embeddings, an error); dst nil means count only.
func (e *Encoder) columnsValued(dst *sparse.Corpus, cols [][]string, grow bool) error {
	if e.val == nil {
		return errNoEmbeddings(e.tmpl)
	}
	if err := e.splitItems(cols); err != nil {
		return err
	}
	rows := e.vrows
	rows, e.drows, e.dcells = e.tmpl.derive(rows, e.drows, e.dcells)
	pair := e.hasPair()
	var blocks []sparse.Dense
	if dst != nil && e.val.dense && e.val.nblocks > 0 {
		blocks = e.denseBlocks(dst)
	}
	for t := range rows {
		ids, vals, err := e.expandValued(e.tmpl.unary, e.unary, rows, t, grow, blocks)
		if err != nil {
			return err
		}
		if dst != nil {
			startRow(&dst.Unary)
			if blocks != nil && dst.Unary.Val == nil && allOnes(vals) {
				vals = nil // the rest of a row whose vectors are blocks stays binary
			}
			dst.Unary.AppendRow(ids, vals)
		}
		if !pair {
			continue
		}
		ids, vals = e.ids[:0], e.vals[:0]
		if t > 0 {
			if ids, vals, err = e.expandValued(e.tmpl.pair, e.pair, rows, t, grow, nil); err != nil {
				return err
			}
		}
		if dst != nil {
			startRow(&dst.Pair)
			dst.Pair.AppendRow(ids, vals)
		}
	}
	return nil
}

// splitItems makes e.vrows, the tokens' first ncols cells with the valued
// ones replaced by their names, and e.vvals, the value of cell c of token
// t at t*ncols+c (1 for a string column).
func (e *Encoder) splitItems(cols [][]string) error {
	nc := e.tmpl.ncols
	e.vrows, e.vcells = e.vrows[:0], slices.Grow(e.vcells[:0], len(cols)*nc)
	e.vvals = slices.Grow(e.vvals[:0], len(cols)*nc)
	for t, tok := range cols {
		start := len(e.vcells)
		for c := range nc {
			name, v := tok[c], 1.0
			if e.val.isVal[c] {
				var err error
				if name, v, err = parseItem(tok[c]); err != nil {
					return fmt.Errorf("features: token %d, column %d (counting from 1): %w", t+1, c+1, err)
				}
			}
			e.vcells = append(e.vcells, name)
			e.vvals = append(e.vvals, v)
		}
		e.vrows = append(e.vrows, e.vcells[start:start+nc:start+nc])
	}
	return nil
}

// parseItem splits a valued cell into its name (unescaped) and value.
func parseItem(cell string) (string, float64, error) {
	colon, escaped := -1, false
	for i := 0; i < len(cell) && colon < 0; i++ {
		switch cell[i] {
		case '\\':
			if i+1 >= len(cell) || (cell[i+1] != ':' && cell[i+1] != '\\') {
				return "", 0, fmt.Errorf(`bad escape in %q: only \: and \\ are allowed`, cell)
			}
			escaped = true
			i++
		case ':':
			colon = i
		}
	}
	name, v := cell, 1.0
	if colon >= 0 {
		name = cell[:colon]
		var err error
		v, err = strconv.ParseFloat(cell[colon+1:], 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return "", 0, fmt.Errorf("item %q: want name:value with a finite number after ':'", cell)
		}
	}
	if name == "" {
		return "", 0, fmt.Errorf("item %q has an empty name: want name:value", cell)
	}
	if escaped {
		var b strings.Builder
		for i := 0; i < len(name); i++ {
			if name[i] == '\\' {
				i++
			}
			b.WriteByte(name[i])
		}
		name = b.String()
	}
	return name, v, nil
}

// expandValued returns the ids and values of rules at position t (in e.ids
// and e.vals), sorted by id with the values of equal ids added, adding and
// counting the attributes when grow.
// blocks, when not nil, are the dense blocks of the rules with a block
// (valued.block, unary rules only), to which those rules append the word
// instead (denseRule).
func (e *Encoder) expandValued(rules []rule, d *Dictionary, rows [][]string, t int, grow bool, blocks []sparse.Dense) ([]int32, []float64, error) {
	e.ids, e.vals = e.ids[:0], e.vals[:0]
	for k := range rules {
		r := &rules[k]
		v, vec, word := e.ruleValue(r, rows, t)
		if blocks != nil && e.val.block[k] >= 0 {
			if err := e.denseRule(&blocks[e.val.block[k]], r, d, rows, t, vec, word, grow); err != nil {
				return nil, nil, err
			}
			continue
		}
		if v == 0 {
			continue
		}
		if vec == nil {
			e.buf = appendRuleDim(e.buf[:0], r, rows, t, 0)
			if err := e.addValued(d, v, grow); err != nil {
				return nil, nil, err
			}
			continue
		}
		for dim, x := range vec {
			if x == 0 {
				continue
			}
			e.buf = appendRuleDim(e.buf[:0], r, rows, t, dim)
			if err := e.addValued(d, v*x, grow); err != nil {
				return nil, nil, err
			}
		}
	}
	ids, vals := e.sortMerge(e.ids, e.vals)
	e.ids, e.vals = ids, vals
	if grow {
		count(d, ids)
	}
	return ids, vals, nil
}

// addValued appends the id of the attribute e.buf and the value v to
// e.ids and e.vals; an unknown attribute is added when grow, else skipped.
func (e *Encoder) addValued(d *Dictionary, v float64, grow bool) error {
	id, ok := d.lookup(e.buf)
	if !ok {
		if !grow {
			return nil
		}
		var err error
		if id, err = d.addBytes(e.buf); err != nil {
			return err
		}
	}
	e.ids, e.vals = append(e.ids, id), append(e.vals, v)
	return nil
}

// ruleValue returns the product of the values of the valued cells r reads
// at position t, and the vector of its %v macro (nil without one). A %v
// whose word is unknown or outside the sequence gives the value 0. word is
// the vector's row in the table (-1 without one).
func (e *Encoder) ruleValue(r *rule, rows [][]string, t int) (v float64, vec []float64, word int32) {
	v, n, nc := 1.0, len(rows), e.tmpl.ncols
	word = -1
	for k := range r.segs {
		s := &r.segs[k]
		i := t + s.row
		if !s.macro || i < 0 || i >= n {
			if s.macro && s.vec {
				return 0, nil, -1
			}
			continue
		}
		c := s.col
		if s.derived >= 0 {
			c = e.tmpl.derived[s.derived].col
		}
		if e.val.isVal[c] {
			v *= e.vvals[i*nc+c]
		}
		if s.vec {
			if word = e.val.emb.lookupIndex(rows[i][s.col], &e.lbuf); word < 0 {
				return 0, nil, -1
			}
			vec = e.val.emb.Vector(int(word))
		}
	}
	return v, vec, word
}
