package chain

import (
	"fmt"
	"slices"

	"github.com/sparsetag/sparsetag/sparse"
)

// Explain explains the labels path assigns to in (see Input), e.g. the
// path of Tag or of Decode: for every position, the state scores, the
// attributes behind the chosen label's state score, and the transition and
// pair weights from the previous label, as Model.Explain does for an
// encoded sequence. Every Tagger explains, a tag-only one included, with
// the same result as Model.Explain of the full model.
func (t *Tagger) Explain(in Input, path []int) ([]TokenExplanation, error) {
	s := t.get()
	defer t.put(s)
	c, i, err := t.sequence(s, in)
	if err != nil {
		return nil, err
	}
	if t.m != nil {
		return t.m.Explain(c, i, path)
	}
	return t.explainSparse(c, i, path)
}

// explainSparse is Explain for a tag-only Tagger. It runs Model.Explain on
// a model restricted to the attributes of the sequence, whose dense
// weights it fills from the sparse ones (StateWeights, TransWeight,
// PairWeights), and gives the contributions back their attribute ids and
// names. The restricted model keeps the attributes' order, and every
// weight that the full model would read, zeros included, so the sums and
// the order of the contributions are the full model's.
func (t *Tagger) explainSparse(c *sparse.Corpus, i int, path []int) ([]TokenExplanation, error) {
	start, T := c.Span(i)
	if err := t.checkExplain(c, start, T, path); err != nil {
		return nil, err
	}
	sub, unary, pair, err := t.restrict(c, start, T)
	if err != nil {
		return nil, err
	}
	out, err := sub.Explain(restrictedSequence(c, start, T, unary, pair), 0, path)
	if err != nil {
		return nil, err
	}
	unaryName, pairName := (&Model{Encoder: t.Encoder()}).attrNamers()
	for k := range out {
		rename(out[k].Attrs, unary, unaryName)
		rename(out[k].Pairs, pair, pairName)
	}
	return out, nil
}

// checkExplain reports what Model.Explain would refuse in the sequence of
// T positions at start of c under path, with the same error, before any
// attribute id is mapped.
func (t *Tagger) checkExplain(c *sparse.Corpus, start, T int, path []int) error {
	if len(path) != T {
		return fmt.Errorf("chain: explain: path of %d labels for a sequence of %d positions", len(path), T)
	}
	L, lay := t.NumLabels(), t.Layout()
	for _, y := range path {
		if y < 0 || y >= L {
			return fmt.Errorf("chain: explain: label %d out of range [0,%d)", y, L)
		}
	}
	for p := range T {
		cols, _ := c.Unary.Row(start + p)
		for _, a := range cols {
			if a < 0 || int(a) >= lay.NumUnary {
				return fmt.Errorf("chain: explain: position %d: unary attribute %d, model has %d", p, a, lay.NumUnary)
			}
		}
		if p == 0 || c.Pair.Rows() <= start+p {
			continue
		}
		pc, _ := c.Pair.Row(start + p)
		for _, a := range pc {
			if a < 0 || int(a) >= lay.NumPair {
				return fmt.Errorf("chain: explain: position %d: pair attribute %d, model has %d", p, a, lay.NumPair)
			}
		}
	}
	return nil
}

// restrict returns a model of the Tagger's labels over only the unary and
// pair attributes of the T positions at start of c, with their weights,
// and the attribute ids of the model's attributes 0, 1, ... in increasing
// order.
func (t *Tagger) restrict(c *sparse.Corpus, start, T int) (sub *Model, unary, pair []int32, err error) {
	unary = usedAttrs(&c.Unary, start, T, 0)
	if c.Pair.Rows() > 0 {
		pair = usedAttrs(&c.Pair, start, T, 1)
	}
	lay := t.Layout()
	sub, err = NewModel(t.Labels(), len(unary), len(pair), lay.Transitions, nil)
	if err != nil {
		return nil, nil, nil, err
	}
	L, LL := lay.L, lay.L*lay.L
	for b, a := range unary {
		t.StateWeights(sub.State[b*L:b*L+L], int(a))
	}
	for prev := range L {
		for cur := range L {
			sub.Trans[prev*L+cur] = t.TransWeight(prev, cur)
		}
	}
	for b, a := range pair {
		t.PairWeights(sub.PairW[b*LL:b*LL+LL], int(a))
	}
	return sub, unary, pair, nil
}

