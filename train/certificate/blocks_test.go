package certificate

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/sparsetag/sparsetag/train/internal/blocks"
	"github.com/stretchr/testify/require"
)

// TestSelectJBlocks: J over several blocks of u on 1 to 5 goroutines is
// the serial loop's (the support at every block's first positions, m_0
// and stored passes beyond l1, and the stored values' error bounds at
// the threshold).
func TestSelectJBlocks(t *testing.T) {
	const l1 = 0.5
	rng := rand.New(rand.NewPCG(40, 3))
	n := 3*blocks.Len + 11
	var r Pass
	r.M = make([]float64, n)
	hist := make([][]float32, 3)
	for k := range hist {
		hist[k] = make([]float32, n)
	}
	for q := range n {
		if q%blocks.Len < 2 || rng.IntN(50) == 0 {
			r.Supp, r.SuppW = append(r.Supp, int32(q)), append(r.SuppW, rng.NormFloat64())
		}
		r.M[q] = l1 * (rng.Float64()*2 - 1)
		if rng.IntN(40) == 0 {
			r.M[q] *= 3
		}
		for k := range hist {
			hist[k][q] = float32(l1 * (rng.Float64()*2 - 1))
			if rng.IntN(60) == 0 {
				hist[k][q] = float32(l1) // within its error bound of l1
			}
		}
	}
	// The serial loop.
	var want []int32
	s := 0
	for q := range r.M {
		in := s < len(r.Supp) && int(r.Supp[s]) == q
		if in {
			s++
		}
		in = in || math.Abs(r.M[q]) > l1
		for _, mk := range hist {
			v := float64(mk[q])
			in = in || math.Abs(v)+ErrorBound(v) > l1
		}
		if in {
			want = append(want, int32(q))
		}
	}
	require.Greater(t, len(want), len(r.Supp))
	for threads := 1; threads <= 5; threads++ {
		mx := Mixture{Threads: threads, l1: l1}
		mx.selectJ(r, hist)
		require.Equal(t, want, mx.idx, "threads %d", threads)
	}
}

// TestNarrowBlocks: narrow over several blocks on 1 to 5 goroutines stores
// the serial conversion, and refuses (dst untouched) a vector with one
// value beyond float32 in its last block.
func TestNarrowBlocks(t *testing.T) {
	rng := rand.New(rand.NewPCG(40, 4))
	n := 3*blocks.Len + 5
	m := make([]float64, n)
	for i := range m {
		m[i] = rng.NormFloat64() * math.Pow(10, rng.Float64()*60-30)
	}
	for threads := 1; threads <= 5; threads++ {
		got, ok := narrow(nil, m, threads)
		require.True(t, ok)
		for i, v := range m {
			require.Equal(t, float32(v), got[i], "threads %d, element %d", threads, i)
		}
		bad := append([]float64(nil), m...)
		bad[n-2] = 1e300
		dst := []float32{7}
		got, ok = narrow(dst, bad, threads)
		require.False(t, ok)
		require.Equal(t, []float32{7}, got)
	}
}
