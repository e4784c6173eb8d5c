package peer

import (
	"math"
	"strconv"
	"strings"
	"sync"

	"github.com/sparsetag/sparsetag/corpora"
)

// Wapiti 1.x text models (model.c mdl_save/mdl_load, reader.c rdr_save/
// rdr_load, quark.c, tools.c of Wapiti 1.5):
//
//	#mdl#TYPE#NACT          (TYPE 0 maxent, 1 MEMM, 2 CRF; "#mdl#NACT" = type 0)
//	#rdr#NPATS/NTOKS/AUTOUNI
//	NPATS strings           (the patterns, each "len:bytes,")
//	#qrk#Y  then Y strings  (labels; id = rank)
//	#qrk#O  then O strings  (observations; id = rank)
//	NACT lines "f=%la"      (non-zero weights, C99 hex floats, exact)
//
// Observation o (a pattern's expansion, e.g. "u02:Rockwell") owns Y unigram
// weights if its first byte is 'u' or '*', then Y×Y bigram weights if it is
// 'b' or '*', laid out in observation order (mdl_sync).
//
// Decoding (decoder.c): psi[t][y'][y] = Σ unigram weights of y at t (summed
// from 0.0 in pattern order), plus, for t ≥ 1, Σ bigram weights of (y', y)
// (a separate sum from 0.0, then added). Viterbi adds old[y'] + psi in that
// order with strict comparisons (ties to the lowest index), and the n-best
// decoder keeps N candidates per label with Wapiti's replacement rule. Both
// are reproduced here operation for operation rather than through package
// inference, whose sums associate differently ((prev + trans) + unary).
type WapitiModel struct {
	typ     int
	labels  []string
	pats    []wapitiPattern
	autouni bool
	obs     map[string]int32
	kind    []uint8 // per observation: 1 unigram, 2 bigram, 3 both, 0 none
	uoff    []int64
	boff    []int64
	nfeat   int64
	dense   []float64
	sparse  map[int64]float64
	// Observation names by id, for Weights and Explain (obsNames).
	namesOnce sync.Once
	names     []string
}

var _ Model = (*WapitiModel)(nil)

// Format returns FormatWapiti.
func (m *WapitiModel) Format() Format { return FormatWapiti }

// Labels returns the label names.
func (m *WapitiModel) Labels() []string { return m.labels }

// Patterns returns the model's patterns as stored in the file.
func (m *WapitiModel) Patterns() []string {
	out := make([]string, len(m.pats))
	for i, p := range m.pats {
		out[i] = p.src
	}
	return out
}

func (m *WapitiModel) weight(f int64) float64 {
	if m.dense != nil {
		return m.dense[f]
	}
	return m.sparse[f]
}

// wtext is a cursor over a Wapiti text model that tracks the line number.
type wtext struct {
	s    string
	i    int
	line int
}

func (w *wtext) err(section, format string, args ...any) error {
	return lineErr(FormatWapiti, section, w.line, format, args...)
}

func (w *wtext) skipSpace() {
	for w.i < len(w.s) && isCSpace(w.s[w.i]) {
		if w.s[w.i] == '\n' {
			w.line++
		}
		w.i++
	}
}

func (w *wtext) literal(lit string) bool {
	if strings.HasPrefix(w.s[w.i:], lit) {
		w.i += len(lit)
		return true
	}
	return false
}

// uint reads a decimal unsigned integer after optional white space, as
// fscanf's %u does (without its wrap-around of negative numbers).
func (w *wtext) uint(section string) (uint64, error) {
	w.skipSpace()
	j := w.i
	for j < len(w.s) && w.s[j] >= '0' && w.s[j] <= '9' {
		j++
	}
	v, err := strconv.ParseUint(w.s[w.i:j], 10, 64)
	if err != nil {
		return 0, w.err(section, "expected a number")
	}
	w.i = j
	return v, nil
}

