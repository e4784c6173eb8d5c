package features

import (
	"fmt"

	"github.com/sparsetag/sparsetag/sparse"
)

// ObservedPairs returns the set of state features (a, y) such that unary
// attribute a occurs at some position labeled y in c. With lay the
// sparse.Layout of c's attributes and numLabels labels, it is a bitset of size
// lay.StateLen() holding bit lay.StateIndex(a, y); the state block comes first,
// so the bits are weight indices. An unlabeled corpus gives the empty set. It
// panics if a label lies outside [0, numLabels) or an attribute id outside
// [0, c.NumUnary): labels and ids come from the caller's own mappings, so that
// is a programming error (check with c.Validate first).
func ObservedPairs(c *sparse.Corpus, numLabels int) sparse.Bitset {
	if numLabels <= 0 {
		panic(fmt.Sprintf("features: ObservedPairs: numLabels = %d", numLabels))
	}
	lay := layoutOf(c, numLabels)
	b := sparse.NewBitset(lay.StateLen())
	if c.Labels == nil {
		return b
	}
	L := numLabels
	for p, y := range c.Labels {
		if y < 0 || int(y) >= L {
			panic(fmt.Sprintf("features: ObservedPairs: position %d has label %d, want [0,%d)", p, y, L))
		}
		cols, _ := c.Unary.Row(p)
		for _, a := range cols {
			if a < 0 || int(a) >= c.NumUnary {
				panic(fmt.Sprintf("features: ObservedPairs: position %d has attribute %d, want [0,%d)", p, a, c.NumUnary))
			}
			b.Set(lay.StateIndex(int(a), int(y)))
		}
	}
	return b
}

// ObservedTriples returns the set of observation-conditioned transition
// features (a, prev, cur) such that pair attribute a occurs at some position
// t > 0 of a sequence whose labels at t-1 and t are prev and cur. With lay as
// in ObservedPairs it is a bitset of size c.NumPair*L*L (L = numLabels)
// holding bit lay.PairIndex(a, prev, cur) - lay.PairOffset(): bit k is weight
// lay.PairOffset() + k. A corpus without pair rows or labels gives the empty
// set. It panics on out-of-range labels or ids, like ObservedPairs.
func ObservedTriples(c *sparse.Corpus, numLabels int) sparse.Bitset {
	if numLabels <= 0 {
		panic(fmt.Sprintf("features: ObservedTriples: numLabels = %d", numLabels))
	}
	L := numLabels
	lay := layoutOf(c, numLabels)
	po := lay.PairOffset()
	b := sparse.NewBitset(lay.Dim() - po)
	if c.Labels == nil || c.Pair.Rows() == 0 {
		return b
	}
	for i := 0; i < c.Len(); i++ {
		start, n := c.Span(i)
		for p := start + 1; p < start+n; p++ {
			prev, cur := c.Labels[p-1], c.Labels[p]
			if prev < 0 || int(prev) >= L || cur < 0 || int(cur) >= L {
				panic(fmt.Sprintf("features: ObservedTriples: labels %d, %d at positions %d, %d, want [0,%d)", prev, cur, p-1, p, L))
			}
			cols, _ := c.Pair.Row(p)
			for _, a := range cols {
				if a < 0 || int(a) >= c.NumPair {
					panic(fmt.Sprintf("features: ObservedTriples: position %d has pair attribute %d, want [0,%d)", p, a, c.NumPair))
				}
				b.Set(lay.PairIndex(int(a), int(prev), int(cur)) - po)
			}
		}
	}
	return b
}

// layoutOf returns the weight layout of the attributes of c with numLabels
// labels.
func layoutOf(c *sparse.Corpus, numLabels int) sparse.Layout {
	return sparse.Layout{NumUnary: c.NumUnary, L: numLabels, NumPair: c.NumPair, Transitions: true}
}
