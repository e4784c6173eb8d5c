package objective

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/internal/lattice"
	"github.com/sparsetag/sparsetag/sparse"
)

// TestScoreSparseMatchesReference holds the objective's label-list scorer
// (scoreSparse: only the active (attribute, label) weights, in reference
// order) against the reference scorer of one sequence,
// lattice.Score over the full-size weights: on random models (binary and
// real values, pair attributes, transitions) and random active sets of
// several densities (with every label active for some attributes, the
// spanadd path), every lattice is bit for bit the reference's.
func TestScoreSparseMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	for _, real := range []bool{false, true} {
		for _, density := range []float64{0.05, 0.3, 1} {
			const L = 4
			c := randomCorpus(rng, 25, 6, 30, 2, L, real)
			m, err := chain.NewModel(labelNames(L), c.NumUnary, c.NumPair, true, nil)
			require.NoError(t, err)
			var act []int32
			for j := range len(m.W) {
				full := j < m.Layout.StateLen() && (j/L)%7 == 0 // every label of some attributes
				if j >= m.Layout.StateLen() || full || rng.Float64() < density {
					act = append(act, int32(j))
				}
			}
			o := New(m, c, Settings{Threads: 1})
			o.SetActive(act, true)
			o.sparseLabels = true // the label-list scorer whatever the density
			o.refSpan = refSpans(o.elems, o.refSpan, o.live.Unary.Col, o.fs.refPtr)
			x := make([]float64, len(act))
			for k := range x {
				x[k] = rng.NormFloat64()
			}
			o.wfull = nil
			o.setWeights(x)
			w := make([]float64, len(m.W))
			sparse.Scatter(w, x, act)
			var a, b lattice.Scratch
			for i := range c.Len() {
				want := lattice.Score(&a, m.Layout, w, c, i)
				got := o.scoreSparse(&b, o.live, i)
				require.Equal(t, float64Bits(want.Unary), float64Bits(got.Unary), "real %v density %g sequence %d: unary", real, density, i)
				require.Equal(t, float64Bits(want.Trans), float64Bits(got.Trans), "sequence %d: transitions", i)
				require.Equal(t, float64Bits(want.TransAt), float64Bits(got.TransAt), "sequence %d: pair scores", i)
			}
		}
	}
}

func float64Bits(x []float64) []uint64 {
	out := make([]uint64, len(x))
	for i, v := range x {
		out[i] = math.Float64bits(v)
	}
	return out
}
