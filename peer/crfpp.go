package peer

import (
	"bytes"
	"encoding/binary"
	"math"
	"strconv"
	"strings"

	"github.com/sparsetag/sparsetag/corpora"
)

// CRF++ 0.5x models (feature_index.cpp, feature.cpp, tagger.cpp of CRF++ 0.59).
//
// Binary model, little-endian:
//
//	uint32 version (100; the reader accepts 100..199 as CRF++ does)
//	int32  type (0)
//	float64 cost factor (as written by crf_learn; crf_test ignores it)
//	uint32 maxid, xsize, dsize (bytes of the double array)
//	uint32 n, then n bytes of NUL-terminated label names
//	uint32 n, then n bytes of NUL-terminated templates (NUL padding)
//	dsize bytes: Darts double array, units {int32 base; uint32 check}
//	maxid float32 weights
//
// Text model (crf_learn -t writes it next to the binary one): header lines
// "key: value" up to a blank line, label lines, template lines, "id key"
// feature lines, each section ended by a blank line, then maxid weights, one
// per line, printed %.16f. crf_learn -C converts a text model to a binary one
// by storing float32(weight); this reader does the same, so a text model
// tags exactly like its binary twin.
//
// Scoring (FeatureIndex::calcCost): the cost of label y at position t is
// cost_factor * float32(Σ alpha[id+y]) over the position's unigram feature
// ids in template order, the sum accumulated in float32 because the binary
// model holds float32 weights; a transition (y', y) into position t costs
// cost_factor * float32(Σ alpha[id + y'·L + y]) over its bigram feature ids.
// cost_factor is crf_test's -c option (default 1), not the value stored in
// the model. Viterbi (TaggerImpl::viterbi) adds (best(prev) + edge) + node
// with strict comparisons, so ties go to the lowest label index; package
// inference does exactly this.
const crfppHeaderSize = 32

// CRFPPModel is a model written by CRF++'s crf_learn, binary or text. It
// tags column sequences (corpora.Sequence.Tokens) with at least XSize
// columns.
type CRFPPModel struct {
	format      Format
	labels      []string
	xsize       int
	maxid       int
	stored      float64 // cost factor stored in the model
	costFactor  float64 // cost factor used for tagging
	unigram     []crfppTemplate
	bigram      []crfppTemplate
	bigramConst bool // no bigram template reads the input
	alpha       []float32
	// One of the two key indexes.
	da   []dartsUnit
	dict map[string]int
}

var _ Model = (*CRFPPModel)(nil)

// crfppTemplate is a compiled template: literal parts and %x[row,col]
// references, alternating (lits has one more entry than refs).
type crfppTemplate struct {
	src  string
	lits []string
	rows []int
	cols []int
}

// Format returns FormatCRFPPBinary or FormatCRFPPText.
func (m *CRFPPModel) Format() Format { return m.format }

// Labels returns the label names.
func (m *CRFPPModel) Labels() []string { return m.labels }

// XSize returns the number of input columns the templates may read.
func (m *CRFPPModel) XSize() int { return m.xsize }

// Templates returns the model's templates, unigram templates first.
func (m *CRFPPModel) Templates() []string {
	var out []string
	for _, t := range m.unigram {
		out = append(out, t.src)
	}
	for _, t := range m.bigram {
		out = append(out, t.src)
	}
	return out
}

// StoredCostFactor returns the cost factor recorded in the model file
// (binary models; 1 for text models, whose header value crf_learn -C also
// ignores).
func (m *CRFPPModel) StoredCostFactor() float64 { return m.stored }

// CostFactor returns the cost factor the model tags with (1 unless set with
// WithCostFactor), crf_test's -c option.
func (m *CRFPPModel) CostFactor() float64 { return m.costFactor }

// WithCostFactor returns a copy of m that tags as crf_test -c c does: every
// node and edge cost is multiplied by c, which sharpens (c > 1) or flattens
// (c < 1) the marginals and can change the Viterbi path only through
// rounding. c must be positive, as crf_test requires.
func (m *CRFPPModel) WithCostFactor(c float64) (*CRFPPModel, error) {
	if !(c > 0) || math.IsInf(c, 0) {
		return nil, inputErr("cost factor must be positive and finite, got %v", c)
	}
	m2 := *m
	m2.costFactor = c
	return &m2, nil
}

