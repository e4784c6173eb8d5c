package online

import (
	"math"

	"github.com/sparsetag/sparsetag/inference"
	"github.com/sparsetag/sparsetag/internal/lattice"
	"github.com/sparsetag/sparsetag/sparse"
)

// FeatureSet chooses which features of a layout exist (may take a non-zero
// weight). The zero value is CRFsuite's default: the (attribute, label)
// pairs and the label transitions observed in the training data, and the
// (pair attribute, previous label, label) triples observed there, each with
// a frequency of at least MinFreq.
type FeatureSet struct {
	// MinFreq drops features whose frequency in the training data (the sum
	// of the attribute's values, 1 for a transition) is below it
	// (CRFsuite's feature.minfreq; 0 keeps every observed feature).
	MinFreq float64
	// PossibleStates adds every (attribute, label) pair of an observed
	// attribute (feature.possible_states).
	PossibleStates bool
	// PossibleTransitions adds every label transition and every
	// (pair attribute, previous, label) triple of an observed pair attribute
	// (feature.possible_transitions).
	PossibleTransitions bool
	// Dense makes every feature of the layout exist (the feature set of
	// CRF++, Wapiti and this toolkit's lbfgs by default).
	Dense bool
}

// features is the compact layout of the features that exist: the state
// features of attribute a at [sptr[a], sptr[a+1]) with labels lab[r]
// (increasing), then the features after the state block (transitions and
// pairs), dense from ns, with tailOK (nil: all) saying which exist.
//
// lab8 is lab as bytes when every label fits in one (L <= 256, nil
// otherwise): the state scores and expectations read it, a quarter of the
// cache lines of lab.
type features struct {
	lay    sparse.Layout
	sptr   []int32
	lab    []int32
	lab8   []uint8
	ns     int
	tailOK []bool
}

// label is the type of a stored label: a byte (lab8) or an int32 (lab).
type label interface{ ~uint8 | ~int32 }

// bytes fills lab8 when every label fits in a byte.
func (f *features) bytes() {
	if f.lay.L > 256 {
		return
	}
	f.lab8 = make([]uint8, len(f.lab))
	for r, y := range f.lab {
		f.lab8[r] = uint8(y)
	}
}

// size returns the number of compact slots (state features plus the
// dense tail).
func (f *features) size() int { return f.ns + f.lay.Dim() - f.lay.StateLen() }

// count returns the number of features that exist.
func (f *features) count() int {
	n := f.ns
	tail := f.lay.Dim() - f.lay.StateLen()
	if f.tailOK == nil {
		return n + tail
	}
	for _, ok := range f.tailOK {
		if ok {
			n++
		}
	}
	return n
}

// newFeatures returns the features of fs on the labeled corpus c with
// sequence weights wts (nil: 1), as CRFsuite's crf1df_generate chooses
// them: a feature is a candidate when it fires on the gold path of some
// sequence (or PossibleStates / PossibleTransitions adds it), and it is
// kept when its frequency (the sum over its occurrences of the sequence
// weight times the attribute's value, 0 for one only added) is at least
// MinFreq.
func newFeatures(lay sparse.Layout, c *sparse.Corpus, wts []float64, fs FeatureSet) *features {
	if fs.Dense {
		return denseFeatures(lay)
	}
	// With binary attributes and MinFreq = 0 (the default) every observed
	// feature is kept (weights are positive), so a bitset is enough;
	// otherwise the frequencies, in a transient vector.
	g := countGold(lay, c, wts, c.Unary.Val != nil || fs.MinFreq != 0)
	f := &features{lay: lay}
	f.chooseStates(g, fs)
	f.chooseTail(g, fs)
	f.bytes()
	return f
}

// denseFeatures returns every (attribute, label) pair as a state feature
// and every transition and pair feature.
func denseFeatures(lay sparse.Layout) *features {
	f := &features{lay: lay}
	f.sptr = make([]int32, lay.NumUnary+1)
	f.lab = make([]int32, 0, lay.StateLen())
	for a := 0; a < lay.NumUnary; a++ {
		for y := 0; y < lay.L; y++ {
			f.lab = append(f.lab, int32(y))
		}
		f.sptr[a+1] = int32(len(f.lab))
	}
	f.ns = len(f.lab)
	f.bytes()
	return f
}

// goldCounts are what the gold paths of a corpus fire: the state features
// hit (with their weighted frequencies when freq is not nil), the
// frequencies and hits of the features after the state block, and the
// unary and pair attributes seen.
type goldCounts struct {
	hit          sparse.Bitset
	freq         []float64
	tailFreq     []float64
	tailHit      []bool
	seenU, seenP []bool
}

