package inference

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestExpInPlaceZeros: rows with many exact zeros and rows with few give,
// bit for bit, expKernel(v - max) of every entry (within 4e-16 of math.Exp),
// the same max and range, with -0, -Inf and all-zero rows included, on the
// assembly and on the Go kernels.
func TestExpInPlaceZeros(t *testing.T) {
	t.Parallel() // each call names its kernels: no package state to share
	for _, asm := range []bool{false, true} {
		if asm && !haveAsm {
			continue
		}
		testExpInPlaceZeros(t, kernels{asm: asm})
	}
}

func testExpInPlaceZeros(t *testing.T, k kernels) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 2000 {
		n := 1 + rng.IntN(30)
		x := make([]float64, n)
		pZero := rng.Float64()
		for i := range x {
			switch r := rng.Float64(); {
			case r < pZero:
				x[i] = 0
				if rng.IntN(2) == 0 {
					x[i] = math.Copysign(0, -1)
				}
			case r < pZero+0.05:
				x[i] = negInf
			default:
				x[i] = rng.NormFloat64() * 20
			}
		}
		want := make([]float64, n)
		max, min := negInf, math.Inf(1)
		for _, v := range x {
			max = math.Max(max, v)
			if v > negInf {
				min = math.Min(min, v)
			}
		}
		for i, v := range x {
			want[i] = expKernel(v - max)
			if e := math.Exp(v - max); math.Abs(want[i]-e) > 4e-16*e {
				t.Fatalf("trial %d: exp(%v) = %v, math.Exp %v", trial, v-max, want[i], e)
			}
		}
		m, r, ok := k.expInPlace(x)
		if max == negInf {
			if ok {
				t.Fatalf("trial %d: all -Inf accepted", trial)
			}
			continue
		}
		if !ok || m != max || r != max-min {
			t.Fatalf("trial %d: max %v range %v ok %v, want %v %v", trial, m, r, ok, max, max-min)
		}
		for i := range x {
			if math.Float64bits(x[i]) != math.Float64bits(want[i]) {
				t.Fatalf("trial %d: entry %d = %v, want %v", trial, i, x[i], want[i])
			}
		}
	}
}
