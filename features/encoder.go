package features

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/sparsetag/sparsetag/sparse"
)

// Kind says what an Encoder reads.
type Kind uint8

// The kinds of input. The zero Kind is invalid, so that a zeroed field in a
// model file is detected.
const (
	// KindTemplate: token columns ([][]string) expanded by a CRF++ template.
	KindTemplate Kind = 1
	// KindAttributes: name:value attributes per position, as in CRFsuite.
	KindAttributes Kind = 2
	// KindPixels: 16×8 binary OCR images, one per position.
	KindPixels Kind = 3
)

// String returns "template", "attributes" or "pixels".
func (k Kind) String() string {
	switch k {
	case KindTemplate:
		return "template"
	case KindAttributes:
		return "attributes"
	case KindPixels:
		return "pixels"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Encoder turns sequences into rows of a sparse.Corpus, through attribute
// dictionaries. The same Encoder (or one rebuilt with NewEncoderFrom) is used
// at training and at tagging time.
//
// Unary attributes generate state features (attribute × label) and go to
// the Unary dictionary and matrix; pair attributes (only from B template
// lines with macros) generate observation-conditioned transition features
// (attribute × previous label × label) and go to the Pair dictionary and
// matrix.
//
// Within one position every attribute appears at most once and the ids of
// a row are sorted increasingly. Binary attributes (templates, pixels,
// attributes given without values) that occur twice are kept once: a
// feature is present or not. (CRF++ would count a duplicate twice; this can
// only happen with two template lines of the same name that expand to the
// same string, which is a template mistake.) Valued attributes of the same
// name at one position are merged by adding their values, which gives the
// same scores as CRFsuite, which keeps both and sums their contributions.
//
// In steady state (grow=false, or no new attribute, and a corpus with
// enough capacity) encoding allocates nothing. While the dictionaries grow,
// expanded strings are built in a reused byte buffer and looked up with
// m[string(b)]; once both are frozen, template attributes are found from
// the tokens' interned cell values by a lookup built on first use and
// shared by clones (see frozenIndex), which gives the same ids without
// building strings.
//
// An Encoder is not safe for concurrent use; use Clone to get one per
// goroutine (clones share the template and the dictionaries, which must then
// be frozen).
type Encoder struct {
	kind  Kind
	tmpl  *Template
	pix   PixelOptions
	unary *Dictionary
	pair  *Dictionary
	lazy  *lazyIndex // the frozen lookup of a template encoder, shared by clones
	gidx  *growIndex // the growing template encoder's cache (nil until used; growindex.go)
	val   *valued    // valued columns and word vectors (WithValued), nil without

	// scratch, reused across calls
	buf    []byte
	cells  []int32 // value ids of a sequence's cells (frozen index)
	uprobe []int32 // probe buffers of the unary and pair groups (frozen index)
	pprobe []int32
	ids    []int32
	vals   []float64
	strs   []string
	drows  [][]string // the rows of derived columns (Template.derive)
	dcells []string
	srt    idValSorter
	vrows  [][]string // the cells' names and values (valued.go)
	vcells []string
	vvals  []float64
	lbuf   []byte // a lower-cased word (Embeddings.lookup)
}

var sharedPixelNames = sync.OnceValue(newPixelNames)

// NewTemplateEncoder returns a growing encoder for token columns and the
// template t.
func NewTemplateEncoder(t *Template) *Encoder {
	if t == nil {
		panic("features: NewTemplateEncoder: nil template")
	}
	return &Encoder{kind: KindTemplate, tmpl: t, unary: NewDictionary(), pair: NewDictionary(), lazy: new(lazyIndex)}
}

// NewAttributeEncoder returns a growing encoder for name:value attributes.
func NewAttributeEncoder() *Encoder {
	return &Encoder{kind: KindAttributes, unary: NewDictionary(), pair: NewDictionary()}
}

// NewPixelEncoder returns a growing encoder for OCR images with the given
// options. It panics if opts has unknown bits.
func NewPixelEncoder(opts PixelOptions) *Encoder {
	if opts&^pixelAll != 0 {
		panic("features: NewPixelEncoder: unknown option bits " + opts.String())
	}
	return &Encoder{kind: KindPixels, pix: opts, unary: NewDictionary(), pair: NewDictionary()}
}

// NewEncoderFrom rebuilds an encoder from its serialized parts (see Kind,
// Template().Source(), PixelOptions, and the dictionaries' Names): the
// template source is compiled for KindTemplate and ignored otherwise; opts is
// used for KindPixels only and must be 0 otherwise; unary and pair are the
// attribute names in id order. The dictionaries are frozen. Pair names are
// only allowed for a template with macro B lines.
func NewEncoderFrom(kind Kind, templateSource string, opts PixelOptions, unary, pair []string) (*Encoder, error) {
	e := &Encoder{kind: kind}
	switch kind {
	case KindTemplate:
		t, err := Compile(templateSource)
		if err != nil {
			return nil, fmt.Errorf("features: NewEncoderFrom: %w", err)
		}
		e.tmpl, e.lazy = t, new(lazyIndex)
	case KindAttributes:
	case KindPixels:
		if opts&^pixelAll != 0 {
			return nil, fmt.Errorf("features: NewEncoderFrom: unknown pixel option bits %#x", uint32(opts&^pixelAll))
		}
		e.pix = opts
	default:
		return nil, fmt.Errorf("features: NewEncoderFrom: invalid kind %d", uint8(kind))
	}
	if kind != KindPixels && opts != 0 {
		return nil, fmt.Errorf("features: NewEncoderFrom: pixel options %v given for kind %v", opts, kind)
	}
	if len(pair) > 0 && (e.tmpl == nil || e.tmpl.NumPair() == 0) {
		return nil, fmt.Errorf("features: NewEncoderFrom: %d pair attributes, but the %v encoder has no B template with macros", len(pair), kind)
	}
	var err error
	if e.unary, err = NewDictionaryFrom(unary); err != nil {
		return nil, fmt.Errorf("unary attributes: %w", err)
	}
	if e.pair, err = NewDictionaryFrom(pair); err != nil {
		return nil, fmt.Errorf("pair attributes: %w", err)
	}
	return e, nil
}

// Clone returns an encoder sharing e's template, options and dictionaries,
// with its own scratch buffers. Clones may encode concurrently with grow=false
// once the dictionaries are frozen.
func (e *Encoder) Clone() *Encoder {
	return &Encoder{kind: e.kind, tmpl: e.tmpl, pix: e.pix, unary: e.unary, pair: e.pair, lazy: e.lazy, val: e.val}
}

// Part returns a growing encoder of e's template with empty dictionaries,
// to encode a part of a training corpus on another goroutine (MergePart
// then brings its attributes into e's dictionaries), and whether e can be
// split so: a growing template encoder without valued columns or vectors.
func (e *Encoder) Part() (*Encoder, bool) {
	if e.kind != KindTemplate || e.val != nil || e.tmpl.vectors != 0 || e.unary.frozen || e.pair.frozen {
		return nil, false
	}
	return NewTemplateEncoder(e.tmpl), true
}

// MergePart merges the dictionaries of p (from Part, having encoded the
// part of the corpus that follows what e has encoded) into e's (see
// Dictionary.Merge) and returns the maps from p's unary and pair ids to
// e's.
func (e *Encoder) MergePart(p *Encoder) (unary, pair []int32, err error) {
	if unary, err = e.unary.Merge(p.unary); err != nil {
		return nil, nil, err
	}
	if pair, err = e.pair.Merge(p.pair); err != nil {
		return nil, nil, err
	}
	return unary, pair, nil
}

// Kind returns what the encoder reads.
func (e *Encoder) Kind() Kind { return e.kind }

// Template returns the template of a KindTemplate encoder, nil otherwise.
func (e *Encoder) Template() *Template { return e.tmpl }

// PixelOptions returns the options of a KindPixels encoder, 0 otherwise.
func (e *Encoder) PixelOptions() PixelOptions { return e.pix }

// Unary returns the dictionary of unary attributes (state features).
func (e *Encoder) Unary() *Dictionary { return e.unary }

// Pair returns the dictionary of pair attributes (observation-conditioned
// transition features); it stays empty unless the template has B lines with
// macros.
func (e *Encoder) Pair() *Dictionary { return e.pair }

// HasTransitions reports whether models built on this encoder have label
// transition features: for templates, Template.HasTransitions (CRF++
// semantics: only with a B line); attribute and pixel encoders always have
// them (as in CRFsuite).
func (e *Encoder) HasTransitions() bool {
	if e.kind == KindTemplate {
		return e.tmpl.HasTransitions()
	}
	return true
}

// hasPair reports whether the encoder produces Pair rows.
func (e *Encoder) hasPair() bool { return e.tmpl != nil && len(e.tmpl.pair) > 0 }

// Freeze freezes both dictionaries, first removing attributes counted fewer
// than minFreq times (see Dictionary.Freeze). Corpora encoded before a
// pruning Freeze must be encoded again. It lets the growing encoder's
// cache go (growindex.go).
func (e *Encoder) Freeze(minFreq int) {
	e.unary.Freeze(minFreq)
	e.pair.Freeze(minFreq)
	e.gidx = nil // the cache serves growing dictionaries only
}

// mark records the lengths of a corpus' slices so that a failed encode can
// leave it unchanged.
type mark struct {
	seq, labels       int
	uRow, uCol, uVal  int
	pRow, pCol, pVal  int
	numUnary, numPair int
}

func markOf(c *sparse.Corpus) mark {
	return mark{len(c.SeqPtr), len(c.Labels),
		len(c.Unary.RowPtr), len(c.Unary.Col), len(c.Unary.Val),
		len(c.Pair.RowPtr), len(c.Pair.Col), len(c.Pair.Val),
		c.NumUnary, c.NumPair}
}

func (m mark) restore(c *sparse.Corpus) {
	c.SeqPtr, c.Labels = c.SeqPtr[:m.seq], c.Labels[:m.labels]
	c.Unary.RowPtr, c.Unary.Col = c.Unary.RowPtr[:m.uRow], c.Unary.Col[:m.uCol]
	if c.Unary.Val != nil {
		c.Unary.Val = c.Unary.Val[:m.uVal]
	}
	c.Pair.RowPtr, c.Pair.Col = c.Pair.RowPtr[:m.pRow], c.Pair.Col[:m.pCol]
	if c.Pair.Val != nil {
		c.Pair.Val = c.Pair.Val[:m.pVal]
	}
	c.NumUnary, c.NumPair = m.numUnary, m.numPair
	npos := c.Positions()
	for k := range c.Dense {
		c.Dense[k].Word = c.Dense[k].Word[:npos]
	}
}

// begin checks everything that does not depend on the kind of input.
func (e *Encoder) begin(dst *sparse.Corpus, n int, labels []int32, grow bool) error {
	if grow && (e.unary.frozen || e.pair.frozen) {
		return ErrFrozen
	}
	if labels != nil && len(labels) != n {
		return fmt.Errorf("features: %d labels for %d positions", len(labels), n)
	}
	for t, y := range labels {
		if y < 0 {
			return fmt.Errorf("features: position %d has negative label %d", t, y)
		}
	}
	if dst == nil {
		return nil
	}
	if n > math.MaxInt32-dst.Positions() {
		return errors.New("features: corpus would exceed 2^31-1 positions")
	}
	if npos := dst.Positions(); npos > 0 && n > 0 && (dst.Labels == nil) != (labels == nil) {
		if labels == nil {
			return errors.New("features: unlabeled sequence appended to a labeled corpus")
		}
		return errors.New("features: labeled sequence appended to an unlabeled corpus")
	}
	if dst.Unary.Rows() != dst.Positions() {
		return fmt.Errorf("features: corpus has %d unary rows for %d positions", dst.Unary.Rows(), dst.Positions())
	}
	want := 0
	if e.hasPair() {
		want = dst.Positions()
	}
	if dst.Pair.Rows() != want {
		return fmt.Errorf("features: corpus has %d pair rows, want %d for this encoder", dst.Pair.Rows(), want)
	}
	return nil
}

// finish appends the labels and the sequence boundary.
func (e *Encoder) finish(dst *sparse.Corpus, n int, labels []int32) {
	if len(dst.SeqPtr) == 0 {
		dst.SeqPtr = append(dst.SeqPtr, 0)
	}
	if labels == nil && n > 0 && len(dst.Labels) == 0 {
		dst.Labels = nil // a reset labeled corpus now holds unlabeled data
	}
	dst.Labels = append(dst.Labels, labels...)
	dst.SeqPtr = append(dst.SeqPtr, dst.SeqPtr[len(dst.SeqPtr)-1]+int32(n))
	dst.NumUnary, dst.NumPair = e.unary.Len(), e.pair.Len()
}

// startRow makes sure the matrix has its leading 0 in RowPtr.
func startRow(m *sparse.Matrix) {
	if len(m.RowPtr) == 0 {
		m.RowPtr = append(m.RowPtr, 0)
	}
}

// appendBinaryRow appends a sorted, deduplicated row to m (binary entries).
func appendBinaryRow(m *sparse.Matrix, ids []int32) {
	startRow(m)
	m.AppendRow(ids, nil)
}

// sortDedup sorts ids and removes repeats, in place. Rows of a template
// have one id per rule, a few dozen at most, which a branch-free insertion
// sort orders faster than slices.Sort: inserting x into the sorted prefix
// s is m[j] = max(s[j-1], min(s[j], x)), compiled to conditional moves,
// so the unpredictable comparisons of random ids cost no mispredictions.
// From 9 to 16 ids (the usual rows of the CoNLL chunking template) a
// sorting network does less work (sortDedup16).
func sortDedup(ids []int32) []int32 {
	switch n := len(ids); {
	case n < 2:
		return ids
	case n > 48:
		slices.Sort(ids)
		return slices.Compact(ids)
	case n > 8 && n <= 16:
		return sortDedup16(ids)
	}
	sortSmall(ids)
	return slices.Compact(ids)
}

// sortSmall sorts ids (repeats kept) by sortDedup's branch-free insertion
// sort, up to 48 ids; more by slices.Sort.
func sortSmall(ids []int32) {
	if len(ids) > 48 {
		slices.Sort(ids)
		return
	}
	for i := 1; i < len(ids); i++ {
		x := ids[i]
		for j := i; j >= 1; j-- {
			ids[j] = max(ids[j-1], min(ids[j], x))
		}
		ids[0] = min(ids[0], x)
	}
}

// count adds one occurrence of every id (a deduplicated row).
func count(d *Dictionary, ids []int32) {
	for _, id := range ids {
		d.counts[id]++
	}
}

// Input is one sequence of raw input for an Encoder: [Columns] (token
// columns, read by KindTemplate encoders), [Attributes] (name:value
// attributes, KindAttributes) or [Pixels] (OCR images, KindPixels). The set
// is closed: only this package's types implement Input.
type Input interface {
	// Len returns the number of positions.
	Len() int
	// Kind returns the kind of encoder that reads the input.
	Kind() Kind
	isInput()
}

// Columns is one sequence of tokens: Columns[t][c] is column c of token t
// (input columns only, without the label).
type Columns [][]string

// Attributes is one sequence of name:value attributes: Names[t][j] is the
// name of attribute j at position t and Values[t][j] its value. Values may
// be nil (every attribute has value 1 and the corpus stays binary), and so
// may Values[t] for a single position. NaN and infinite values and empty
// names are rejected.
type Attributes struct {
	Names  [][]string
	Values [][]float64
}

// Pixels is one sequence of OCR letters: Pixels[t] is the 16×8 image of
// letter t, row-major, 128 bytes of 0 or 1 (anything else is an error). See
// PixelOptions for the attributes.
type Pixels [][]byte

// Len returns the number of tokens.
func (c Columns) Len() int { return len(c) }

// Kind returns KindTemplate.
func (Columns) Kind() Kind { return KindTemplate }
func (Columns) isInput()   {}

// Len returns the number of positions.
func (a Attributes) Len() int { return len(a.Names) }

// Kind returns KindAttributes.
func (Attributes) Kind() Kind { return KindAttributes }
func (Attributes) isInput()   {}

// Len returns the number of letters.
func (p Pixels) Len() int { return len(p) }

// Kind returns KindPixels.
func (Pixels) Kind() Kind { return KindPixels }
func (Pixels) isInput()   {}

// KindError reports input of a kind the encoder does not read, for example
// Attributes given to a template encoder.
type KindError struct {
	Encoder Kind // what the encoder reads
	Input   Kind // what it was given (0 for a nil Input)
}

func (e *KindError) Error() string {
	if e.Input == 0 {
		return fmt.Sprintf("features: no input, the encoder reads %v input", e.Encoder)
	}
	return fmt.Sprintf("features: %v input, but the encoder reads %v input", e.Input, e.Encoder)
}

// Encode appends one sequence to dst. labels[t] is the label id of position
// t, or labels is nil. With grow, unseen attributes are added to the
// dictionaries (training); without, they are skipped (tagging). It returns a
// *KindError if in is not of the encoder's kind. On error dst is left
// unchanged.
func (e *Encoder) Encode(dst *sparse.Corpus, in Input, labels []int32, grow bool) error {
	return e.encode(dst, in, labels, grow)
}

// Count adds the attributes of one sequence to the growing dictionaries and
// counts them, without encoding: use it over a whole corpus, then
// Freeze(minFreq), then Encode with grow=false.
func (e *Encoder) Count(in Input) error {
	return e.encode(nil, in, nil, true)
}

// encode is Encode, and Count for dst nil. It dispatches with type
// switches rather than interface methods so that in does not escape: tagging
// a Columns value with a reused result allocates nothing.
func (e *Encoder) encode(dst *sparse.Corpus, in Input, labels []int32, grow bool) error {
	var n int
	var k Kind // in.Kind() without an interface call
	switch x := in.(type) {
	case Columns:
		n, k = len(x), KindTemplate
	case Attributes:
		n, k = len(x.Names), KindAttributes
	case Pixels:
		n, k = len(x), KindPixels
	}
	if k != e.kind {
		return &KindError{Encoder: e.kind, Input: k}
	}
	if err := e.begin(dst, n, labels, grow); err != nil {
		return err
	}
	var err error
	switch x := in.(type) {
	case Columns:
		err = e.tmpl.check(x)
	case Attributes:
		err = checkAttributes(x.Names, x.Values)
	case Pixels:
		err = checkImages(x)
	}
	if err != nil {
		return err
	}
	var m mark
	if dst != nil {
		m = markOf(dst)
	}
	switch x := in.(type) {
	case Columns:
		err = e.columns(dst, x, grow)
	case Attributes:
		err = e.attributes(dst, x.Names, x.Values, grow)
	case Pixels:
		err = e.pixels(dst, x, grow)
	}
	if err != nil {
		if dst != nil {
			m.restore(dst)
		}
		return err
	}
	if dst != nil {
		e.finish(dst, n, labels)
	}
	return nil
}

// columns expands every position; dst nil means count only.
func (e *Encoder) columns(dst *sparse.Corpus, cols [][]string, grow bool) error {
	if e.val != nil || e.tmpl.vectors != 0 {
		return e.columnsValued(dst, cols, grow)
	}
	cols, e.drows, e.dcells = e.tmpl.derive(cols, e.drows, e.dcells)
	if x := e.frozen(); x != nil && !grow && dst != nil {
		e.columnsFrozen(dst, x, cols)
		return nil
	}
	tm := e.tmpl
	pair := e.hasPair()
	g := e.gidx
	if g == nil && !(e.unary.frozen && e.pair.frozen) {
		g = newGrowIndex(tm)
		e.gidx = g
	}
	if g != nil {
		g.setCells(cols)
	}
	// A growing dictionary's rules go through the cache, a frozen one's
	// (here only beside a growing one) through the strings.
	expand := func(set int, rules []rule, d *Dictionary, t int) ([]int32, error) {
		if g != nil && !d.frozen {
			return g.expand(e, set, rules, d, cols, t, grow)
		}
		return e.expand(rules, d, cols, t, grow)
	}
	for t := range cols {
		ids, err := expand(0, tm.unary, e.unary, t)
		if err != nil {
			return err
		}
		if dst != nil {
			appendBinaryRow(&dst.Unary, ids)
		}
		if !pair {
			continue
		}
		ids = e.ids[:0]
		if t > 0 {
			if ids, err = expand(1, tm.pair, e.pair, t); err != nil {
				return err
			}
		}
		if dst != nil {
			appendBinaryRow(&dst.Pair, ids)
		}
	}
	return nil
}

// expand returns the sorted, deduplicated ids of rules at position t (in
// e.ids), adding and counting them when grow.
func (e *Encoder) expand(rules []rule, d *Dictionary, cols [][]string, t int, grow bool) ([]int32, error) {
	ids := e.ids[:0]
	for k := range rules {
		e.buf = appendRule(e.buf[:0], &rules[k], cols, t)
		id, ok := d.lookup(e.buf)
		if !ok {
			if !grow {
				continue
			}
			var err error
			if id, err = d.addBytes(e.buf); err != nil {
				return nil, err
			}
		}
		ids = append(ids, id)
	}
	ids = sortDedup(ids)
	e.ids = ids
	if grow {
		count(d, ids)
	}
	return ids, nil
}

// columnsFrozen is columns through the frozen index x: the same rows,
// without building attribute strings (except for fallback rules).
func (e *Encoder) columnsFrozen(dst *sparse.Corpus, x *frozenIndex, cols [][]string) {
	e.cells = x.internCells(e.cells[:0], cols)
	pair := e.hasPair()
	if x.padded {
		e.uprobe = x.fillGroups(e.uprobe, &x.unary, e.cells, len(cols))
		if pair {
			e.pprobe = x.fillGroups(e.pprobe, &x.pair, e.cells, len(cols))
		}
	}
	for t := range cols {
		appendBinaryRow(&dst.Unary, e.lookupRules(x, &x.unary, e.uprobe, e.tmpl.unary, e.unary, cols, t))
		if !pair {
			continue
		}
		ids := e.ids[:0]
		if t > 0 {
			ids = e.lookupRules(x, &x.pair, e.pprobe, e.tmpl.pair, e.pair, cols, t)
		}
		appendBinaryRow(&dst.Pair, ids)
	}
}

// lookupRules returns the sorted, deduplicated ids of the known attributes
// of rules at position t (in e.ids), found through their tables rs in the
// index x and the probe buffer probes (the fallback rules through the
// string dictionary d).
func (e *Encoder) lookupRules(x *frozenIndex, rs *ruleSet, probes []int32, rules []rule, d *Dictionary, cols [][]string, t int) []int32 {
	ids := x.appendIDs(e.ids[:0], rs, e.cells, probes, len(cols), t)
	if rs.fallback {
		for k := range rs.tabs {
			if !rs.tabs[k].fallback {
				continue
			}
			e.buf = appendRule(e.buf[:0], &rules[k], cols, t)
			if id, ok := d.lookup(e.buf); ok {
				ids = append(ids, id)
			}
		}
	}
	ids = sortDedup(ids)
	e.ids = ids
	return ids
}

func checkAttributes(names [][]string, values [][]float64) error {
	if values != nil && len(values) != len(names) {
		return fmt.Errorf("features: %d value rows for %d positions", len(values), len(names))
	}
	for t, row := range names {
		var vs []float64
		if values != nil {
			vs = values[t]
		}
		if vs != nil && len(vs) != len(row) {
			return fmt.Errorf("features: position %d: %d values for %d attribute names", t, len(vs), len(row))
		}
		for j, s := range row {
			if s == "" {
				return fmt.Errorf("features: position %d, attribute %d: empty name", t, j)
			}
		}
		sum := 0.0
		for j, v := range vs {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("features: position %d, attribute %q: value %v, want a finite number", t, row[j], v)
			}
			sum += math.Abs(v)
		}
		if math.IsInf(sum, 0) {
			return fmt.Errorf("features: position %d: values too large (their sum overflows)", t)
		}
	}
	return nil
}

func (e *Encoder) attributes(dst *sparse.Corpus, names [][]string, values [][]float64, grow bool) error {
	d := e.unary
	for t, row := range names {
		var vs []float64
		if values != nil {
			vs = values[t]
		}
		ids, vals := e.ids[:0], e.vals[:0]
		for j, s := range row {
			id, ok := d.ID(s)
			if !ok {
				if !grow {
					continue
				}
				// A copy: s may be a window of a longer string (a
				// reader's whole sequence), which the key would pin.
				var err error
				if id, err = d.insert(strings.Clone(s)); err != nil {
					return err
				}
			}
			ids = append(ids, id)
			if vs != nil {
				vals = append(vals, vs[j])
			}
		}
		if vs == nil {
			ids = sortDedup(ids)
		} else {
			ids, vals = e.mergeRow(ids, vals)
		}
		e.ids = ids
		if vals != nil {
			e.vals = vals
		}
		if grow {
			count(d, ids)
		}
		if dst == nil {
			continue
		}
		startRow(&dst.Unary)
		if vs == nil || vals == nil {
			// A row of values 1 (after merging repeats) is a binary row:
			// attribute files give every value, mostly 1, and a binary
			// matrix stores none of them (4 B per entry instead of 12).
			dst.Unary.AppendRow(ids, nil)
		} else {
			dst.Unary.AppendRow(ids, vals)
		}
	}
	return nil
}

// allOnes reports whether every value is exactly 1.
func allOnes(vals []float64) bool {
	for _, v := range vals {
		if v != 1 {
			return false
		}
	}
	return true
}

// idValSorter sorts parallel id and value slices by id.
type idValSorter struct {
	ids  []int32
	vals []float64
}

func (s *idValSorter) Len() int           { return len(s.ids) }
func (s *idValSorter) Less(i, j int) bool { return s.ids[i] < s.ids[j] }
func (s *idValSorter) Swap(i, j int) {
	s.ids[i], s.ids[j] = s.ids[j], s.ids[i]
	s.vals[i], s.vals[j] = s.vals[j], s.vals[i]
}

// sortMerge sorts (ids, vals) by id (stably, so that sums are taken in input
// order) and adds the values of equal ids.
func (e *Encoder) sortMerge(ids []int32, vals []float64) ([]int32, []float64) {
	if len(ids) < 2 {
		return ids, vals
	}
	if len(ids) <= 16 {
		for i := 1; i < len(ids); i++ {
			for j := i; j > 0 && ids[j] < ids[j-1]; j-- {
				ids[j], ids[j-1] = ids[j-1], ids[j]
				vals[j], vals[j-1] = vals[j-1], vals[j]
			}
		}
	} else {
		e.srt.ids, e.srt.vals = ids, vals
		sort.Stable(&e.srt)
		e.srt.ids, e.srt.vals = nil, nil
	}
	n := 0
	for i := range ids {
		if n > 0 && ids[i] == ids[n-1] {
			vals[n-1] += vals[i]
			continue
		}
		ids[n], vals[n] = ids[i], vals[i]
		n++
	}
	return ids[:n], vals[:n]
}

func (e *Encoder) pixels(dst *sparse.Corpus, images [][]byte, grow bool) error {
	pn := sharedPixelNames()
	d := e.unary
	for _, im := range images {
		e.strs = pn.appendAttrs(e.strs[:0], im, e.pix)
		ids := e.ids[:0]
		for _, s := range e.strs {
			id, ok := d.ID(s)
			if !ok {
				if !grow {
					continue
				}
				var err error
				if id, err = d.insert(s); err != nil {
					return err
				}
			}
			ids = append(ids, id)
		}
		ids = sortDedup(ids)
		e.ids = ids
		if grow {
			count(d, ids)
		}
		if dst != nil {
			appendBinaryRow(&dst.Unary, ids)
		}
	}
	return nil
}