// countGold counts the features on the gold paths of c with sequence
// weights wts (nil: 1); withFreq keeps the state features' frequencies.
func countGold(lay sparse.Layout, c *sparse.Corpus, wts []float64, withFreq bool) *goldCounts {
	L, tail := lay.L, lay.Dim()-lay.StateLen()
	g := &goldCounts{hit: sparse.NewBitset(lay.StateLen()), tailFreq: make([]float64, tail), tailHit: make([]bool, tail),
		seenU: make([]bool, lay.NumUnary), seenP: make([]bool, lay.NumPair)}
	if withFreq {
		g.freq = make([]float64, lay.StateLen())
	}
	pairOff := lay.PairOffset() - lay.StateLen()
	for i := 0; i < c.Len(); i++ {
		s := 1.0
		if wts != nil {
			s = wts[i]
		}
		start, T := c.Span(i)
		for t := 0; t < T; t++ {
			p := start + t
			y := int(c.Labels[p])
			if t > 0 && lay.Transitions {
				k := int(c.Labels[p-1])*L + y
				g.tailFreq[k] += s
				g.tailHit[k] = true
			}
			g.addStates(c, p, y, L, s)
			if t == 0 || lay.NumPair == 0 || c.Pair.Rows() == 0 {
				continue
			}
			prev := int(c.Labels[p-1])
			pc, pv := c.Pair.Row(p)
			for k, a := range pc {
				v := 1.0
				if pv != nil {
					v = pv[k]
				}
				j := pairOff + int(a)*L*L + prev*L + y
				g.tailFreq[j] += s * v
				g.tailHit[j] = true
				g.seenP[a] = true
			}
		}
	}
	return g
}

// addStates counts the state features of position p with gold label y and
// sequence weight s.
func (g *goldCounts) addStates(c *sparse.Corpus, p, y, L int, s float64) {
	cols, vals := c.Unary.Row(p)
	for k, a := range cols {
		j := int(a)*L + y
		g.hit.Set(j)
		if g.freq != nil {
			v := 1.0
			if vals != nil {
				v = vals[k]
			}
			g.freq[j] += s * v
		}
		g.seenU[a] = true
	}
}

// chooseStates keeps the state features of fs: candidates (hit on a gold
// path, or every label of a seen attribute with PossibleStates) whose
// frequency is at least MinFreq.
func (f *features) chooseStates(g *goldCounts, fs FeatureSet) {
	lay, L := f.lay, f.lay.L
	f.sptr = make([]int32, lay.NumUnary+1)
	for a := 0; a < lay.NumUnary; a++ {
		for y := 0; y < L; y++ {
			j := a*L + y
			cand := g.hit.Has(j) || (fs.PossibleStates && g.seenU[a])
			fr := 1.0 // observed, binary, MinFreq 0: kept
			switch {
			case g.freq != nil:
				fr = g.freq[j]
			case !g.hit.Has(j):
				fr = 0
			}
			if cand && fr >= fs.MinFreq {
				f.lab = append(f.lab, int32(y))
			}
		}
		f.sptr[a+1] = int32(len(f.lab))
	}
	f.ns = len(f.lab)
}

// chooseTail keeps the transition and pair features of fs: candidates (hit
// on a gold path, or all of them with PossibleTransitions: every
// transition, and every label pair of a seen pair attribute) whose
// frequency is at least MinFreq.
func (f *features) chooseTail(g *goldCounts, fs FeatureSet) {
	lay, L := f.lay, f.lay.L
	pairOff := lay.PairOffset() - lay.StateLen()
	f.tailOK = make([]bool, len(g.tailHit))
	for j := range f.tailOK {
		cand := g.tailHit[j]
		if fs.PossibleTransitions {
			if j < L*L {
				cand = cand || lay.Transitions
			} else {
				cand = cand || g.seenP[(j-pairOff)/(L*L)]
			}
		}
		f.tailOK[j] = cand && g.tailFreq[j] >= fs.MinFreq
	}
}

// slot returns the compact slot of state feature (a, y), or -1 when it
// does not exist.
func (f *features) slot(a int32, y int) int {
	lo, hi := int(f.sptr[a]), int(f.sptr[a+1])
	if hi-lo == f.lay.L {
		return lo + y
	}
	for r := lo; r < hi; r++ {
		switch l := int(f.lab[r]); {
		case l == y:
			return r
		case l > y:
			return -1
		}
	}
	return -1
}