// str reads a "len:bytes," string (ns_readstr) and the newline after it.
func (w *wtext) str(section string) (string, error) {
	n, err := w.uint(section)
	if err != nil {
		return "", err
	}
	if !w.literal(":") {
		return "", w.err(section, "expected ':' after a string length")
	}
	if n > uint64(len(w.s)-w.i) {
		return "", w.err(section, "string of %d bytes but only %d remain", n, len(w.s)-w.i)
	}
	s := w.s[w.i : w.i+int(n)]
	w.line += strings.Count(s, "\n")
	w.i += int(n)
	if !w.literal(",") {
		return "", w.err(section, "expected ',' after a string")
	}
	if w.i < len(w.s) && w.s[w.i] == '\n' {
		w.i++
		w.line++
	}
	return s, nil
}

// quark reads "#qrk#N" and N distinct strings; ids are ranks.
func (w *wtext) quark(section string) ([]string, error) {
	w.skipSpace()
	if !w.literal("#qrk#") {
		return nil, w.err(section, "expected #qrk#")
	}
	n, err := w.uint(section)
	if err != nil {
		return nil, err
	}
	// Every string takes at least three bytes ("0:,").
	if n > uint64(len(w.s)-w.i)/3 {
		return nil, w.err(section, "declares %d strings but only %d bytes remain", n, len(w.s)-w.i)
	}
	out := make([]string, n)
	seen := make(map[string]bool, n)
	for k := range out {
		if out[k], err = w.str(section); err != nil {
			return nil, err
		}
		if seen[out[k]] {
			return nil, w.err(section, "duplicate string %q", out[k])
		}
		seen[out[k]] = true
	}
	return out, nil
}

// ParseWapiti reads a Wapiti text model from its bytes.
func ParseWapiti(data []byte) (*WapitiModel, error) {
	w := &wtext{s: string(data), line: 1}
	typ, nact, err := w.modelHeader()
	if err != nil {
		return nil, err
	}
	m := &WapitiModel{typ: int(typ)}
	npats, err := w.readerHeader(m)
	if err != nil {
		return nil, err
	}
	if m.pats, err = w.patterns(npats); err != nil {
		return nil, err
	}
	if m.labels, err = w.quark("labels"); err != nil {
		return nil, err
	}
	if Y := len(m.labels); Y == 0 || Y > MaxLabels {
		return nil, w.err("labels", "%d labels (want 1..%d)", Y, MaxLabels)
	}
	obs, err := w.quark("observations")
	if err != nil {
		return nil, err
	}
	m.indexObservations(obs)
	if err := w.weights(m, nact); err != nil {
		return nil, err
	}
	return m, nil
}

// modelHeader reads "#mdl#[type#]nact": the model type (0 maxent or 2 CRF;
// 0 when absent) and the number of weights stored.
func (w *wtext) modelHeader() (typ, nact uint64, err error) {
	if !w.literal("#mdl#") {
		return 0, 0, w.err("header", "expected #mdl#")
	}
	a, err := w.uint("header")
	if err != nil {
		return 0, 0, err
	}
	nact = a
	if w.literal("#") {
		typ = a
		if nact, err = w.uint("header"); err != nil {
			return 0, 0, err
		}
	}
	if typ == 1 || typ > 2 {
		return 0, 0, &FormatError{Format: FormatWapiti, Section: "header", Offset: -1, Line: w.line,
			Msg: "model type " + strconv.FormatUint(typ, 10) + " (only 0 maxent and 2 CRF are supported; 1 is a MEMM)", Err: ErrUnsupported}
	}
	return typ, nact, nil
}

// readerHeader reads "#rdr#npats/ntoks[/autouni]", sets m.autouni and
// returns the number of patterns.
func (w *wtext) readerHeader(m *WapitiModel) (npats uint64, err error) {
	w.skipSpace()
	if !w.literal("#rdr#") {
		return 0, w.err("reader", "expected #rdr#")
	}
	if npats, err = w.uint("reader"); err != nil {
		return 0, err
	}
	if !w.literal("/") {
		return 0, w.err("reader", "expected '/'")
	}
	if _, err := w.uint("reader"); err != nil {
		return 0, err
	}
	if w.literal("/") {
		au, err := w.uint("reader")
		if err != nil {
			return 0, err
		}
		m.autouni = au != 0
	}
	return npats, nil
}