// ParseCRFPPBinary reads a CRF++ binary model from the bytes of its file.
func ParseCRFPPBinary(data []byte) (*CRFPPModel, error) {
	const F = FormatCRFPPBinary
	if len(data) < crfppHeaderSize {
		return nil, formatErr(F, "header", 0, "truncated: %d bytes, header needs %d", len(data), crfppHeaderSize)
	}
	le := binary.LittleEndian
	if v := le.Uint32(data); v/100 != 1 {
		return nil, &FormatError{Format: F, Section: "header", Offset: 0, Msg: "version " + strconv.FormatUint(uint64(v), 10) + " (only 1xx is supported)", Err: ErrUnsupported}
	}
	m := &CRFPPModel{format: F, costFactor: 1}
	m.stored = math.Float64frombits(le.Uint64(data[8:]))
	maxid, xsize, dsize := int64(le.Uint32(data[16:])), int64(le.Uint32(data[20:])), int64(le.Uint32(data[24:]))
	off := int64(28)
	end := int64(len(data))
	ysize := int64(le.Uint32(data[off:]))
	off += 4
	if ysize > end-off {
		return nil, formatErr(F, "labels", off-4, "declares %d bytes but only %d remain", ysize, end-off)
	}
	m.labels = splitNUL(data[off : off+ysize])
	off += ysize
	if off > end-4 {
		return nil, formatErr(F, "templates", off, "truncated")
	}
	tsize := int64(le.Uint32(data[off:]))
	off += 4
	if tsize > end-off {
		return nil, formatErr(F, "templates", off-4, "declares %d bytes but only %d remain", tsize, end-off)
	}
	tmpls := splitNUL(data[off : off+tsize])
	tmplOff := off
	off += tsize
	if dsize%8 != 0 || dsize > end-off {
		return nil, formatErr(F, "double array", 24, "size %d is not a multiple of 8 or exceeds the %d remaining bytes", dsize, end-off)
	}
	if maxid*4 != end-off-dsize {
		return nil, formatErr(F, "weights", off+dsize, "maxid %d needs %d bytes of float32 weights, file has %d after the double array", maxid, maxid*4, end-off-dsize)
	}
	m.da = make([]dartsUnit, dsize/8)
	for i := range m.da {
		p := data[off+int64(i)*8:]
		m.da[i] = dartsUnit{base: int32(le.Uint32(p)), check: le.Uint32(p[4:])}
	}
	off += dsize
	m.alpha = make([]float32, maxid)
	for i := range m.alpha {
		m.alpha[i] = math.Float32frombits(le.Uint32(data[off+int64(i)*4:]))
	}
	m.maxid, m.xsize = int(maxid), int(xsize)
	if err := m.setup(tmpls, func(msg string) error { return formatErr(F, "templates", tmplOff, "%s", msg) }); err != nil {
		return nil, err
	}
	if len(m.labels) == 0 || len(m.labels) > MaxLabels {
		return nil, formatErr(F, "labels", 32, "%d labels (want 1..%d)", len(m.labels), MaxLabels)
	}
	return m, nil
}

// splitNUL splits NUL-terminated strings, skipping empty ones (padding).
func splitNUL(b []byte) []string {
	var out []string
	for len(b) > 0 {
		i := bytes.IndexByte(b, 0)
		if i < 0 {
			i = len(b)
		}
		if i > 0 {
			out = append(out, string(b[:i]))
		}
		b = b[min(i+1, len(b)):]
	}
	return out
}

// ParseCRFPPText reads a CRF++ text model (crf_learn -t) from its bytes.
func ParseCRFPPText(data []byte) (*CRFPPModel, error) {
	const F = FormatCRFPPText
	m := &CRFPPModel{format: F, costFactor: 1, stored: 1, dict: map[string]int{}}
	r := &crfppTextReader{text: string(data)}
	maxid, xsize, err := r.header()
	if err != nil {
		return nil, err
	}
	if m.labels, err = r.section("labels"); err != nil {
		return nil, err
	}
	if len(m.labels) == 0 || len(m.labels) > MaxLabels {
		return nil, lineErr(F, "labels", r.line, "%d labels (want 1..%d)", len(m.labels), MaxLabels)
	}
	tmplLine := r.line + 1
	tmpls, err := r.section("templates")
	if err != nil {
		return nil, err
	}
	if err := r.features(m.dict); err != nil {
		return nil, err
	}
	if m.alpha, err = r.weights(maxid); err != nil {
		return nil, err
	}
	m.maxid, m.xsize = maxid, xsize
	if err := m.setup(tmpls, func(msg string) error { return lineErr(F, "templates", tmplLine, "%s", msg) }); err != nil {
		return nil, err
	}
	if err := m.checkBlocks(); err != nil {
		return nil, err
	}
	return m, nil
}

