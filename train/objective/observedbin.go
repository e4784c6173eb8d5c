package objective

import (
	"slices"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/sparse"
)

// maxByteLabels is the most labels binaryObserved stores in a byte.
const maxByteLabels = 256

// binaryObserved is sparseObserved for a binary corpus with unit weights
// and at most maxByteLabels labels: every count is the number of entries
// of attribute a at positions of gold label y, an integer, so it is the
// sum of sparseObserved's ones whatever the order. The gold labels are
// dealt out by attribute (a byte each, in place of the column-major
// copy's positions, whose labels sparseObserved then reads), and each
// attribute's labels are counted: sorted in place when they are few (most
// attributes), in a table of L counts when they are many. A first pass
// counts the (attribute, label) pairs, so that the sparse counts are
// allocated at their size.
func binaryObserved(m *chain.Model, c *sparse.Corpus, attrCum []int32) counts {
	L, U := m.NumLabels(), m.Layout.NumUnary
	out := counts{stateLen: U * L}
	lab := labelsByAttribute(c, attrCum, U)
	table := make([]int32, L)
	pairs := 0
	for a := range U {
		pairs += countLabels(lab[attrCum[a]:attrCum[a+1]], table, nil)
	}
	out.stIdx = make([]int32, 0, pairs)
	out.stVal = make([]float64, 0, pairs)
	for a := range U {
		base := int32(a * L)
		countLabels(lab[attrCum[a]:attrCum[a+1]], table, func(y uint8, n int32) {
			out.stIdx = append(out.stIdx, base+int32(y))
			out.stVal = append(out.stVal, float64(n))
		})
	}
	out.tail = make([]float64, len(m.W)-out.stateLen)
	tailCounts(out.tail, m, c, nil)
	return out
}

// labelsByAttribute returns the gold label of every entry of c.Unary,
// grouped by attribute (attribute a's at lab[attrCum[a]:attrCum[a+1]], in
// position order).
func labelsByAttribute(c *sparse.Corpus, attrCum []int32, U int) []uint8 {
	x := &c.Unary
	lab := make([]uint8, len(x.Col))
	next := make([]int32, U)
	copy(next, attrCum[:U])
	for p := range x.Rows() {
		y := uint8(c.Labels[p])
		for _, a := range x.Col[x.RowPtr[p]:x.RowPtr[p+1]] {
			lab[next[a]] = y
			next[a]++
		}
	}
	return lab
}

// countLabels calls emit (when not nil) with every distinct label of ls
// and its number of occurrences, in increasing label order, and returns
// how many distinct labels ls has. A few labels (smallCount) are sorted in
// place; more are counted in table (all zero, left so).
func countLabels(ls []uint8, table []int32, emit func(y uint8, n int32)) int {
	distinct := 0
	if len(ls) <= smallCount {
		slices.Sort(ls)
		for i := 0; i < len(ls); {
			k := i + 1
			for k < len(ls) && ls[k] == ls[i] {
				k++
			}
			if emit != nil {
				emit(ls[i], int32(k-i))
			}
			distinct++
			i = k
		}
		return distinct
	}
	for _, y := range ls {
		table[y]++
	}
	for y, n := range table {
		if n != 0 {
			if emit != nil {
				emit(uint8(y), n)
			}
			distinct++
			table[y] = 0
		}
	}
	return distinct
}

// smallCount is the most occurrences of an attribute countLabels counts by
// sorting its labels.
const smallCount = 16