// patterns reads and compiles npats patterns.
func (w *wtext) patterns(npats uint64) ([]wapitiPattern, error) {
	// Every pattern takes at least three bytes ("0:,").
	if npats > uint64(len(w.s)-w.i)/3 {
		return nil, w.err("patterns", "declares %d patterns but only %d bytes remain", npats, len(w.s)-w.i)
	}
	var pats []wapitiPattern
	for p := uint64(0); p < npats; p++ {
		src, err := w.str("patterns")
		if err != nil {
			return nil, err
		}
		pat, msg := compileWapiti(src)
		if msg != "" {
			return nil, w.err("patterns", "pattern %q: %s", src, msg)
		}
		pats = append(pats, pat)
	}
	return pats, nil
}

// indexObservations gives every observation its id, its kind (from its
// first letter: u unigram, b bigram, * both) and the offsets of its weight
// blocks: Y weights for a unigram, Y×Y for a bigram, in observation order,
// as Wapiti lays out its feature vector; m.nfeat is their total.
func (m *WapitiModel) indexObservations(obs []string) {
	Y := int64(len(m.labels))
	m.obs = make(map[string]int32, len(obs))
	m.kind = make([]uint8, len(obs))
	m.uoff = make([]int64, len(obs))
	m.boff = make([]int64, len(obs))
	for o, s := range obs {
		m.obs[s] = int32(o)
		if s != "" {
			switch s[0] {
			case 'u':
				m.kind[o] = 1
			case 'b':
				m.kind[o] = 2
			case '*':
				m.kind[o] = 3
			}
		}
		if m.kind[o]&1 != 0 {
			m.uoff[o] = m.nfeat
			m.nfeat += Y
		}
		if m.kind[o]&2 != 0 {
			m.boff[o] = m.nfeat
			m.nfeat += Y * Y
		}
	}
}

// weights reads nact "feature=weight" entries (the weight a C float
// literal, finite) into m. A dense vector is allocated only when it is not
// much larger than the file; otherwise the non-zero weights go into a map.
func (w *wtext) weights(m *WapitiModel, nact uint64) error {
	if nact > uint64(len(w.s)-w.i)/4 {
		return w.err("weights", "declares %d weights but only %d bytes remain", nact, len(w.s)-w.i)
	}
	if m.nfeat*8 <= 64*int64(len(w.s))+1<<20 {
		m.dense = make([]float64, m.nfeat)
	} else {
		m.sparse = make(map[int64]float64, nact)
	}
	for k := uint64(0); k < nact; k++ {
		f, err := w.uint("weights")
		if err != nil {
			return err
		}
		if f >= uint64(m.nfeat) {
			return w.err("weights", "feature %d out of range (the model has %d)", f, m.nfeat)
		}
		if !w.literal("=") {
			return w.err("weights", "expected '='")
		}
		j := w.i
		for j < len(w.s) && !isCSpace(w.s[j]) {
			j++
		}
		v, perr := strconv.ParseFloat(w.s[w.i:j], 64)
		if perr != nil || math.IsInf(v, 0) || math.IsNaN(v) {
			return w.err("weights", "bad weight %q", w.s[w.i:j])
		}
		w.i = j
		if m.dense != nil {
			m.dense[f] = v
		} else {
			m.sparse[int64(f)] = v
		}
	}
	return nil
}

func isCSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

// wseq holds the scores of one sequence: u[t*Y+y] the unigram sums and bs
// the bigram sums, one Y×Y block per position t ≥ 1 (block 0 unused), or a
// single block when every position has the same bigram observations.
type wseq struct {
	T, Y   int
	u      []float64
	bs     []float64
	shared bool
}

