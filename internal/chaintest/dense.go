package chaintest

import (
	"math/rand/v2"

	"github.com/sparsetag/sparsetag/sparse"
)

// AddDenseBlock gives c a dense block (sparse.Dense) of D dimensions over
// a random table of rows words (about a quarter of its values zero): new
// attribute ids c.NumUnary ... c.NumUnary+D-2 in a shuffled order, the last
// dimension without attribute (-1), and a random word at every position,
// about one in five the zero vector (-1). c.NumUnary grows by D-1.
func AddDenseBlock(rng *rand.Rand, c *sparse.Corpus, D, rows int) {
	b := sparse.Dense{D: D, Table: make([]float64, rows*D), Attrs: make([]int32, D), Word: make([]int32, c.Positions())}
	for k := range b.Table {
		if rng.IntN(4) > 0 {
			b.Table[k] = rng.NormFloat64()
		}
	}
	perm := rng.Perm(D - 1)
	for d := range D - 1 {
		b.Attrs[d] = int32(c.NumUnary + perm[d])
	}
	b.Attrs[D-1] = -1
	for p := range b.Word {
		b.Word[p] = int32(rng.IntN(rows))
		if rng.IntN(5) == 0 {
			b.Word[p] = -1
		}
	}
	c.NumUnary += D - 1
	c.Dense = append(c.Dense, b)
}
