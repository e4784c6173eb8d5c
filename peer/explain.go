package peer

import (
	"cmp"
	"math"
	"slices"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/corpora"
)

// Explanations are chain.TokenExplanation values, the toolkit's one
// explanation type, filled as follows for a peer model:
//   - a Contribution is one feature's part of a score, its value times a
//     weight (CRF++: times the cost factor); its Attr is -1 and its Name
//     the attribute, feature string or observation (see Weight.Feature);
//   - Attrs holds the non-zero contributions to State[Label], by
//     decreasing absolute value (input order among ties); they sum to
//     State[Label] up to rounding (CRF++ sums in float32);
//   - Trans is the weight of Prev -> Label of the features that read no
//     input (TransWeight), and Pairs the non-zero contributions of the
//     bigram features that read the input (PairWeight), in template order.

// contribution is a peer feature's contribution: no attribute id.
func contribution(name string, value float64) chain.Contribution {
	return chain.Contribution{Attr: -1, Name: name, Value: value}
}

// checkPath reports a path that does not fit T positions and L labels.
func checkPath(path []int, T, L int) error {
	if len(path) != T {
		return inputErr("explain: path of %d labels for a sequence of %d positions", len(path), T)
	}
	for _, y := range path {
		if y < 0 || y >= L {
			return inputErr("explain: label %d out of range [0,%d)", y, L)
		}
	}
	return nil
}

// finish sorts e.Attrs and sets e.RunnerUp.
func finish(e *chain.TokenExplanation) {
	slices.SortStableFunc(e.Attrs, func(p, q chain.Contribution) int {
		return -cmp.Compare(math.Abs(p.Value), math.Abs(q.Value))
	})
	e.RunnerUp = -1
	for l, s := range e.State {
		if l != e.Label && (e.RunnerUp < 0 || s > e.State[e.RunnerUp]) {
			e.RunnerUp = l
		}
	}
}

// Explain explains the labels path assigns to seq (e.g. Tag's): for every
// position, the state scores of every label, the attributes behind the
// chosen label's (value × weight of each known attribute), and the
// transition weight from the previous label. It only reads m.
func (m *CRFsuiteModel) Explain(seq corpora.Sequence, path []int) ([]chain.TokenExplanation, error) {
	if seq.Tokens != nil && seq.Attrs == nil {
		return nil, inputErr("a CRFsuite model tags attribute sequences (Sequence.Attrs), got columns")
	}
	L := len(m.labels)
	if err := checkPath(path, len(seq.Attrs), L); err != nil {
		return nil, err
	}
	out := make([]chain.TokenExplanation, len(path))
	for t, y := range path {
		e := &out[t]
		e.Label, e.Prev, e.State = y, -1, make([]float64, L)
		for _, a := range seq.Attrs[t] {
			id, ok := m.attrs[a.Name]
			if !ok {
				continue
			}
			for r := m.refStart[id]; r < m.refStart[id+1]; r++ {
				x := float64(m.refWeight[r] * a.Value)
				e.State[m.refLabel[r]] += x
				if int(m.refLabel[r]) == y && x != 0 {
					e.Attrs = append(e.Attrs, contribution(a.Name, x))
				}
			}
		}
		finish(e)
		if t > 0 {
			e.Prev = path[t-1]
			e.Trans = m.trans[e.Prev*L+y]
		}
	}
	return out, nil
}