func (s *wseq) block(t int) []float64 {
	YY := s.Y * s.Y
	if s.shared {
		return s.bs[:YY]
	}
	return s.bs[t*YY : (t+1)*YY]
}

// psi returns Wapiti's log-space score of (y', y) at position t.
func (s *wseq) psi(t, yp, y int) float64 {
	if t == 0 {
		return s.u[y]
	}
	return s.u[t*s.Y+y] + s.block(t)[yp*s.Y+y]
}

// observations returns the unigram and bigram observation ids of each
// position (rdr_pattok2seq, or rdr_rawtok2seq for models without patterns).
func (m *WapitiModel) observations(seq corpora.Sequence) (uobs, bobs [][]int32, err error) {
	if seq.Attrs != nil && seq.Tokens == nil {
		return nil, nil, inputErr("a Wapiti model tags column sequences (Sequence.Tokens), got attributes")
	}
	toks := seq.Tokens
	T := len(toks)
	uobs, bobs = make([][]int32, T), make([][]int32, T)
	var buf []byte
	add := func(t int, obs string) {
		o, ok := m.obs[obs]
		if !ok {
			return
		}
		k := m.kind[o]
		if k&1 != 0 {
			uobs[t] = append(uobs[t], o)
		}
		if k&2 != 0 {
			bobs[t] = append(bobs[t], o)
		}
	}
	for t := 0; t < T; t++ {
		if len(m.pats) == 0 {
			// Raw features: every token is an observation.
			for _, tok := range toks[t] {
				if m.autouni {
					tok = "u" + tok
				} else if tok == "" || (tok[0] != 'u' && tok[0] != 'b' && tok[0] != '*') {
					return nil, nil, inputErr("position %d: feature %q does not start with u, b or *", t, tok)
				}
				add(t, cstring(tok))
			}
			continue
		}
		for i := range m.pats {
			buf, err = m.pats[i].exec(buf[:0], toks, t)
			if err != nil {
				return nil, nil, err
			}
			add(t, cstring(string(buf)))
		}
	}
	return uobs, bobs, nil
}

// cstring truncates s at its first NUL, as Wapiti's C strings do.
func cstring(s string) string {
	if i := strings.IndexByte(s, 0); i >= 0 {
		return s[:i]
	}
	return s
}

// scores computes the unigram and bigram sums of seq as tag_expsc does.
func (m *WapitiModel) scores(seq corpora.Sequence) (*wseq, error) {
	uobs, bobs, err := m.observations(seq)
	if err != nil {
		return nil, err
	}
	T, Y := len(uobs), len(m.labels)
	s := &wseq{T: T, Y: Y, u: make([]float64, T*Y), shared: true}
	for t := 2; t < T; t++ {
		if !equalInt32(bobs[t], bobs[1]) {
			s.shared = false
			break
		}
	}
	for t := 0; t < T; t++ {
		for y := 0; y < Y; y++ {
			sum := 0.0
			for _, o := range uobs[t] {
				sum += m.weight(m.uoff[o] + int64(y))
			}
			s.u[t*Y+y] = sum
		}
	}
	YY := Y * Y
	if s.shared {
		s.bs = make([]float64, YY)
	} else {
		s.bs = make([]float64, T*YY)
	}
	for t := 1; t < T; t++ {
		if s.shared && t > 1 {
			break
		}
		blk := s.block(t)
		for d := range blk {
			sum := 0.0
			for _, o := range bobs[t] {
				sum += m.weight(m.boff[o] + int64(d))
			}
			blk[d] = sum
		}
	}
	return s, nil
}

