package objective

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/sparse"
)

// SetWeights makes the objective the weighted average
// L_s(w) = (1/n) sum_i s_i NLL_i(w), with m_s = -grad L_s: every
// sequence's loss, node and edge marginals (so every expected count,
// whichever accumulation path takes it) and observed counts are scaled by
// its weight s[i] (docs/crfsuite-algorithms.md, "The weighted dual"). nil
// means unit weights and leaves the objective exactly as without the call
// (the same bits). The objective keeps s. Call it before the first
// evaluation; the node marginals (Stats) are then the weighted ones.
func (o *Objective) SetWeights(s []float64) error {
	if s == nil {
		if o.weights != nil && o.partial == nil {
			// Back to New's counts. With partial labels the observed
			// counts stay SetPartial's (the constrained marginals take
			// their place).
			o.obs = observedCounts(o.m, o.c, o.attrCum, o.fused, nil)
		}
		o.weights = nil
		return nil
	}
	if err := CheckWeights(s, o.c.Len()); err != nil {
		return err
	}
	if o.partial != nil {
		return errors.New("train: sequence weights with partial labels are not supported")
	}
	o.weights = s
	o.obs = observedCounts(o.m, o.c, o.attrCum, o.fused, s)
	return nil
}

// CheckWeights returns an error unless s holds n finite weights above 0.
func CheckWeights(s []float64, n int) error {
	if len(s) != n {
		return fmt.Errorf("train: %d sequence weights for %d sequences", len(s), n)
	}
	for i, v := range s {
		if !(v > 0) || math.IsInf(v, 1) {
			return fmt.Errorf("train: the weight of sequence %d is %v; want a finite number above 0", i+1, v)
		}
	}
	return nil
}

// observedCounts returns the observed counts of the layout of m over c
// (dense when fused, else sparse by attribute, attrCum its column counts), each
// position's scaled by the weight of its sequence (s nil: unit weights).
func observedCounts(m *chain.Model, c *sparse.Corpus, attrCum []int32, fused bool, s []float64) counts {
	var obs counts
	if fused {
		obs = counts{dense: weightedObserved(m, c, s)}
	} else {
		obs = sparseObserved(m, c, attrCum, s)
	}
	if c.HasDense() {
		blockObserved(&obs, m, c, seqWeights(c, s))
	}
	return obs
}

// seqWeights returns the weight of every position (the weight of its
// sequence), or nil for unit weights.
func seqWeights(c *sparse.Corpus, s []float64) []float64 {
	if s == nil {
		return nil
	}
	pw := make([]float64, c.Positions())
	for i := 0; i < c.Len(); i++ {
		start, T := c.Span(i)
		for t := start; t < start+T; t++ {
			pw[t] = s[i]
		}
	}
	return pw
}

// weightedObserved is ObservedCounts with sequence weights s (nil: unit).
func weightedObserved(m *chain.Model, c *sparse.Corpus, s []float64) []float64 {
	L := m.NumLabels()
	pw := seqWeights(c, s)
	obs := make([]float64, len(m.W))
	for p := 0; p < c.Positions(); p++ {
		y := int(c.Labels[p])
		cols, vals := c.Unary.Row(p)
		for k, a := range cols {
			v := 1.0
			if vals != nil {
				v = vals[k]
			}
			if pw != nil {
				v *= pw[p]
			}
			obs[int(a)*L+y] += v
		}
	}
	tailCounts(obs[m.Layout.StateLen():], m, c, s)
	return obs
}

// weigh adds a sequence's weighted loss sw nll to the shard and
// scales its node marginals by sw in place, before any expected count is
// accumulated from them (the edge and pair marginals are scaled where they
// are added).
func (sh *shardState) weigh(node []float64, sw, nll float64) {
	sh.loss += sw * nll
	floats.Scale(sw, node)
}

// sparseObserved returns the observed counts with a sparse state block,
// built attribute by attribute from a column-major copy of the data that
// lives only for this call (in position order, as ObservedCounts adds
// them) and the transition and pair blocks of
// ObservedCounts on a model with no unary attribute.
func sparseObserved(m *chain.Model, c *sparse.Corpus, attrCum []int32, s []float64) counts {
	if s == nil && c.Unary.Val == nil && m.NumLabels() <= maxByteLabels {
		return binaryObserved(m, c, attrCum) // the same counts, sooner
	}
	return columnObserved(m, c, attrCum, s)
}

// columnObserved is sparseObserved through the column-major copy.
func columnObserved(m *chain.Model, c *sparse.Corpus, attrCum []int32, s []float64) counts {
	L := m.NumLabels()
	pw := seqWeights(c, s)
	out := counts{stateLen: m.Layout.NumUnary * L}
	col := buildColumns(&c.Unary, attrCum)
	acc := make([]float64, L)
	seen := make([]bool, L)
	for a := 0; a < m.Layout.NumUnary; a++ {
		clear(acc)
		clear(seen)
		for q := col.ptr[a]; q < col.ptr[a+1]; q++ {
			y := c.Labels[col.pos[q]]
			v := 1.0
			if col.val != nil {
				v = col.val[q]
			}
			if pw != nil {
				v *= pw[col.pos[q]]
			}
			acc[y] += v
			seen[y] = true
		}
		for y := range acc {
			if seen[y] {
				out.stIdx = append(out.stIdx, int32(a*L+y))
				out.stVal = append(out.stVal, acc[y])
			}
		}
	}
	out.tail = make([]float64, len(m.W)-out.stateLen)
	tailCounts(out.tail, m, c, s)
	return out
}

// tailCounts adds the observed transition and pair counts into tail (the
// weight vector after the state block), each sequence's scaled by its
// weight s[i] (s nil: unit weights).
func tailCounts(tail []float64, m *chain.Model, c *sparse.Corpus, s []float64) {
	L := m.NumLabels()
	toff, poff := m.Layout.TransOffset()-m.Layout.StateLen(), m.Layout.PairOffset()-m.Layout.StateLen()
	for i := 0; i < c.Len(); i++ {
		start, T := c.Span(i)
		sw := 1.0
		if s != nil {
			sw = s[i]
		}
		for t := 1; t < T; t++ {
			p := start + t
			y, yp := int(c.Labels[p]), int(c.Labels[p-1])
			if m.Layout.Transitions {
				tail[toff+yp*L+y] += sw
			}
			if m.Layout.NumPair > 0 && c.Pair.Rows() > 0 {
				pc, pv := c.Pair.Row(p)
				for k, a := range pc {
					v := sw
					if pv != nil {
						v = sw * pv[k]
					}
					tail[poff+int(a)*L*L+yp*L+y] += v
				}
			}
		}
	}
}