// Explain explains path as CRFsuiteModel.Explain does, with the feature
// strings of the model's templates (U02:the, B) and CRF++'s scores: each
// weight times the cost factor, the state score of a label summed in
// float32 as crf_test sums it.
func (m *CRFPPModel) Explain(seq corpora.Sequence, path []int) ([]chain.TokenExplanation, error) {
	if seq.Attrs != nil && seq.Tokens == nil {
		return nil, inputErr("a CRF++ model tags column sequences (Sequence.Tokens), got attributes")
	}
	toks := seq.Tokens
	for t, row := range toks {
		if len(row) < m.xsize {
			return nil, inputErr("position %d has %d columns, the CRF++ model reads %d", t, len(row), m.xsize)
		}
	}
	L := len(m.labels)
	if err := checkPath(path, len(toks), L); err != nil {
		return nil, err
	}
	cf := m.costFactor
	var buf []byte
	// feats returns the feature strings and ids of templates at t.
	feats := func(tmpls []crfppTemplate, t, block int) (names []string, ids []int, err error) {
		for i := range tmpls {
			buf = tmpls[i].expand(buf[:0], toks, t)
			id := m.id(buf)
			if id < 0 {
				continue
			}
			if id+block > m.maxid {
				return nil, nil, inputErr("CRF++ model: feature %q has weights %d..%d beyond maxid %d", buf, id, id+block-1, m.maxid)
			}
			names, ids = append(names, string(buf)), append(ids, id)
		}
		return names, ids, nil
	}
	constant := m.constantBigrams()
	out := make([]chain.TokenExplanation, len(path))
	for t, y := range path {
		e := &out[t]
		e.Label, e.Prev, e.State = y, -1, make([]float64, L)
		names, ids, err := feats(m.unigram, t, L)
		if err != nil {
			return nil, err
		}
		for l := range e.State {
			var c float32
			for _, id := range ids {
				c += m.alpha[id+l]
			}
			e.State[l] = cf * float64(c)
		}
		for k, id := range ids {
			if x := cf * float64(m.alpha[id+y]); x != 0 {
				e.Attrs = append(e.Attrs, contribution(names[k], x))
			}
		}
		finish(e)
		if t == 0 {
			continue
		}
		e.Prev = path[t-1]
		if names, ids, err = feats(m.bigram, t, L*L); err != nil {
			return nil, err
		}
		for k, id := range ids {
			x := cf * float64(m.alpha[id+e.Prev*L+y])
			switch {
			case constant[names[k]]:
				e.Trans += x
			case x != 0:
				e.Pairs = append(e.Pairs, contribution(names[k], x))
			}
		}
	}
	return out, nil
}

// constantBigrams returns the feature strings of the bigram templates that
// read no input.
func (m *CRFPPModel) constantBigrams() map[string]bool {
	c := map[string]bool{}
	for _, t := range m.bigram {
		if len(t.rows) == 0 {
			c[t.lits[0]] = true
		}
	}
	return c
}

// obsNames returns the observation names by id (built once per model).
func (m *WapitiModel) obsNames() []string {
	m.namesOnce.Do(func() {
		m.names = make([]string, len(m.kind))
		for s, o := range m.obs {
			m.names[o] = s
		}
	})
	return m.names
}

// constantPatterns returns the patterns that read no input (their
// observation is the pattern itself, e.g. "b").
func (m *WapitiModel) constantPatterns() map[string]bool {
	c := map[string]bool{}
	for _, p := range m.pats {
		ok := true
		var lit []byte
		for _, it := range p.items {
			ok = ok && it.typ == 's'
			lit = append(lit, it.value...)
		}
		if ok {
			c[string(lit)] = true
		}
	}
	return c
}

// Explain explains path as CRFsuiteModel.Explain does, with the model's
// observations (u02:the, b) and Wapiti's sums.
func (m *WapitiModel) Explain(seq corpora.Sequence, path []int) ([]chain.TokenExplanation, error) {
	uobs, bobs, err := m.observations(seq)
	if err != nil {
		return nil, err
	}
	Y := len(m.labels)
	if err := checkPath(path, len(uobs), Y); err != nil {
		return nil, err
	}
	names, constant := m.obsNames(), m.constantPatterns()
	out := make([]chain.TokenExplanation, len(path))
	for t, y := range path {
		e := &out[t]
		e.Label, e.Prev, e.State = y, -1, make([]float64, Y)
		for _, o := range uobs[t] {
			for l := range e.State {
				e.State[l] += m.weight(m.uoff[o] + int64(l))
			}
			if x := m.weight(m.uoff[o] + int64(y)); x != 0 {
				e.Attrs = append(e.Attrs, contribution(names[o], x))
			}
		}
		finish(e)
		if t == 0 {
			continue
		}
		e.Prev = path[t-1]
		for _, o := range bobs[t] {
			x := m.weight(m.boff[o] + int64(e.Prev*Y+y))
			switch {
			case constant[names[o]]:
				e.Trans += x
			case x != 0:
				e.Pairs = append(e.Pairs, contribution(names[o], x))
			}
		}
	}
	return out, nil
}
