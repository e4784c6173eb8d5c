package topk

import (
	"math"
	"math/rand/v2"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestPartsSamePick: Parts.Pick keeps the same positions in the same order
// as Smallest.Pick on 1 to 5 goroutines, with ties, must features, NaN and
// infinite priorities, sizes below and above the must count and the whole
// set; each part's priority function sees its positions once, in
// increasing order.
func TestPartsSamePick(t *testing.T) {
	rng := rand.New(rand.NewPCG(40, 5))
	var s Smallest
	var ps Parts
	for trial := range 600 {
		n := 1 + rng.IntN(200)
		p := make([]float64, n)
		for q := range p {
			switch r := rng.IntN(12); {
			case r == 0:
				p[q] = math.Inf(-1)
			case r == 1:
				p[q] = math.NaN()
			case r == 2:
				p[q] = math.Inf(1)
			default:
				p[q] = float64(rng.IntN(6)) // many ties
			}
		}
		want := rng.IntN(n + 3)
		size := func(must int) int { return want }
		initial := max(1, want+rng.IntN(5))
		var ref []int
		s.Pick(n, initial, func(q int) float64 { return p[q] }, size, func(q int) { ref = append(ref, q) })
		for threads := 1; threads <= 5; threads++ {
			var calls atomic.Int64
			var got []int
			ps.Pick(threads, n, initial, func(lo int) func(q int) float64 {
				next := lo
				return func(q int) float64 {
					if q != next {
						t.Errorf("trial %d: part from %d asked %d, want %d", trial, lo, q, next)
					}
					next++
					calls.Add(1)
					return p[q]
				}
			}, size, func(q int) { got = append(got, q) })
			require.Equal(t, ref, got, "trial %d, threads %d, n %d, size %d", trial, threads, n, want)
			require.Equal(t, int64(n), calls.Load())
		}
	}
}