// usedAttrs returns the distinct attribute ids of rows start+from to
// start+T-1 of x, sorted.
func usedAttrs(x *sparse.Matrix, start, T, from int) []int32 {
	var ids []int32
	for p := from; p < T && start+p < x.Rows(); p++ {
		cols, _ := x.Row(start + p)
		ids = append(ids, cols...)
	}
	slices.Sort(ids)
	return slices.Compact(ids)
}

// restrictedSequence returns the T positions at start of c as a corpus of
// one sequence over the restricted attributes (see restrict): every id is
// replaced by its index in unary or pair, rows keep their order and values.
func restrictedSequence(c *sparse.Corpus, start, T int, unary, pair []int32) *sparse.Corpus {
	out := &sparse.Corpus{NumUnary: len(unary), NumPair: len(pair)}
	rows := make([][]int32, T)
	vals := make([][]float64, T)
	var prow [][]int32
	var pvals [][]float64
	if c.Pair.Rows() > 0 {
		prow, pvals = make([][]int32, T), make([][]float64, T)
	}
	for p := range T {
		rows[p], vals[p] = mapRow(&c.Unary, start+p, unary)
		if prow != nil && start+p < c.Pair.Rows() && p > 0 {
			prow[p], pvals[p] = mapRow(&c.Pair, start+p, pair)
		}
	}
	if c.Unary.Val == nil {
		vals = nil
	}
	if c.Pair.Val == nil {
		pvals = nil
	}
	out.AppendSequence(rows, vals, prow, pvals, make([]int32, T))
	return out
}

// mapRow returns row r of x with every id replaced by its index in ids
// (sorted, holding every id of the row).
func mapRow(x *sparse.Matrix, r int, ids []int32) ([]int32, []float64) {
	cols, vals := x.Row(r)
	out := make([]int32, len(cols))
	for k, a := range cols {
		j, _ := slices.BinarySearch(ids, a)
		out[k] = int32(j)
	}
	return out, vals
}

// rename gives contributions of a restricted model their attribute ids in
// the full model (ids[restricted id]) and names.
func rename(cs []Contribution, ids []int32, name func(int32) string) {
	for k := range cs {
		a := ids[cs[k].Attr]
		cs[k].Attr, cs[k].Name = a, name(a)
	}
}

// StateWeights writes the L state weights of unary attribute a (zeros
// included) into dst, which must have length L, and returns it. Every
// Tagger has them, a tag-only one from its sparse weights.
func (t *Tagger) StateWeights(dst []float64, a int) []float64 {
	if t.m != nil {
		L := t.m.Layout.L
		copy(dst, t.m.State[a*L:a*L+L])
		return dst
	}
	t.lite.w.state.row(dst, a)
	return dst
}

// TransWeight returns the label-bigram weight of prev -> cur.
func (t *Tagger) TransWeight(prev, cur int) float64 {
	if t.m != nil {
		return t.m.Trans[prev*t.m.Layout.L+cur]
	}
	w := t.lite.w
	return w.trans[prev*w.layout.L+cur]
}

// PairWeights writes the L×L weights of pair attribute a (prev*L+cur,
// zeros included) into dst, which must have length L*L, and returns it.
func (t *Tagger) PairWeights(dst []float64, a int) []float64 {
	if t.m != nil {
		LL := t.m.Layout.L * t.m.Layout.L
		copy(dst, t.m.PairW[a*LL:a*LL+LL])
		return dst
	}
	t.lite.w.pair.Row(dst, a)
	return dst
}
