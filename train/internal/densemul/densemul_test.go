package densemul

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestAddMul checks AddMul against a plain double loop (to rounding) and
// against addMulGo (bit for bit) for every width from 1 to 40 (each block
// size of the assembly and every remainder), several depths and strides.
func TestAddMul(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := 1; n <= 40; n++ {
		for _, K := range []int{1, 2, 7, 50} {
			stride := n + r.IntN(3)
			x := make([]float64, K)
			w := make([]float64, (K-1)*stride+n)
			dst := make([]float64, n)
			for i := range x {
				x[i] = r.NormFloat64()
			}
			for i := range w {
				w[i] = r.NormFloat64()
			}
			for i := range dst {
				dst[i] = r.NormFloat64()
			}
			want, twin := append([]float64(nil), dst...), append([]float64(nil), dst...)
			for j := range want {
				for k := range x {
					want[j] += x[k] * w[k*stride+j]
				}
			}
			addMulGo(twin, x, w, stride)
			AddMul(dst, x, w, stride)
			for j := range dst {
				if dst[j] != twin[j] {
					t.Fatalf("n %d K %d: dst[%d] = %v, Go twin %v", n, K, j, dst[j], twin[j])
				}
				if math.Abs(dst[j]-want[j]) > 1e-12*(1+math.Abs(want[j])) {
					t.Fatalf("n %d K %d: dst[%d] = %v, want %v", n, K, j, dst[j], want[j])
				}
			}
		}
	}
}

// TestAddMulShortW checks that a w too short panics instead of reading past it.
func TestAddMulShortW(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("no panic")
		}
	}()
	AddMul(make([]float64, 4), make([]float64, 3), make([]float64, 11), 4)
}

func BenchmarkAddMul(b *testing.B) {
	x, w, dst := make([]float64, 50), make([]float64, 50*22), make([]float64, 22)
	for i := range w {
		w[i] = float64(i%7) - 3
	}
	for i := range x {
		x[i] = float64(i%5) - 2
	}
	for b.Loop() {
		AddMul(dst, x, w, 22)
	}
}