func equalInt32(a, b []int32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// wpsi is the score table a Wapiti decoder runs on: additive (log-space)
// scores, or multiplicative ones (posteriors).
type wpsi interface {
	at(t, yp, y int) float64
}

type wpost struct {
	node []float64
	Y    int
}

func (p wpost) at(t, yp, y int) float64 { return p.node[t*p.Y+y] }

type wlog struct{ s *wseq }

func (p wlog) at(t, yp, y int) float64 { return p.s.psi(t, yp, y) }

// viterbi is tag_viterbi: op false adds, op true multiplies.
func wapitiViterbi(psi wpsi, T, Y int, mul bool, out []int) (float64, []float64) {
	if T == 0 {
		return 0, nil
	}
	cur, old := make([]float64, Y), make([]float64, Y)
	back := make([]int32, T*Y)
	for y := range cur {
		cur[y] = psi.at(0, 0, y)
	}
	for t := 1; t < T; t++ {
		copy(old, cur)
		for y := 0; y < Y; y++ {
			bst, idx := math.Inf(-1), 0
			for yp := 0; yp < Y; yp++ {
				val := old[yp]
				if mul {
					val *= psi.at(t, yp, y)
				} else {
					val += psi.at(t, yp, y)
				}
				if val > bst {
					bst, idx = val, yp
				}
			}
			back[t*Y+y] = int32(idx)
			cur[y] = bst
		}
	}
	bst := 0
	for y := 1; y < Y; y++ {
		if cur[y] > cur[bst] {
			bst = y
		}
	}
	sc := cur[bst]
	psc := make([]float64, T)
	for t := T; t > 0; t-- {
		yp := 0
		if t != 1 {
			yp = int(back[(t-1)*Y+bst])
		}
		out[t-1] = bst
		psc[t-1] = psi.at(t-1, yp, bst)
		bst = yp
	}
	return sc, psc
}

// wapitiNBest is tag_nbviterbi: every label keeps N candidates; a candidate
// replaces the current smallest (the first smallest in slot order) only if
// it is strictly larger; the final ranks are taken by repeated strict
// argmax over all Y·N end candidates. Missing candidates are -DBL_MAX, as in
// Wapiti, so a sequence with fewer than N label sequences yields some paths
// with scores near -DBL_MAX.
func wapitiNBest(psi wpsi, T, Y, N int, mul bool) []Path {
	if T == 0 {
		out := make([]Path, N)
		return out
	}
	YN := Y * N
	cur, old, lst := make([]float64, YN), make([]float64, YN), make([]float64, YN)
	back := make([]int32, T*YN)
	for y := 0; y < Y; y++ {
		cur[y*N] = psi.at(0, 0, y)
		for n := 1; n < N; n++ {
			cur[y*N+n] = -math.MaxFloat64
		}
	}
	for t := 1; t < T; t++ {
		copy(old, cur)
		for y := 0; y < Y; y++ {
			for yp, d := 0, 0; yp < Y; yp++ {
				p := psi.at(t, yp, y)
				for n := 0; n < N; n, d = n+1, d+1 {
					if mul {
						lst[d] = old[d] * p
					} else {
						lst[d] = old[d] + p
					}
				}
			}
			bk := back[t*YN+y*N : t*YN+y*N+N]
			for n := range bk {
				bk[n] = int32(n)
			}
			for i := N; i < YN; i++ {
				idx := 0
				for n := 1; n < N; n++ {
					if lst[bk[n]] < lst[bk[idx]] {
						idx = n
					}
				}
				if lst[i] > lst[bk[idx]] {
					bk[idx] = int32(i)
				}
			}
			for n := 0; n < N; n++ {
				cur[y*N+n] = lst[bk[n]]
			}
		}
	}
	out := make([]Path, N)
	for n := range out {
		bst := 0
		for d := 1; d < YN; d++ {
			if cur[d] > cur[bst] {
				bst = d
			}
		}
		p := Path{Labels: make([]int, T), Score: cur[bst], Local: make([]float64, T)}
		cur[bst] = -math.MaxFloat64
		for t := T; t > 0; t-- {
			yp := 0
			if t != 1 {
				yp = int(back[(t-1)*YN+bst]) / N
			}
			y := bst / N
			p.Labels[t-1] = y
			p.Local[t-1] = psi.at(t-1, yp, y)
			if t != 1 {
				bst = int(back[(t-1)*YN+bst])
			}
		}
		out[n] = p
	}
	return out
}

// MaxNBest bounds n in NBest and Posterior (the decoders need T·L·n memory).
const MaxNBest = 1 << 12

// Tag returns the labels wapiti label prints for seq.
func (m *WapitiModel) Tag(dst []int, seq corpora.Sequence) ([]int, error) {
	s, err := m.scores(seq)
	if err != nil {
		return dst[:0], err
	}
	dst = growI(dst, s.T)
	wapitiViterbi(wlog{s}, s.T, s.Y, false, dst)
	return dst, nil
}

// Viterbi returns the best path with its score and per-position scores, as
// wapiti label -s prints them.
func (m *WapitiModel) Viterbi(seq corpora.Sequence) (Path, error) {
	s, err := m.scores(seq)
	if err != nil {
		return Path{}, err
	}
	p := Path{Labels: make([]int, s.T)}
	p.Score, p.Local = wapitiViterbi(wlog{s}, s.T, s.Y, false, p.Labels)
	return p, nil
}

// NBest returns the n best paths as wapiti label -n N -s prints them (n ≥ 2
// uses Wapiti's n-best decoder; n = 1 its Viterbi, which may break ties
// differently, as in Wapiti).
func (m *WapitiModel) NBest(seq corpora.Sequence, n int) ([]Path, error) {
	if n <= 0 {
		return nil, nil
	}
	if n > MaxNBest {
		return nil, inputErr("n = %d exceeds MaxNBest = %d", n, MaxNBest)
	}
	if n == 1 {
		p, err := m.Viterbi(seq)
		if err != nil {
			return nil, err
		}
		return []Path{p}, nil
	}
	s, err := m.scores(seq)
	if err != nil {
		return nil, err
	}
	return wapitiNBest(wlog{s}, s.T, s.Y, n, false), nil
}

// Marginals returns the node marginals and log Z of seq, computed by
// inference.ForwardBackward on Wapiti's scores (Wapiti's own scaled
// exp-space recursion agrees to rounding error).
func (m *WapitiModel) Marginals(dst []float64, seq corpora.Sequence) ([]float64, float64, error) {
	s, err := m.scores(seq)
	if err != nil {
		return dst[:0], 0, err
	}
	sc := getScratch()
	defer putScratch(sc)
	m.lattice(sc, s)
	node, logZ := marginals(sc, dst)
	return node, logZ, nil
}

func (m *WapitiModel) lattice(sc *scratch, s *wseq) {
	T, Y := s.T, s.Y
	sc.lat = latticeOf(T, Y, s.u, nil)
	if T <= 1 {
		return
	}
	if s.shared {
		sc.lat.Trans = s.bs
		return
	}
	clear(s.bs[:Y*Y])
	sc.lat.TransAt = s.bs
}

// Posterior decodes as wapiti label -p does: the decoder runs on the node
// marginals, multiplying them along the path (tag_postsc), so n = 1 gives
// the -p labels. Score is the product of the marginals and Local the
// marginals of the path, as -p -s prints them.
func (m *WapitiModel) Posterior(seq corpora.Sequence, n int) ([]Path, error) {
	if n <= 0 {
		return nil, nil
	}
	if n > MaxNBest {
		return nil, inputErr("n = %d exceeds MaxNBest = %d", n, MaxNBest)
	}
	node, _, err := m.Marginals(nil, seq)
	if err != nil {
		return nil, err
	}
	T, Y := len(node)/len(m.labels), len(m.labels)
	psi := wpost{node: node, Y: Y}
	if n == 1 {
		p := Path{Labels: make([]int, T)}
		p.Score, p.Local = wapitiViterbi(psi, T, Y, true, p.Labels)
		return []Path{p}, nil
	}
	return wapitiNBest(psi, T, Y, n, true), nil
}
