package screen

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestRangeBoundsThreads: the bounds computed with the state block's
// attributes dealt out to several goroutines (small blocks, so that every
// part owns several) are the serial bounds bit for bit, on binary and
// real-valued (negative) data, with and without sequence weights; and a
// NaN gives the serial error.
func TestRangeBoundsThreads(t *testing.T) {
	rng := rand.New(rand.NewPCG(40, 2))
	for trial := range 6 {
		real := trial%2 == 1
		b := newBrute(rng, 30, 1, 6, 3, 11, trial%3, real)
		c := b.corpus
		var weights []float64
		if trial >= 2 {
			weights = make([]float64, c.Len())
			for i := range weights {
				weights[i] = 0.3 + 3*rng.Float64()
			}
		}
		want, err := WeightedRangeBounds(nil, b.lay, c, weights)
		if err != nil {
			t.Fatal(err)
		}
		for threads := 1; threads <= 5; threads++ {
			for _, block := range []int{1, 2, 3, rangeOwnBlock} {
				got, err := weightedRangeBounds(nil, b.lay, c, weights, threads, block)
				if err != nil {
					t.Fatal(err)
				}
				for j := range want {
					if math.Float64bits(got[j]) != math.Float64bits(want[j]) {
						t.Fatalf("trial %d, threads %d, block %d: bound %d = %v, serial %v", trial, threads, block, j, got[j], want[j])
					}
				}
			}
		}
		if !real {
			continue
		}
		// Two NaNs, of attributes of different parts, the later one in
		// the rows first in its part: the error is still the serial one.
		saved := append([]float64(nil), c.Unary.Val...)
		k1 := len(c.Unary.Val) / 2
		k2 := k1
		for k2 < len(c.Unary.Col) && c.Unary.Col[k2]/2%3 == c.Unary.Col[k1]/2%3 {
			k2++
		}
		c.Unary.Val[k1], c.Unary.Val[k2] = math.NaN(), math.NaN()
		_, werr := WeightedRangeBounds(nil, b.lay, c, weights)
		_, gerr := weightedRangeBounds(nil, b.lay, c, weights, 3, 2)
		if werr == nil || gerr == nil || werr.Error() != gerr.Error() {
			t.Fatalf("trial %d: NaN: error %v, serial %v", trial, gerr, werr)
		}
		copy(c.Unary.Val, saved)
	}
}
