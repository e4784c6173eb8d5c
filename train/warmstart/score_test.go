package warmstart

import (
	"math/rand/v2"
	"testing"

	"github.com/sparsetag/sparsetag/internal/lattice"
	"github.com/sparsetag/sparsetag/sparse"
)

// TestScoreMatchesReference holds the warm start's scorer (its compact
// layout, w = a v with a lazily applied scale, frozen features skipped)
// against the reference scorer of one sequence, lattice.Score over
// the full-size w: on random models with pair attributes and real values,
// after steps that moved the scale away from 1, every lattice agrees to
// rounding (the scale is applied after the sums, not to each weight).
func TestScoreMatchesReference(t *testing.T) {
	for _, real := range []bool{false, true} {
		m, c := sgdProblem(t, 17, 40, 12, 2, 3, real)
		frozen := sparse.NewBitset(len(m.W))
		for _, j := range []int{0, 1, 2, 5, m.Layout.TransIndex(0, 1), m.Layout.PairIndex(1, 2, 0)} {
			frozen.Set(j)
		}
		var free []int32
		for j := range len(m.W) {
			if !frozen.Has(j) {
				free = append(free, int32(j))
			}
		}
		s := newSGD(m, c, 0.02, 0.3, frozen, free)
		rng := rand.New(rand.NewPCG(5, 6))
		for k := range 80 {
			s.step(rng.IntN(c.Len()), -1, 0.5/(1+float64(k)/float64(c.Len())))
		}
		if s.a == 1 {
			t.Fatal("the scale is 1: the test does not cover the lazy scale")
		}
		p := s.point()
		w := make([]float64, len(m.W))
		sparse.Scatter(w, p.Val, p.Idx)
		var ref lattice.Scratch
		for i := range c.Len() {
			want := lattice.Score(&ref, m.Layout, w, c, i)
			s.collect(i, i)
			got := s.score(i, 0)
			approxEqual(t, "unary", want.Unary, got.Unary, 1e-13, 1e-12)
			approxEqual(t, "transitions", want.Trans, got.Trans, 1e-13, 1e-12)
			if want.TransAt != nil || got.TransAt != nil {
				approxEqual(t, "pair scores", want.TransAt, got.TransAt, 1e-13, 1e-12)
			}
			s.sl.clear(nil, s.pairs)
		}
	}
}
