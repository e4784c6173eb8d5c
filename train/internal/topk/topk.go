package topk

import (
	"cmp"
	"math"
	"slices"
)

// Smallest keeps the k smallest of a stream of (priority, position)
// entries in (priority, position) order (a max-heap), to find the smallest
// priorities of many in O(k) memory, and the positions of priority -Inf.
type Smallest struct {
	h    []entry
	k    int
	must []int32
}

type entry struct {
	p float64
	q int32
}

// above reports whether a comes after b in the (priority, position) order
// of entries (no NaN priority enters: pick maps it to +Inf).
func (a entry) above(b entry) bool { return a.p > b.p || (a.p == b.p && a.q > b.q) }

// reset empties the heap and sets its capacity k >= 1.
func (s *Smallest) reset(k int) { s.h, s.k, s.must = s.h[:0], k, s.must[:0] }

// add offers priority v at position q; positions come in increasing order,
// so v enters a full heap only if it is smaller than the largest kept.
func (s *Smallest) add(v float64, q int) {
	h := s.h
	if len(h) < s.k {
		h = append(h, entry{v, int32(q)})
		for i := len(h) - 1; i > 0; {
			p := (i - 1) / 2
			if !h[i].above(h[p]) {
				break
			}
			h[p], h[i] = h[i], h[p]
			i = p
		}
		s.h = h
		return
	}
	if !(v < h[0].p) {
		return
	}
	h[0] = entry{v, int32(q)}
	s.down()
}

// pop removes the largest entry (the root).
func (s *Smallest) pop() {
	last := len(s.h) - 1
	s.h[0] = s.h[last]
	s.h = s.h[:last]
	s.down()
}

// down restores the heap order from the root down.
func (s *Smallest) down() {
	h := s.h
	for i := 0; ; {
		c := 2*i + 1
		if c >= len(h) {
			break
		}
		if c+1 < len(h) && h[c+1].above(h[c]) {
			c++
		}
		if !h[c].above(h[i]) {
			break
		}
		h[c], h[i] = h[i], h[c]
		i = c
	}
}

// Pick calls keep(q), in increasing q, for the q in [0, n) of the smallest
// priorities prio(q): every q of priority -Inf (the must features), then
// the finite priorities in increasing order until the set has size(must)
// members (all n if fewer). Ties enter in increasing q only while the size
// allows, so a tie never crowds out a must feature and the set has exactly
// its size; a NaN priority counts as +Inf. prio is called once for each q,
// in increasing order; initial is the heap's capacity, an upper estimate of
// size(must) - must (memory: O(initial + must) entries, not O(n)).
func (s *Smallest) Pick(n, initial int, prio func(q int) float64, size func(must int) int, keep func(q int)) {
	s.reset(max(initial, 1))
	for q := range n {
		switch p := prio(q); {
		case math.IsInf(p, -1):
			s.must = append(s.must, int32(q))
		case math.IsNaN(p):
			s.add(math.Inf(1), q) // never before a number
		default:
			s.add(p, q)
		}
	}
	must := len(s.must)
	k := min(n, max(size(must), must))
	if k >= n {
		for q := range n {
			keep(q)
		}
		return
	}
	if k-must > s.k {
		panic("topk: Smallest.Pick: the set's size exceeds the heap's capacity")
	}
	// The k - must smallest entries (the heap less its largest), then in
	// position order, merged with the must positions (increasing).
	for len(s.h) > k-must {
		s.pop()
	}
	sel := s.h
	slices.SortFunc(sel, func(a, b entry) int { return cmp.Compare(a.q, b.q) })
	i := 0
	for _, q := range s.must {
		for ; i < len(sel) && sel[i].q < q; i++ {
			keep(int(sel[i].q))
		}
		keep(int(q))
	}
	for ; i < len(sel); i++ {
		keep(int(sel[i].q))
	}
}
