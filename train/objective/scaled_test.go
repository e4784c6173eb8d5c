package objective

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/floats"
)

// TestScaledKernels: gatherScaled and scatterScaled against floats.AddScaled
// called once per span, bit for bit, over row lengths around the block of
// four, repeated spans and signed values.
func TestScaledKernels(t *testing.T) {
	rng := rand.New(rand.NewPCG(38, 50))
	for n := 0; n <= 11; n++ {
		const rows = 7
		src := make([]float64, rows*n)
		for k := range src {
			src[k] = rng.NormFloat64() * 1e3
		}
		for ns := 0; ns <= 9; ns++ {
			spans := make([]int32, 0, 2*ns)
			v := make([]float64, ns)
			for k := range ns {
				lo := int32(rng.IntN(rows) * n) // rows repeat: identical spans
				spans = append(spans, lo, lo+int32(n))
				v[k] = rng.NormFloat64() / 3
			}
			mu := make([]float64, n)
			for j := range mu {
				mu[j] = rng.Float64()
			}
			got, want := slices.Clone(mu), slices.Clone(mu)
			gatherScaled(got, src, spans, v)
			for k, c := range v {
				lo := int(spans[2*k])
				floats.AddScaled(want, c, src[lo:lo+n])
			}
			require.Equal(t, want, got, "gather n=%d spans=%d", n, ns)

			gotS, wantS := slices.Clone(src), slices.Clone(src)
			scatterScaled(gotS, mu, spans, v)
			for k, c := range v {
				lo := int(spans[2*k])
				floats.AddScaled(wantS[lo:lo+n], c, mu)
			}
			require.Equal(t, wantS, gotS, "scatter n=%d spans=%d", n, ns)
		}
	}
}
