package warmstart

import (
	"github.com/sparsetag/sparsetag/sparse"
	"github.com/sparsetag/sparsetag/train/internal/blocksum"
	"github.com/sparsetag/sparsetag/train/internal/prefetch"
)

// slots deduplicates the attributes of a sequence's rows: slotU[a]
// (slotP[a]) is the position of unary (pair) attribute a in the list of
// the sequence being processed, -1 otherwise; dead attributes (every
// feature frozen) are never listed.
type slots struct {
	slotU, slotP []int32
	deadU, deadP []bool
	ubuf, pbuf   []int32 // the lists dedup returns
}

// newSlots returns the slots of numUnary and numPair attributes, none set.
func newSlots(deadU, deadP []bool) slots {
	sl := slots{slotU: make([]int32, len(deadU)), slotP: make([]int32, len(deadP)), deadU: deadU, deadP: deadP}
	for a := range sl.slotU {
		sl.slotU[a] = -1
	}
	for a := range sl.slotP {
		sl.slotP[a] = -1
	}
	return sl
}

// dedup returns the live unary and pair attributes of sequence j of c,
// each once, in the order of their first occurrence (the pair attributes
// of rows 1..T-1), and sets their slots; the lists are valid until the
// next call.
func (sl *slots) dedup(c *sparse.Corpus, j int) (attrs, pairs []int32) {
	start, T := c.Span(j)
	sl.ubuf, sl.pbuf = sl.ubuf[:0], sl.pbuf[:0]
	for p := start; p < start+T; p++ {
		cols, _ := c.Unary.Row(p)
		sl.ubuf = addAttrs(sl.ubuf, sl.slotU, sl.deadU, cols)
		if c.Pair.Rows() > 0 && p > start {
			pc, _ := c.Pair.Row(p)
			sl.pbuf = addAttrs(sl.pbuf, sl.slotP, sl.deadP, pc)
		}
	}
	return sl.ubuf, sl.pbuf
}

// addAttrs appends to list the attributes of cols that are not dead and
// not yet in it, recording their positions in slot.
func addAttrs(list, slot []int32, dead []bool, cols []int32) []int32 {
	for _, a := range cols {
		if slot[a] < 0 && !dead[a] {
			slot[a] = int32(len(list))
			list = append(list, a)
		}
	}
	return list
}

// appendLocs appends to loc the slot of every entry of the unary rows of
// sequence j of c (its slots set), -1 for a dead attribute.
func (sl *slots) appendLocs(loc []int32, c *sparse.Corpus, j int) []int32 {
	start, T := c.Span(j)
	for p := start; p < start+T; p++ {
		cols, _ := c.Unary.Row(p)
		for _, a := range cols {
			loc = append(loc, sl.slotU[a])
		}
	}
	return loc
}

// setPairs sets the slots of the pair attributes pairs.
func (sl *slots) setPairs(pairs []int32) {
	for k, a := range pairs {
		sl.slotP[a] = int32(k)
	}
}

// clear clears the slots of the unary attributes attrs and the pair
// attributes pairs.
func (sl *slots) clear(attrs, pairs []int32) {
	for _, a := range attrs {
		sl.slotU[a] = -1
	}
	for _, a := range pairs {
		sl.slotP[a] = -1
	}
}

// prefetcher prefetches blocks of n weights of v and q, from a list of
// block starts (a negative one skipped), a few at a time (package
// prefetch).
type prefetcher struct {
	v, q []float64
	n    int
	list []int32
	pos  int // list[pos:] are still to prefetch
}

// next prefetches the next k blocks of the list.
func (p *prefetcher) next(k int) {
	if p.pos >= len(p.list) {
		return
	}
	end := min(p.pos+k, len(p.list))
	prefetch.BlocksAt(p.v, p.q, p.list[p.pos:end], p.n)
	p.pos = end
}

// rowBlocks lists the blocks of one position for package blocksum: their
// offsets and their values.
type rowBlocks struct {
	offs []int32
	vals []float64
	loc  []int32 // addCountsSlots' slots of one row
}

// addCounts adds, for each entry k of one position (values vals, nil: 1)
// whose attribute has a gradient slot loc[k] (-1: none), its expected
// minus observed counts into the slot's block of g: the marginals marg
// scaled by the value, less the value at the observed outcome obs. The
// blocks are listed first and updated by package blocksum's kernel in one
// call (the same operations in the same order as floats.AddScaled on each
// block in turn).
func (rb *rowBlocks) addCounts(g []float64, loc []int32, vals, marg []float64, obs int) {
	n := int32(len(marg))
	offs, vv := rb.offs[:0], rb.vals[:0]
	for k, l := range loc {
		if l >= 0 {
			v := 1.0
			if vals != nil {
				v = vals[k]
			}
			offs, vv = append(offs, l*n), append(vv, v)
		}
	}
	blocksum.AddRow(g, marg, offs, vv, obs)
	rb.offs, rb.vals = offs, vv
}

// addCountsSlots is addCounts for the attributes cols, their slots looked
// up in slot.
func (rb *rowBlocks) addCountsSlots(g []float64, slot, cols []int32, vals, marg []float64, obs int) {
	loc := rb.loc[:0]
	for _, a := range cols {
		loc = append(loc, slot[a])
	}
	rb.loc = loc
	rb.addCounts(g, loc, vals, marg, obs)
}