// tailSlot returns the compact slot of tail feature k (k = full index -
// StateLen), or -1 when it does not exist.
func (f *features) tailSlot(k int) int {
	if f.tailOK != nil && !f.tailOK[k] {
		return -1
	}
	return f.ns + k
}

// scatter writes the compact weights w (times scale) into the full-size
// vector dst (zeros elsewhere).
func (f *features) scatter(dst, w []float64, scale float64) {
	clear(dst)
	L := f.lay.L
	for a := 0; a < f.lay.NumUnary; a++ {
		for r := f.sptr[a]; r < f.sptr[a+1]; r++ {
			dst[a*L+int(f.lab[r])] = scale * w[r]
		}
	}
	tail := dst[f.lay.StateLen():]
	for k := range tail {
		tail[k] = scale * w[f.ns+k]
	}
}

// nonZero returns the non-zero weights of the compact vector w as full
// indices (increasing) and values: what scatter writes that is not 0.
func (f *features) nonZero(w []float64) (idx []int32, val []float64) {
	L := f.lay.L
	for a := 0; a < f.lay.NumUnary; a++ {
		for r := f.sptr[a]; r < f.sptr[a+1]; r++ {
			if w[r] != 0 {
				idx, val = append(idx, int32(a*L+int(f.lab[r]))), append(val, w[r])
			}
		}
	}
	off := f.lay.StateLen()
	for k, v := range w[f.ns:] {
		if v != 0 {
			idx, val = append(idx, int32(off+k)), append(val, v)
		}
	}
	return idx, val
}

// scorer scores sequences under compact weights.
type scorer struct {
	f     *features
	c     *sparse.Corpus
	scr   lattice.Scratch
	trans []float64
	ws    *inference.Workspace
	path  []int
	gold  []int
	edge  []float64
	js    []int32   // onPath's slots
	vs    []float64 // onPath's values
	mus   []float64 // expect's node marginals times the scale
	// goldSlot[e] is the slot of the state feature (attribute, gold label)
	// of entry e of c.Unary (-1: it does not exist), so that goldPath
	// reads a stream instead of searching each attribute's labels.
	goldSlot []int32
}

func newScorer(f *features, c *sparse.Corpus) *scorer {
	L := f.lay.L
	T := c.MaxLen()
	s := &scorer{f: f, c: c, trans: make([]float64, L*L), ws: inference.NewWorkspace(T, L),
		path: make([]int, T), gold: make([]int, T), mus: make([]float64, L)}
	s.goldSlot = make([]int32, c.Unary.NNZ())
	for p := 0; p < c.Unary.Rows(); p++ {
		y, lo := int(c.Labels[p]), int(c.Unary.RowPtr[p])
		cols, _ := c.Unary.Row(p)
		for k, a := range cols {
			s.goldSlot[lo+k] = int32(f.slot(a, y))
		}
	}
	return s
}

// score returns the lattice of sequence i under the weights scale * w
// (compact); it aliases the scorer.
func (s *scorer) score(w []float64, scale float64, i int) *inference.Lattice {
	f, c := s.f, s.c
	L := f.lay.L
	start, T := c.Span(i)
	unary := s.scr.ZeroUnary(T * L)
	t := 0
	if c.Unary.Val == nil && f.lab8 != nil {
		for ; t+1 < T; t += 2 {
			c0, _ := c.Unary.Row(start + t)
			c1, _ := c.Unary.Row(start + t + 1)
			addStatesPair(unary[t*L:t*L+L:t*L+L], unary[t*L+L:t*L+2*L:t*L+2*L], f.sptr, f.lab8, c0, c1, w)
		}
	}
	for ; t < T; t++ {
		cols, vals := c.Unary.Row(start + t)
		f.addStates(unary[t*L:t*L+L:t*L+L], cols, vals, w)
	}
	if scale != 1 {
		for k := range unary {
			unary[k] *= scale
		}
	}
	lat := lattice.FinishTail(&s.scr, f.lay, w[f.ns:], c, i, unary)
	if scale != 1 {
		if lat.Trans != nil {
			for k, x := range lat.Trans {
				s.trans[k] = scale * x
			}
			lat.Trans = s.trans
		}
		for k := range lat.TransAt {
			lat.TransAt[k] *= scale
		}
	}
	for t := 0; t < T; t++ {
		s.gold[t] = int(c.Labels[start+t])
	}
	return lat
}

// addStates adds to row the state scores of the attributes cols with
// values vals (nil: 1) under the compact weights w, attribute by attribute
// (the sums of internal/lattice.Score, in the same order: the same bits).
func (f *features) addStates(row []float64, cols []int32, vals []float64, w []float64) {
	if f.lab8 != nil {
		addStates(row, f.sptr, f.lab8, cols, vals, w)
	} else {
		addStates(row, f.sptr, f.lab, cols, vals, w)
	}
}