// crfppTextReader reads a CRF++ text model line by line, a section per
// method; line is the number of the last line read (1-based).
type crfppTextReader struct {
	text string // the input not yet read
	line int
}

// next returns the next line without its line ending, and false at the end
// of the input.
func (r *crfppTextReader) next() (string, bool) {
	if len(r.text) == 0 {
		return "", false
	}
	r.line++
	i := strings.IndexByte(r.text, '\n')
	var s string
	if i < 0 {
		s, r.text = r.text, ""
	} else {
		s, r.text = r.text[:i], r.text[i+1:]
	}
	return strings.TrimSuffix(s, "\r"), true
}

// header reads the "key: value" lines up to the first blank line and
// returns maxid and xsize, both required and positive; the version must be
// 1xx, other keys are ignored.
func (r *crfppTextReader) header() (maxid, xsize int, err error) {
	const F = FormatCRFPPText
	maxid, xsize = -1, -1
	for {
		s, ok := r.next()
		if !ok {
			return 0, 0, lineErr(F, "header", r.line, "unexpected end of file")
		}
		if s == "" {
			break
		}
		f := strings.Fields(s)
		if len(f) != 2 {
			return 0, 0, lineErr(F, "header", r.line, "want \"key: value\", got %q", s)
		}
		switch f[0] {
		case "maxid:", "xsize:":
			v, err := strconv.Atoi(f[1])
			if err != nil || v <= 0 {
				return 0, 0, lineErr(F, "header", r.line, "bad %s %q", f[0], f[1])
			}
			if f[0] == "maxid:" {
				maxid = v
			} else {
				xsize = v
			}
		case "version:":
			v, err := strconv.Atoi(f[1])
			if err != nil || v/100 != 1 {
				return 0, 0, &FormatError{Format: F, Section: "header", Offset: -1, Line: r.line, Msg: "version " + f[1] + " (only 1xx is supported)", Err: ErrUnsupported}
			}
		}
	}
	if maxid <= 0 || xsize <= 0 {
		return 0, 0, lineErr(F, "header", r.line, "maxid or xsize missing")
	}
	return maxid, xsize, nil
}

// section reads the lines up to the next blank line (labels, templates).
func (r *crfppTextReader) section(name string) ([]string, error) {
	var out []string
	for {
		s, ok := r.next()
		if !ok {
			return nil, lineErr(FormatCRFPPText, name, r.line, "unexpected end of file")
		}
		if s == "" {
			return out, nil
		}
		out = append(out, s)
	}
}

// features reads the feature dictionary, "id key" lines up to the next
// blank line, into dict; of two lines with the same key the first counts.
func (r *crfppTextReader) features(dict map[string]int) error {
	const F = FormatCRFPPText
	for {
		s, ok := r.next()
		if !ok {
			return lineErr(F, "features", r.line, "unexpected end of file")
		}
		if s == "" {
			return nil
		}
		sp := strings.IndexAny(s, " \t")
		if sp < 0 {
			return lineErr(F, "features", r.line, "want \"id key\", got %q", s)
		}
		id, err := strconv.Atoi(s[:sp])
		key := strings.TrimLeft(s[sp+1:], " \t")
		if err != nil || id < 0 || key == "" {
			return lineErr(F, "features", r.line, "want \"id key\", got %q", s)
		}
		if _, dup := dict[key]; !dup {
			dict[key] = id
		}
	}
}

// weights reads the maxid weights, one a line, as float32 (as crf_learn -C
// stores them), and checks that only blank lines follow.
func (r *crfppTextReader) weights(maxid int) ([]float32, error) {
	const F = FormatCRFPPText
	// Each weight takes at least two bytes, so a larger maxid than the rest
	// of the file can hold is refused before allocating.
	if maxid > len(r.text)/2+1 {
		return nil, lineErr(F, "weights", r.line+1, "maxid %d but only %d bytes remain", maxid, len(r.text))
	}
	alpha := make([]float32, maxid)
	for i := range alpha {
		s, ok := r.next()
		if !ok {
			return nil, lineErr(F, "weights", r.line, "%d weights, maxid is %d", i, maxid)
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, lineErr(F, "weights", r.line, "bad weight %q", s)
		}
		alpha[i] = float32(v)
	}
	for {
		s, ok := r.next()
		if !ok {
			return alpha, nil
		}
		if strings.TrimSpace(s) != "" {
			return nil, lineErr(F, "weights", r.line, "more than maxid = %d weights", maxid)
		}
	}
}

