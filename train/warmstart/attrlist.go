package warmstart

import "github.com/sparsetag/sparsetag/sparse"

// The distinct live attributes of every sequence, listed once before the
// calibration instead of deduplicated at every step (a sequence is visited
// by every calibration trial whose sample holds it and by every epoch).
// The list of sequence i is what the dedup would give (dedup): the unary
// attributes of its rows that are not dead, each once, in the order of
// their first occurrence, then the same for its pair attributes (rows
// 1..T-1). Beside it, loc gives every entry of the sequence's unary rows
// (in row order) its attribute's position in the list, -1 when the
// attribute is dead: the slot the step reads, without the slot array.
// Knowing the next step's list before the current step runs also lets the
// step prefetch the next one's blocks (see step).
//
// Memory: 8 B per listed attribute (with its block start) and 4 B per
// unary row entry (at most three times the corpus's non-zeros) and 12 B
// per sequence; the lists stop at
// MaxListed entries in total, and the sequences after the cap are
// deduplicated per step as before (listed reports which).

// MaxListed caps the entries (listed attributes and row entries) the warm
// start lists in advance (4 B each: 128 MiB); see train.EstimateMemory.
const MaxListed = 1 << 25

// attrLists holds the lists of sequences 0..len(uPtr)-2: unary attributes
// uList[uPtr[i]:uPtr[i+1]], pair attributes pList[pPtr[i]:pPtr[i+1]], the
// row entries' positions loc[lPtr[i]:lPtr[i+1]].
type attrLists struct {
	uPtr, pPtr, lPtr []int32
	uList, pList     []int32
	loc              []int32
	// bList[k] is where the block of uList[k] starts in v when all its
	// labels are free (blockStart), -1 otherwise: read in order, instead of
	// the layout's tables at random.
	bList []int32
}

// listed reports whether sequence i has its lists.
func (l *attrLists) listed(i int) bool { return i+1 < len(l.uPtr) }

// unary returns the unary list of sequence i (listed).
func (l *attrLists) unary(i int) []int32 { return l.uList[l.uPtr[i]:l.uPtr[i+1]] }

// pair returns the pair list of sequence i (listed).
func (l *attrLists) pair(i int) []int32 { return l.pList[l.pPtr[i]:l.pPtr[i+1]] }

// blos returns the block starts of the unary list of sequence i (listed).
func (l *attrLists) blos(i int) []int32 { return l.bList[l.uPtr[i]:l.uPtr[i+1]] }

// locs returns the row entries' positions of sequence i (listed).
func (l *attrLists) locs(i int) []int32 { return l.loc[l.lPtr[i]:l.lPtr[i+1]] }

// newAttrLists builds the lists of s's corpus, up to limit entries in all
// (the sequences from the first that would pass it are not listed). It
// uses s's slots (the dedup) and leaves them clear.
func newAttrLists(s *sgd, limit int) attrLists {
	var l attrLists
	c := s.c
	if s.full != nil {
		c = s.full
	}
	n := c.Len()
	l.uPtr, l.pPtr, l.lPtr = make([]int32, 1, n+1), make([]int32, 1, n+1), make([]int32, 1, n+1)
	// Reserved at their bounds, so that no list is grown by copying (the
	// pages beyond what is written are never touched).
	nz := min(unaryEntries(c), int64(limit))
	l.uList, l.bList, l.loc = make([]int32, 0, nz), make([]int32, 0, nz), make([]int32, 0, nz)
	l.pList = make([]int32, 0, min(int64(c.Pair.NNZ()), int64(limit)))
	for i := range n {
		j := s.sequence(i)
		attrs, pairs := s.sl.dedup(s.c, j)
		start, T := s.c.Span(j)
		rows := int(s.c.Unary.RowPtr[start+T] - s.c.Unary.RowPtr[start])
		if 2*len(l.uList)+len(l.pList)+len(l.loc)+2*len(attrs)+len(pairs)+rows > limit {
			s.sl.clear(attrs, pairs)
			break
		}
		l.uList, l.pList = append(l.uList, attrs...), append(l.pList, pairs...)
		l.bList = appendBlockStarts(l.bList, s.sptr, s.vpos, s.m.NumLabels(), attrs)
		l.loc = s.sl.appendLocs(l.loc, s.c, j)
		l.uPtr, l.pPtr = append(l.uPtr, int32(len(l.uList))), append(l.pPtr, int32(len(l.pList)))
		l.lPtr = append(l.lPtr, int32(len(l.loc)))
		s.sl.clear(attrs, pairs)
	}
	return l
}

// sample returns the unary attributes (of numUnary) of the listed
// sequences of sample, increasing, each once; nil when one of them is not
// listed.
func (l *attrLists) sample(sample []int32, numUnary int) []int32 {
	set := sparse.NewBitset(numUnary)
	for _, i := range sample {
		if !l.listed(int(i)) {
			return nil
		}
		for _, a := range l.unary(int(i)) {
			set.Set(int(a))
		}
	}
	return set.AppendIndices(nil, numUnary)
}

// ListMemory bounds the memory of the lists on corpus c: 4 B per entry,
// at most three per non-zero of the unary rows (the attribute, its block
// start, the entry's slot) and one per non-zero of the pair rows (every
// position's entries of the dense blocks counted in), capped at
// MaxListed, and three pointers per sequence.
func ListMemory(c *sparse.Corpus) int64 {
	return 4*min(3*unaryEntries(c)+int64(c.Pair.NNZ()), MaxListed) + 12*int64(c.Len()+1)
}

// unaryEntries returns the entries of c's unary rows, every position's
// entries of the dense blocks counted in (a step expands them).
func unaryEntries(c *sparse.Corpus) int64 {
	nz := int64(c.Unary.NNZ())
	for k := range c.Dense {
		nz += int64(len(c.Dense[k].Word)) * int64(c.Dense[k].D)
	}
	return nz
}
