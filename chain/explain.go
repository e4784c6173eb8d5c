package chain

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/sparsetag/sparsetag/sparse"
)

// Contribution is one attribute's part of a score: its value times the
// weight of the feature it generates for the label (or label pair) in
// question.
type Contribution struct {
	Attr  int32   // attribute id (unary or pair dictionary); -1 for a feature of a peer model (package peer)
	Name  string  // attribute name from the model's encoder, or "#id" without one; a peer model's feature as its tool names it
	Value float64 // attribute value × weight
}

// TokenExplanation says why a label was predicted at one position: the
// state scores of every label (sum over the position's attributes of value
// × state weight), the attributes behind the predicted label's state score,
// and the transition from the previous label. It is the one explanation
// type of the toolkit: package peer explains the models of CRFsuite, CRF++
// and Wapiti with it too (their features named as the tools name them).
type TokenExplanation struct {
	Label    int       // the predicted label
	State    []float64 // state score of every label at this position (length L)
	RunnerUp int       // the label other than Label with the highest state score (lowest id among ties), -1 if L = 1

	// Attrs holds the non-zero contributions to State[Label], by decreasing
	// absolute value (attribute order among ties). They sum to State[Label]
	// up to rounding.
	Attrs []Contribution

	// Prev is the previous label, -1 at the first position, where Trans
	// and Pairs are zero and empty.
	Prev int
	// Trans is the label-bigram weight of Prev -> Label.
	Trans float64
	// Pairs holds the non-zero contributions of observation-conditioned
	// transition features (pair attributes × Prev -> Label), in attribute
	// order.
	Pairs []Contribution
}

// Explain explains the labels path assigns to sequence i of the encoded
// corpus c (encoded with the model's encoder), e.g. the Viterbi path of
// Tagger.Tag or Tagger.Decode of Encoded{c, i}: for every position, the
// state scores, the attributes that make up the chosen label's state
// score, and the transition and pair weights from the previous label. The
// score of the path (Decoding.Scores) is the sum over positions of
// State[Label] + Trans + the Pairs' values.
//
// Explain only reads m and c; it may run concurrently with taggers of m.
func (m *Model) Explain(c *sparse.Corpus, i int, path []int) ([]TokenExplanation, error) {
	if i < 0 || i >= c.Len() {
		return nil, fmt.Errorf("chain: explain: sequence %d out of range [0,%d)", i, c.Len())
	}
	start, T := c.Span(i)
	if len(path) != T {
		return nil, fmt.Errorf("chain: explain: path of %d labels for a sequence of %d positions", len(path), T)
	}
	L := m.NumLabels()
	for _, y := range path {
		if y < 0 || y >= L {
			return nil, fmt.Errorf("chain: explain: label %d out of range [0,%d)", y, L)
		}
	}
	unaryName, pairName := m.attrNamers()
	trans, pairOff := m.Layout.TransOffset(), m.Layout.PairOffset()
	out := make([]TokenExplanation, T)
	for t, y := range path {
		e := &out[t]
		e.Label, e.Prev, e.State = y, -1, make([]float64, L)
		cols, vals := c.Unary.Row(start + t)
		for k, a := range cols {
			if int(a) >= m.Layout.NumUnary {
				return nil, fmt.Errorf("chain: explain: position %d: unary attribute %d, model has %d", t, a, m.Layout.NumUnary)
			}
			v := 1.0
			if vals != nil {
				v = vals[k]
			}
			wa := m.W[int(a)*L : int(a)*L+L]
			for l := range e.State {
				e.State[l] += v * wa[l]
			}
			if x := v * wa[y]; x != 0 {
				e.Attrs = append(e.Attrs, Contribution{Attr: a, Name: unaryName(a), Value: x})
			}
		}
		slices.SortStableFunc(e.Attrs, func(p, q Contribution) int {
			// Decreasing |value|; Compare orders NaN first, which keeps
			// a broken model's NaN weights visible at the top.
			return -compareAbs(p.Value, q.Value)
		})
		e.RunnerUp = runnerUp(e.State, y)
		if t == 0 {
			continue
		}
		p := path[t-1]
		e.Prev = p
		e.Trans = m.W[trans+p*L+y]
		if c.Pair.Rows() > start+t {
			pc, pv := c.Pair.Row(start + t)
			for k, a := range pc {
				if int(a) >= m.Layout.NumPair {
					return nil, fmt.Errorf("chain: explain: position %d: pair attribute %d, model has %d", t, a, m.Layout.NumPair)
				}
				v := 1.0
				if pv != nil {
					v = pv[k]
				}
				if x := v * m.W[pairOff+int(a)*L*L+p*L+y]; x != 0 {
					e.Pairs = append(e.Pairs, Contribution{Attr: a, Name: pairName(a), Value: x})
				}
			}
		}
	}
	return out, nil
}

func compareAbs(a, b float64) int {
	x, y := math.Abs(a), math.Abs(b)
	switch {
	case math.IsNaN(x) || math.IsNaN(y):
		if math.IsNaN(x) == math.IsNaN(y) {
			return 0
		}
		if math.IsNaN(x) {
			return 1
		}
		return -1
	case x > y:
		return 1
	case x < y:
		return -1
	}
	return 0
}

// attrNamers returns functions naming unary and pair attributes: through
// the encoder's dictionaries, or "#id" for a model without an encoder.
func (m *Model) attrNamers() (unary, pair func(int32) string) {
	if m.Encoder == nil {
		f := func(a int32) string { return "#" + strconv.Itoa(int(a)) }
		return f, f
	}
	return m.Encoder.Unary().Name, m.Encoder.Pair().Name
}

// runnerUp returns the label other than y with the highest state score
// (the lowest index among ties), or -1 if there is none.
func runnerUp(state []float64, y int) int {
	r := -1
	for l, s := range state {
		if l != y && (r < 0 || s > state[r]) {
			r = l
		}
	}
	return r
}