// addStates is features.addStates over the feature ranges sptr and the
// labels lab.
func addStates[T label](row []float64, sptr []int32, lab []T, cols []int32, vals []float64, w []float64) {
	L := len(row)
	if vals == nil {
		for _, a := range cols {
			lo, hi := sptr[a], sptr[a+1]
			ws := w[lo:hi]
			if len(ws) == L {
				for y, x := range ws[:L] {
					row[y] += x
				}
				continue
			}
			labs := lab[lo:hi]
			ws = ws[:len(labs)]
			for q, y := range labs {
				row[y] += ws[q]
			}
		}
		return
	}
	vals = vals[:len(cols)]
	for k, a := range cols {
		v := vals[k]
		lo, hi := sptr[a], sptr[a+1]
		ws := w[lo:hi]
		if len(ws) == L {
			for y, x := range ws[:L] {
				row[y] += v * x
			}
			continue
		}
		labs := lab[lo:hi]
		ws = ws[:len(labs)]
		for q, y := range labs {
			row[y] += v * ws[q]
		}
	}
}

// addStatesPair is addStates of two positions with binary rows (c0 into
// r0, c1 into r1), their attributes alternated: each row gets the same
// sums in the same order, and the processor two independent chains of
// additions.
func addStatesPair[T label](r0, r1 []float64, sptr []int32, lab []T, c0, c1 []int32, w []float64) {
	n := min(len(c0), len(c1))
	for k := 0; k < n; k++ {
		addAttr(r0, sptr, lab, c0[k], w)
		addAttr(r1, sptr, lab, c1[k], w)
	}
	for _, a := range c0[n:] {
		addAttr(r0, sptr, lab, a, w)
	}
	for _, a := range c1[n:] {
		addAttr(r1, sptr, lab, a, w)
	}
}

// addAttr adds the weights of attribute a's state features to row.
func addAttr[T label](row []float64, sptr []int32, lab []T, a int32, w []float64) {
	lo, hi := sptr[a], sptr[a+1]
	ws := w[lo:hi]
	if len(ws) == len(row) {
		for y, x := range ws[:len(row)] {
			row[y] += x
		}
		return
	}
	labs := lab[lo:hi]
	ws = ws[:len(labs)]
	for q, y := range labs {
		row[y] += ws[q]
	}
}

// viterbi returns the best path of sequence i under scale * w (in s.path)
// and its score.
func (s *scorer) viterbi(w []float64, scale float64, i int) (*inference.Lattice, float64) {
	lat := s.score(w, scale, i)
	return lat, inference.Viterbi(s.ws, lat, s.path)
}

// onPath returns the features that exist on the path y of sequence i
// (their slots and values, in buffers of the scorer valid until the next
// call), in CRFsuite's order (crf1de_features_on_path: per position, the
// state features attribute by attribute, then the transition, then the
// pair features).
func (s *scorer) onPath(i int, y []int) ([]int32, []float64) {
	f, c := s.f, s.c
	start, T := c.Span(i)
	js, vs := s.js[:0], s.vs[:0]
	for t := 0; t < T; t++ {
		cols, vals := c.Unary.Row(start + t)
		for k, a := range cols {
			if r := f.slot(a, y[t]); r >= 0 {
				v := 1.0
				if vals != nil {
					v = vals[k]
				}
				js, vs = append(js, int32(r)), append(vs, v)
			}
		}
		js, vs = s.tailOnPath(js, vs, start, t, y)
	}
	s.js, s.vs = js, vs
	return js, vs
}

// goldPath is onPath(i, s.gold) (the same slots and values in the same
// order) with the state features read from goldSlot; score must have
// scored sequence i last (it fills s.gold).
func (s *scorer) goldPath(i int) ([]int32, []float64) {
	c := s.c
	start, T := c.Span(i)
	ptr, val := c.Unary.RowPtr, c.Unary.Val
	js, vs := s.js[:0], s.vs[:0]
	for t := 0; t < T; t++ {
		lo, hi := ptr[start+t], ptr[start+t+1]
		for k, r := range s.goldSlot[lo:hi] {
			if r >= 0 {
				v := 1.0
				if val != nil {
					v = val[int(lo)+k]
				}
				js, vs = append(js, r), append(vs, v)
			}
		}
		js, vs = s.tailOnPath(js, vs, start, t, s.gold)
	}
	s.js, s.vs = js, vs
	return js, vs
}

