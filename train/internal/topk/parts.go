package topk

import (
	"math"
	"slices"

	"github.com/sparsetag/sparsetag/internal/par"
)

// Parts is Pick on several goroutines: [0, n) is cut into contiguous
// parts, each scanned by one goroutine into a Smallest of its own (its must
// positions and its initial smallest entries, sorted), and the parts are
// merged. The k smallest entries of a total order are the k smallest of
// the union of each part's k smallest, so the selection is Pick's whatever
// the number of parts.
type Parts struct {
	part []Smallest
	sel  []entry
	pos  []int
}

// Pick calls keep(q) for the same q, in the same order, as Smallest.Pick
// with the same arguments, scanning on up to threads goroutines (at most
// maxParts parts; the memory is O(initial + must) per part). prioFrom(lo)
// returns the priority function of a part starting at lo, called once for
// each q of the part in increasing order (it may carry state from one q to
// the next, seeded for lo).
func (ps *Parts) Pick(threads, n, initial int, prioFrom func(lo int) func(q int) float64, size func(must int) int,
	keep func(q int)) {
	np := max(1, min(threads, maxParts, n))
	if len(ps.part) < np {
		ps.part = append(ps.part, make([]Smallest, np-len(ps.part))...)
	}
	parts := ps.part[:np]
	par.For(np, np, func(p int) {
		lo, hi := p*n/np, (p+1)*n/np
		s := &parts[p]
		s.scan(lo, hi, initial, prioFrom(lo))
		slices.SortFunc(s.h, entryOrder)
	})
	must := 0
	for p := range parts {
		must += len(parts[p].must)
	}
	k := min(n, max(size(must), must))
	if k >= n {
		for q := range n {
			keep(q)
		}
		return
	}
	if k-must > max(initial, 1) {
		panic("topk: Parts.Pick: the set's size exceeds the heap's capacity")
	}
	ps.sel = ps.merge(parts, k-must)
	slices.SortFunc(ps.sel, func(a, b entry) int { return int(a.q) - int(b.q) })
	i := 0
	for p := range parts {
		for _, q := range parts[p].must {
			for ; i < len(ps.sel) && ps.sel[i].q < q; i++ {
				keep(int(ps.sel[i].q))
			}
			keep(int(q))
		}
	}
	for ; i < len(ps.sel); i++ {
		keep(int(ps.sel[i].q))
	}
}

// maxParts bounds the parts of Parts.Pick (and so its memory).
const maxParts = 8

// scan offers prio(q) for q in [lo, hi) to a heap of capacity initial, as
// Smallest.Pick's loop does.
func (s *Smallest) scan(lo, hi, initial int, prio func(q int) float64) {
	s.reset(max(initial, 1))
	for q := lo; q < hi; q++ {
		switch p := prio(q); {
		case math.IsInf(p, -1):
			s.must = append(s.must, int32(q))
		case math.IsNaN(p):
			s.add(math.Inf(1), q) // never before a number
		default:
			s.add(p, q)
		}
	}
}

// merge returns the m smallest entries of the parts' heaps (each sorted by
// entryOrder), in that order.
func (ps *Parts) merge(parts []Smallest, m int) []entry {
	sel := ps.sel[:0]
	ps.pos = append(ps.pos[:0], make([]int, len(parts))...)
	for len(sel) < m {
		best := -1
		for p := range parts {
			if i := ps.pos[p]; i < len(parts[p].h) && (best < 0 || entryOrder(parts[p].h[i], parts[best].h[ps.pos[best]]) < 0) {
				best = p
			}
		}
		if best < 0 {
			break
		}
		sel = append(sel, parts[best].h[ps.pos[best]])
		ps.pos[best]++
	}
	return sel
}
