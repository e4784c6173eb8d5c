package objective

import (
	"slices"

	"github.com/sparsetag/sparsetag/internal/par"
	"github.com/sparsetag/sparsetag/sparse"
)

// The loops of an evaluation and of Residuals that are not a sum over the
// data: m's residuals (obs_j - e_j)/n, the attribute starts of a feature
// list, which attributes an evaluation counted, and the copies of their
// counts. Each writes every output element from its own inputs only (no
// reduction), so fixed blocks of elements run on any number of goroutines
// with the serial loop's bits; each block seeds what the serial loop
// carried from the elements before it (the observed counts' cursor, an
// attribute's first feature) by a binary search.

// defaultElemBlock is the number of elements of one block of those loops
// (elemLoops.block); lists shorter than two blocks, and every list at one
// thread, run serially.
const defaultElemBlock = 1 << 14

// elemLoops runs the element-wise loops: threads goroutines, blocks of
// block elements (the objective's elems; a test sets a small block).
type elemLoops struct{ threads, block int }

// run calls f(lo, hi) over [0, n) in blocks, on the goroutines, or once
// over [0, n) when that is not worth a hand-off.
func (e elemLoops) run(n int, f func(lo, hi int)) {
	b := e.block
	if e.threads <= 1 || n < 2*b {
		f(0, n)
		return
	}
	par.For(e.threads, (n+b-1)/b, func(k int) {
		f(k*b, min(n, (k+1)*b))
	})
}

// residuals is residualsRange over all of idx, on e's goroutines.
func (c *counts) residuals(e elemLoops, dst []float64, idx []int32, exp, eTail []float64, off int32, inv float64) {
	e.run(len(idx), func(lo, hi int) { c.residualsRange(dst, idx, exp, eTail, off, inv, lo, hi) })
}

// residualsRange writes m_j = (obs_j - e_j) * inv into dst[k] for the
// features j = idx[k], k in [lo, hi) (idx increasing), where obs_j are the
// counts c, e_j is exp[k] for a state feature (j < off, the state block's
// length) and eTail[j-off] otherwise; dst may be exp itself. inv is 1/n.
// The cursor starts where a walk from idx[0] would stand at idx[lo].
func (c *counts) residualsRange(dst []float64, idx []int32, exp, eTail []float64, off int32, inv float64, lo, hi int) {
	cur := c.cursor()
	if lo < hi && c.dense == nil {
		cur.k, _ = slices.BinarySearch(c.stIdx, idx[lo])
	}
	for k := lo; k < hi; k++ {
		j := idx[k]
		e := 0.0
		if j < off {
			e = exp[k]
		} else {
			e = eTail[j-off]
		}
		dst[k] = (cur.at(j) - e) * inv
	}
}

// attrStartsBlocks is AttrStarts on e's goroutines, over blocks of
// attributes.
func attrStartsBlocks(e elemLoops, ptr, ids []int32, U, L int) []int32 {
	if cap(ptr) < U+1 {
		ptr = make([]int32, U+1)
	}
	ptr = ptr[:U+1]
	e.run(U+1, func(lo, hi int) { attrStartsRange(ptr, ids, L, lo, hi) })
	return ptr
}

// attrStartsRange sets ptr[a] for the attributes a in [lo, hi): the number
// of ids below a*L.
func attrStartsRange(ptr, ids []int32, L, lo, hi int) {
	k, _ := slices.BinarySearch(ids, int32(lo*L))
	for a := lo; a < hi; a++ {
		for k < len(ids) && int(ids[k]) < a*L {
			k++
		}
		ptr[a] = int32(k)
	}
}

// countedRange is countedAttrs for the attributes [lo, hi): it sets
// counted[a] and reports whether any is set.
func countedRange(counted []bool, idx, act, ptr, refPtr []int32, lo, hi int) bool {
	found := false
	for a := lo; a < hi; a++ {
		l, h := ptr[a], ptr[a+1]
		counted[a] = h > l && slices.Equal(idx[l:h], act[refPtr[a]:refPtr[a+1]])
		found = found || counted[a]
	}
	return found
}

// copyCounted copies the evaluation's counts exp (by references refPtr)
// of the counted attributes into dst (by ranges ptr; Residuals), on e's
// goroutines.
func copyCounted(e elemLoops, dst, exp []float64, counted []bool, ptr, refPtr []int32) {
	e.run(len(counted), func(lo, hi int) {
		for a := lo; a < hi; a++ {
			if counted[a] {
				copy(dst[ptr[a]:ptr[a+1]], exp[refPtr[a]:refPtr[a+1]])
			}
		}
	})
}

// rowSplit holds, for a corpus whose unary rows are sorted by attribute
// and for the attribute ranges [parts[k], parts[k+1]), where each range
// starts in each row: off[(k-1)*rows+p] is the first entry of row p whose
// attribute is at least parts[k] (k = 1..len(parts)-2). The scatter's
// workers then read only their own entries of each row instead of every
// entry (scatterRange filters by range either way).
type rowSplit struct {
	off  []int32
	rows int
}

// newRowSplit returns the split of x's rows at parts, or nil when a row is
// not sorted (the workers then filter every entry) or there is one range;
// it reuses the storage of old (may be nil) when it is large enough.
func newRowSplit(old *rowSplit, x *sparse.Matrix, parts []int32) *rowSplit {
	n := len(parts) - 1
	if n < 2 {
		return nil
	}
	rows := x.Rows()
	s := &rowSplit{rows: rows}
	if old != nil && cap(old.off) >= (n-1)*rows {
		s.off = old.off[:(n-1)*rows]
	} else {
		s.off = make([]int32, (n-1)*rows)
	}
	for p := range rows {
		lo, hi := x.RowPtr[p], x.RowPtr[p+1]
		if !slices.IsSorted(x.Col[lo:hi]) {
			return nil
		}
		k := lo
		for b := 1; b < n; b++ {
			for k < hi && x.Col[k] < parts[b] {
				k++
			}
			s.off[(b-1)*rows+p] = k
		}
	}
	return s
}

// bounds returns the entries [from, to) of row p that range part may
// hold.
func (s *rowSplit) bounds(x *sparse.Matrix, part, p int) (from, to int32) {
	from, to = x.RowPtr[p], x.RowPtr[p+1]
	if s == nil {
		return from, to
	}
	if part > 0 {
		from = s.off[(part-1)*s.rows+p]
	}
	if part < len(s.off)/max(s.rows, 1) {
		to = s.off[part*s.rows+p]
	}
	return from, to
}

// splitCache is a rowSplit built on first use (nil when rows are unsorted).
type splitCache struct {
	s    *rowSplit
	done bool
}

// rowSplits are the row splits of the objective's corpus and of its
// scoring copy, each built on first use.
type rowSplits struct{ c, live splitCache }

// of returns the split of the rows of c (the corpus full, or its scoring
// copy live) at the scatter's attribute ranges parts.
func (rs *rowSplits) of(c, full, live *sparse.Corpus, parts []int32) *rowSplit {
	sc := &rs.c
	switch {
	case c == live && c != full:
		sc = &rs.live
	case c != full:
		return nil
	}
	if !sc.done {
		sc.s, sc.done = newRowSplit(sc.s, &c.Unary, parts), true
	}
	return sc.s
}