// checkBlocks checks that the weights of every feature of a text model's
// dictionary (L of them for a unigram feature, L×L for a bigram one) lie
// below maxid.
func (m *CRFPPModel) checkBlocks() error {
	L := len(m.labels)
	for key, id := range m.dict {
		n := L
		if key[0] == 'B' {
			n = L * L
		}
		if id+n > m.maxid {
			return lineErr(FormatCRFPPText, "features", 0, "feature %q: weights %d..%d beyond maxid %d", key, id, id+n-1, m.maxid)
		}
	}
	return nil
}

// setup compiles the templates.
func (m *CRFPPModel) setup(tmpls []string, fail func(string) error) error {
	m.bigramConst = true
	for _, s := range tmpls {
		t, err := compileCRFPP(s, m.xsize)
		if err != "" {
			return fail(err)
		}
		switch s[0] {
		case 'U':
			m.unigram = append(m.unigram, t)
		case 'B':
			m.bigram = append(m.bigram, t)
			if len(t.rows) > 0 {
				m.bigramConst = false
			}
		default:
			return fail("template " + strconv.Quote(s) + " is neither U nor B")
		}
	}
	return nil
}

// compileCRFPP parses a template: %x[row,col] with -4 ≤ row ≤ 4 and
// 0 ≤ col < xsize (FeatureIndex::getIndex rejects others when it applies the
// template, which makes crf_test fail; here the model is refused).
func compileCRFPP(s string, xsize int) (crfppTemplate, string) {
	t := crfppTemplate{src: s}
	var lit strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			lit.WriteByte(s[i])
			continue
		}
		if i+2 >= len(s) || s[i+1] != 'x' || s[i+2] != '[' {
			return t, "template " + strconv.Quote(s) + ": only %x[row,col] is supported"
		}
		j := i + 3
		neg := j < len(s) && s[j] == '-'
		if neg {
			j++
		}
		row, j, ok1 := digits(s, j)
		if !ok1 || j >= len(s) || s[j] != ',' {
			return t, "template " + strconv.Quote(s) + ": bad %x[row,col]"
		}
		col, j2, ok2 := digits(s, j+1)
		if !ok2 || j2 >= len(s) || s[j2] != ']' {
			return t, "template " + strconv.Quote(s) + ": bad %x[row,col]"
		}
		if neg {
			row = -row
		}
		if row < -4 || row > 4 || col >= xsize {
			return t, "template " + strconv.Quote(s) + ": row must be in -4..4 and column below xsize " + strconv.Itoa(xsize)
		}
		t.lits = append(t.lits, lit.String())
		lit.Reset()
		t.rows = append(t.rows, row)
		t.cols = append(t.cols, col)
		i = j2
	}
	t.lits = append(t.lits, lit.String())
	return t, ""
}

// digits parses a run of decimal digits (possibly empty, as in CRF++) at
// s[i:], bounded to keep the value small.
func digits(s string, i int) (v, j int, ok bool) {
	for j = i; j < len(s) && s[j] >= '0' && s[j] <= '9'; j++ {
		if v > 1<<20 {
			return 0, j, false
		}
		v = 10*v + int(s[j]-'0')
	}
	return v, j, true
}

var crfppBOS = [4]string{"_B-1", "_B-2", "_B-3", "_B-4"}
var crfppEOS = [4]string{"_B+1", "_B+2", "_B+3", "_B+4"}

// expand appends the feature string of t at position pos to buf.
func (t *crfppTemplate) expand(buf []byte, toks [][]string, pos int) []byte {
	for k, row := range t.rows {
		buf = append(buf, t.lits[k]...)
		idx := pos + row
		switch {
		case idx < 0:
			buf = append(buf, crfppBOS[-idx-1]...)
		case idx >= len(toks):
			buf = append(buf, crfppEOS[idx-len(toks)]...)
		default:
			buf = append(buf, toks[idx][t.cols[k]]...)
		}
	}
	return append(buf, t.lits[len(t.lits)-1]...)
}

// id returns the feature id of key, or -1.
func (m *CRFPPModel) id(key []byte) int {
	// CRF++ handles keys as C strings.
	if i := bytes.IndexByte(key, 0); i >= 0 {
		key = key[:i]
	}
	if m.dict != nil {
		if id, ok := m.dict[string(key)]; ok {
			return id
		}
		return -1
	}
	return dartsExact(m.da, key)
}

