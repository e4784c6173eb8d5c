package chain

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sparsetag/sparsetag/internal/lattice"
)

// TestStateViewMatchesDense checks that a Tagger's sparse view of the
// state weights scores every sequence bit for bit as the dense weights do
// (binary and real-valued attributes, with pair features, sparse models of
// several densities), that Decode's marginals agree exactly, and that the
// view is used only below maxViewDensity.
func TestStateViewMatchesDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for _, real := range []bool{false, true} {
		for _, density := range []float64{0.01, 0.1, 0.2, 0.6} {
			const L = 5
			c := randomCorpus(rng, 30, 8, 40, 2, L, real)
			m, err := NewModel(labelNames(L), c.NumUnary, c.NumPair, true, nil)
			require.NoError(t, err)
			for j := range m.W {
				if j >= m.Layout.StateLen() || rng.Float64() < density {
					m.W[j] = rng.NormFloat64()
				}
			}
			tg := NewTagger(m)
			require.Equal(t, density <= maxViewDensity, tg.view != nil, "density %g", density)
			dense := &Tagger{m: m}
			dense.pool.New = tg.pool.New
			var a, b lattice.Scratch
			for i := range c.Len() {
				want := lattice.Score(&a, m.Layout, m.W, c, i)
				if tg.view != nil {
					got := tg.view.score(m, &b, c, i)
					require.Equal(t, float64Bits(want.Unary), float64Bits(got.Unary), "sequence %d", i)
				}
				var dw, dg Decoding
				opt := DecodeOptions{N: 2, Posterior: true}
				require.NoError(t, dense.Decode(&dw, Encoded{Corpus: c, Seq: i}, opt))
				require.NoError(t, tg.Decode(&dg, Encoded{Corpus: c, Seq: i}, opt))
				require.Equal(t, dw.Paths, dg.Paths)
				require.Equal(t, float64Bits(dw.Marginal), float64Bits(dg.Marginal))
				require.Equal(t, math.Float64bits(dw.LogZ), math.Float64bits(dg.LogZ))
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