// tailOnPath appends to js, vs the transition and pair features that exist
// on the path y at position t of the sequence starting at start.
func (s *scorer) tailOnPath(js []int32, vs []float64, start, t int, y []int) ([]int32, []float64) {
	f, c := s.f, s.c
	L := f.lay.L
	if t == 0 {
		return js, vs
	}
	if f.lay.Transitions {
		if r := f.tailSlot(y[t-1]*L + y[t]); r >= 0 {
			js, vs = append(js, int32(r)), append(vs, 1)
		}
	}
	if f.lay.NumPair == 0 || c.Pair.Rows() == 0 {
		return js, vs
	}
	pc, pv := c.Pair.Row(start + t)
	off := f.lay.PairOffset() - f.lay.StateLen()
	for k, a := range pc {
		if r := f.tailSlot(off + int(a)*L*L + y[t-1]*L + y[t]); r >= 0 {
			v := 1.0
			if pv != nil {
				v = pv[k]
			}
			js, vs = append(js, int32(r)), append(vs, v)
		}
	}
	return js, vs
}

// expect adds scale times the model expectation of every feature of
// sequence i that exists into g, after forward-backward on lat
// (crf1de_model_expectation).
func (s *scorer) expect(g []float64, scale float64, i int, lat *inference.Lattice) {
	f, c := s.f, s.c
	L := f.lay.L
	start, T := c.Span(i)
	node := s.ws.Node()
	for t := 0; t < T; t++ {
		cols, vals := c.Unary.Row(start + t)
		f.addExpect(g, node[t*L:t*L+L:t*L+L], s.mus, cols, vals, scale)
	}
	if T > 1 && f.lay.Transitions {
		for k, p := range s.ws.EdgeSum() {
			if r := f.tailSlot(k); r >= 0 {
				g[r] += p * scale
			}
		}
	}
	if f.lay.NumPair > 0 && c.Pair.Rows() > 0 {
		off := f.lay.PairOffset() - f.lay.StateLen()
		for t := 1; t < T; t++ {
			pc, pv := c.Pair.Row(start + t)
			if len(pc) == 0 {
				continue
			}
			s.edge = s.ws.EdgeAt(s.edge, lat, t)
			for k, a := range pc {
				v := scale
				if pv != nil {
					v *= pv[k]
				}
				base := off + int(a)*L*L
				for q, p := range s.edge[:L*L] {
					if r := f.tailSlot(base + q); r >= 0 {
						g[r] += p * v
					}
				}
			}
		}
	}
}

// addExpect adds to g, for every attribute of cols with value vals[k]
// (nil: 1), scale * value * mu[y] at the slot of each of its state
// features (a, y). Binary rows form mu * scale once, into mus (the
// products scale * mu[y] of every feature: the same bits).
func (f *features) addExpect(g, mu, mus []float64, cols []int32, vals []float64, scale float64) {
	if f.lab8 != nil {
		addExpect(g, mu, mus, f.sptr, f.lab8, cols, vals, scale)
	} else {
		addExpect(g, mu, mus, f.sptr, f.lab, cols, vals, scale)
	}
}

// addExpect is features.addExpect over the feature ranges sptr and the
// labels lab.
func addExpect[T label](g, mu, mus []float64, sptr []int32, lab []T, cols []int32, vals []float64, scale float64) {
	L := len(mu)
	if vals == nil {
		mus = mus[:L]
		for y, p := range mu {
			mus[y] = p * scale
		}
		for _, a := range cols {
			lo, hi := sptr[a], sptr[a+1]
			gg := g[lo:hi]
			if len(gg) == L {
				for y, p := range mus {
					gg[y] += p
				}
				continue
			}
			labs := lab[lo:hi]
			gg = gg[:len(labs)]
			for q, y := range labs {
				gg[q] += mus[y]
			}
		}
		return
	}
	vals = vals[:len(cols)]
	for k, a := range cols {
		v := scale * vals[k]
		lo, hi := sptr[a], sptr[a+1]
		gg := g[lo:hi]
		if len(gg) == L {
			for y, p := range mu {
				gg[y] += p * v
			}
			continue
		}
		labs := lab[lo:hi]
		gg = gg[:len(labs)]
		for q, y := range labs {
			gg[q] += mu[y] * v
		}
	}
}

// diff returns the number of positions where x and y differ.
func diff(x, y []int) int {
	d := 0
	for t := range x {
		if x[t] != y[t] {
			d++
		}
	}
	return d
}

// norm2 returns the squared L2 norm of x.
func norm2(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v * v
	}
	return s
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