// features returns the ids of the features of templates at position pos,
// in template order.
func (m *CRFPPModel) features(ids []int, buf []byte, tmpls []crfppTemplate, toks [][]string, pos, block int) ([]int, []byte, error) {
	ids = ids[:0]
	for i := range tmpls {
		buf = tmpls[i].expand(buf[:0], toks, pos)
		id := m.id(buf)
		if id < 0 {
			continue
		}
		if id+block > m.maxid {
			return ids, buf, inputErr("CRF++ model: feature %q has weights %d..%d beyond maxid %d", buf, id, id+block-1, m.maxid)
		}
		ids = append(ids, id)
	}
	return ids, buf, nil
}

// lattice fills sc.lat with CRF++'s costs (negated: scores) for seq.
func (m *CRFPPModel) lattice(sc *scratch, seq corpora.Sequence) error {
	if seq.Attrs != nil && seq.Tokens == nil {
		return inputErr("a CRF++ model tags column sequences (Sequence.Tokens), got attributes")
	}
	toks := seq.Tokens
	for t, row := range toks {
		if len(row) < m.xsize {
			return inputErr("position %d has %d columns, the CRF++ model reads %d", t, len(row), m.xsize)
		}
	}
	T, L := len(toks), len(m.labels)
	cf := m.costFactor
	sc.unary = growF(sc.unary, T*L)
	var ids []int
	var buf []byte
	var err error
	for t := 0; t < T; t++ {
		ids, buf, err = m.features(ids, buf, m.unigram, toks, t, L)
		if err != nil {
			return err
		}
		row := sc.unary[t*L : t*L+L]
		for y := range row {
			var c float32
			for _, id := range ids {
				c += m.alpha[id+y]
			}
			row[y] = cf * float64(c)
		}
	}
	edge := func(dst []float64, ids []int) {
		for p := 0; p < L; p++ {
			for y := 0; y < L; y++ {
				var c float32
				for _, id := range ids {
					c += m.alpha[id+p*L+y]
				}
				dst[p*L+y] = cf * float64(c)
			}
		}
	}
	sc.lat = latticeOf(T, L, sc.unary, nil)
	if T <= 1 {
		return nil
	}
	if m.bigramConst {
		ids, buf, err = m.features(ids, buf, m.bigram, toks, 1, L*L)
		if err != nil {
			return err
		}
		sc.trans = growF(sc.trans, L*L)
		edge(sc.trans, ids)
		sc.lat.Trans = sc.trans
		return nil
	}
	sc.at = growF(sc.at, T*L*L)
	clear(sc.at[:L*L])
	for t := 1; t < T; t++ {
		ids, buf, err = m.features(ids, buf, m.bigram, toks, t, L*L)
		if err != nil {
			return err
		}
		edge(sc.at[t*L*L:(t+1)*L*L], ids)
	}
	sc.lat.TransAt = sc.at
	return nil
}

// Tag returns the labels crf_test prints for seq.
func (m *CRFPPModel) Tag(dst []int, seq corpora.Sequence) ([]int, error) {
	sc := getScratch()
	defer putScratch(sc)
	if err := m.lattice(sc, seq); err != nil {
		return dst[:0], err
	}
	return viterbiPath(sc, dst), nil
}

// Marginals returns the node marginals and log Z (crf_test -v2 prints the
// marginals, -v1 the marginal of each predicted label and exp(score - log Z)
// of the path). CRF++ runs a log-space forward-backward whose logsumexp
// drops terms below e^-50 of the largest; inference.ForwardBackward is exact,
// and the two agree far beyond the six decimals crf_test prints.
func (m *CRFPPModel) Marginals(dst []float64, seq corpora.Sequence) ([]float64, float64, error) {
	sc := getScratch()
	defer putScratch(sc)
	if err := m.lattice(sc, seq); err != nil {
		return dst[:0], 0, err
	}
	node, logZ := marginals(sc, dst)
	return node, logZ, nil
}

// NBest returns the n best label sequences as crf_test -n prints them.
func (m *CRFPPModel) NBest(seq corpora.Sequence, n int) ([]Path, error) {
	sc := getScratch()
	defer putScratch(sc)
	if err := m.lattice(sc, seq); err != nil {
		return nil, err
	}
	return nbestPaths(sc, n), nil
}
