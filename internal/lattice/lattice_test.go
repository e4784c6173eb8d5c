package lattice

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/sparsetag/sparsetag/internal/chaintest"
	"github.com/sparsetag/sparsetag/sparse"
)

// TestScoreDenseBlocks checks that Score reads dense blocks: the scores of
// a corpus with blocks equal those of its expansion into sparse rows (the
// same products; the blocks' added after the row's, so to rounding).
func TestScoreDenseBlocks(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	c := chaintest.RandomCorpus(rng, 20, 5, 4, 1, 3, true)
	chaintest.AddDenseBlock(rng, c, 4, 5)
	x := c.Expanded()
	L := 3
	lay := sparse.Layout{NumUnary: c.NumUnary, L: L, NumPair: 1, Transitions: true}
	w := make([]float64, lay.Dim())
	for j := range w {
		w[j] = rng.NormFloat64()
	}
	var s1, s2 Scratch
	for i := range c.Len() {
		a := Score(&s1, lay, w, c, i).Unary
		b := Score(&s2, lay, w, x, i).Unary
		for k := range a {
			if math.Abs(a[k]-b[k]) > 1e-12*(1+math.Abs(b[k])) {
				t.Fatalf("sequence %d: unary[%d] = %v with blocks, %v expanded", i, k, a[k], b[k])
			}
		}
	}
}
