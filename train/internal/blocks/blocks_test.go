package blocks

import (
	"math"
	"math/rand/v2"
	"sync/atomic"
	"testing"
)

// TestForEveryIndexOnce: every index of [0, n) lies in exactly one block,
// with the fixed boundaries, whatever the number of goroutines.
func TestForEveryIndexOnce(t *testing.T) {
	for _, n := range []int{0, 1, Len - 1, Len, Len + 1, 3*Len + 5} {
		for threads := 1; threads <= 5; threads++ {
			seen := make([]atomic.Int32, n)
			For(threads, n, func(b, lo, hi int) {
				if lo != b*Len || hi != min(n, (b+1)*Len) || lo >= hi {
					t.Errorf("n %d: block %d is [%d, %d)", n, b, lo, hi)
				}
				for q := lo; q < hi; q++ {
					seen[q].Add(1)
				}
			})
			for q := range seen {
				if c := seen[q].Load(); c != 1 {
					t.Fatalf("n %d, threads %d: index %d seen %d times", n, threads, q, c)
				}
			}
		}
	}
}

// TestSumSerialBits: Run is the serial sum's bits on 1 to 5 goroutines,
// with zeros of both signs left in or out, large and tiny terms of both
// signs (rounding at every step), and an infinite or NaN term.
func TestSumSerialBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	n := 3*Len + 77
	for _, special := range []float64{0, math.Inf(1), math.NaN()} {
		terms := make([]float64, n)
		for q := range terms {
			switch r := rng.IntN(10); {
			case r < 6:
				terms[q] = 0
			case r == 6:
				terms[q] = math.Copysign(0, -1)
			case r == 7:
				terms[q] = rng.NormFloat64() * 1e12
			default:
				terms[q] = rng.NormFloat64() * 1e-3
			}
		}
		if special != 0 {
			terms[n/2] = special
		}
		want := 0.0
		for _, v := range terms {
			want += v
		}
		var s Sum
		for threads := 1; threads <= 5; threads++ {
			for _, dropZeros := range []bool{false, true} {
				got := s.Run(threads, n, func(b, lo, hi int, out []float64) []float64 {
					for q := lo; q < hi; q++ {
						if !dropZeros || terms[q] != 0 {
							out = append(out, terms[q])
						}
					}
					return out
				})
				if math.Float64bits(got) != math.Float64bits(want) {
					t.Fatalf("special %v, threads %d, drop zeros %v: %v, want %v", special, threads, dropZeros, got, want)
				}
			}
		}
	}
}
