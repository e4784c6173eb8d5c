package blocks

import "github.com/sparsetag/sparsetag/internal/par"

// Len is the number of indices of one block.
const Len = 1 << 14

// Count returns the number of blocks of [0, n).
func Count(n int) int { return (n + Len - 1) / Len }

// For calls f(b, lo, hi) for every block b of [0, n), [lo, hi) = [b Len,
// min(n, (b+1) Len)), on up to threads goroutines (in block order on the
// calling goroutine when threads <= 1 or there is one block).
func For(threads, n int, f func(b, lo, hi int)) {
	par.For(threads, Count(n), func(b int) { f(b, b*Len, min(n, (b+1)*Len)) })
}

// Sum is the scratch of a sum of terms in index order (Run); the zero
// value is ready.
type Sum struct {
	parts [][]float64
}

// Run calls f(b, lo, hi, terms) for every block of [0, n) as For does; f
// appends block b's terms for the indices lo..hi-1, in index order, to
// terms (empty, with the storage of an earlier call) and returns it. A
// zero term may be left out. Run returns the sum of the terms in block
// order from +0, skipping zeros: the bits of a serial loop that adds every
// term of every index in order.
func (s *Sum) Run(threads, n int, f func(b, lo, hi int, terms []float64) []float64) float64 {
	sum := 0.0
	for _, p := range s.blocks(threads, n, f) {
		for _, t := range p {
			if t != 0 {
				sum += t
			}
		}
	}
	return sum
}

// Append calls f(lo, hi, terms) for every block of [0, n) as For does (f
// appends the block's non-zero terms in index order, as for Run) and
// returns dst with every block's terms appended in block order: the terms
// of several ranges collected for one sum at the end.
func (s *Sum) Append(dst []float64, threads, n int, f func(lo, hi int, terms []float64) []float64) []float64 {
	parts := s.blocks(threads, n, func(_, lo, hi int, terms []float64) []float64 { return f(lo, hi, terms) })
	for _, p := range parts {
		dst = append(dst, p...)
	}
	return dst
}

// blocks runs f over the blocks of [0, n) into the scratch's parts and
// returns them.
func (s *Sum) blocks(threads, n int, f func(b, lo, hi int, terms []float64) []float64) [][]float64 {
	nb := Count(n)
	if len(s.parts) < nb {
		s.parts = append(s.parts, make([][]float64, nb-len(s.parts))...)
	}
	parts := s.parts[:nb]
	For(threads, n, func(b, lo, hi int) { parts[b] = f(b, lo, hi, parts[b][:0]) })
	return parts
}
