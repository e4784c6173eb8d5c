package features

import (
	"fmt"

	"github.com/sparsetag/sparsetag/sparse"
)

// ObservedPairs returns the set of state features (a, y) such that unary
// attribute a occurs at some position labeled y in c, as bits a*numLabels+y
// of a bitset of size c.NumUnary*numLabels. An unlabeled corpus gives the
// empty set. It panics if a label lies outside [0, numLabels) or an attribute
// id outside [0, c.NumUnary): labels and ids come from the caller's own
// mappings, so that is a programming error (check with c.Validate first).
func ObservedPairs(c *sparse.Corpus, numLabels int) sparse.Bitset {
	if numLabels <= 0 {
		panic(fmt.Sprintf("features: ObservedPairs: numLabels = %d", numLabels))
	}
	b := sparse.NewBitset(c.NumUnary * numLabels)
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
			b.Set(int(a)*L + int(y))
		}
	}
	return b
}

// ObservedTriples returns the set of observation-conditioned transition
// features (a, prev, cur) such that pair attribute a occurs at some position
// t > 0 of a sequence whose labels at t-1 and t are prev and cur, as bits
// a*L*L + prev*L + cur of a bitset of size c.NumPair*L*L (L = numLabels).
// A corpus without pair rows or labels gives the empty set. It panics on
// out-of-range labels or ids, like ObservedPairs.
func ObservedTriples(c *sparse.Corpus, numLabels int) sparse.Bitset {
	if numLabels <= 0 {
		panic(fmt.Sprintf("features: ObservedTriples: numLabels = %d", numLabels))
	}
	L := numLabels
	b := sparse.NewBitset(c.NumPair * L * L)
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
				b.Set(int(a)*L*L + int(prev)*L + int(cur))
			}
		}
	}
	return b
}
