package l1clip

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// randomValue returns a weight or record: zeros of both signs, NaN,
// infinities, tiny and huge values, and ordinary ones.
func randomValue(rng *rand.Rand) float64 {
	switch rng.IntN(16) {
	case 0:
		return 0
	case 1:
		return math.Copysign(0, -1)
	case 2:
		return math.NaN()
	case 3:
		return math.Inf(1 - 2*rng.IntN(2))
	case 4:
		return (rng.Float64() - 0.5) * 1e-300
	case 5:
		return (rng.Float64() - 0.5) * 1e300
	default:
		return rng.NormFloat64()
	}
}

func randomSlice(rng *rand.Rand, n int) []float64 {
	x := make([]float64, n)
	for k := range x {
		x[k] = randomValue(rng)
	}
	return x
}

// sameBits reports whether a and b hold the same values bit for bit, any
// NaN matching any NaN.
func sameBits(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if math.IsNaN(a[k]) && math.IsNaN(b[k]) {
			continue
		}
		if math.Float64bits(a[k]) != math.Float64bits(b[k]) {
			return false
		}
	}
	return true
}

// applyPenalty is Tsuruoka et al.'s ApplyPenalty as written in their
// Figure 2, with branches: the brute-force reference of Clip on finite
// values.
func applyPenalty(z, q, u float64) (float64, float64) {
	nz := z
	switch {
	case z > 0:
		nz = math.Max(0, z-(u+q))
	case z < 0:
		nz = math.Min(0, z+(u-q))
	}
	return nz, q + (nz - z)
}

// TestAgainstGo checks the kernels against the Go loops, bit for bit, on
// every length up to 41 (the four-wide blocks and every tail), with
// special values, and that nothing beyond len(v) is written.
func TestAgainstGo(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n := 0; n <= 41; n++ {
		for rep := 0; rep < 20; rep++ {
			v, q, g := randomSlice(rng, n+3), randomSlice(rng, n+3), randomSlice(rng, n+3)
			u, step := math.Abs(rng.NormFloat64()), rng.Float64()
			for _, op := range []string{"clip", "descend"} {
				var out [2][2][]float64
				for m, asm := range []bool{false, true} {
					vv, qq := append([]float64(nil), v...), append([]float64(nil), q...)
					if op == "clip" {
						clip(vv[:n], qq, u, asm && haveAsm)
					} else {
						descend(vv[:n], qq, g, step, u, asm && haveAsm)
					}
					if !sameBits(vv[n:], v[n:]) || !sameBits(qq[n:], q[n:]) {
						t.Fatalf("%s n=%d asm %v: wrote past len(v)", op, n, asm)
					}
					out[m] = [2][]float64{vv, qq}
				}
				if !sameBits(out[0][0], out[1][0]) || !sameBits(out[0][1], out[1][1]) {
					t.Fatalf("%s n=%d: kernel %v %v, Go %v %v (v %v q %v u %v)", op, n, out[1][0], out[1][1], out[0][0], out[0][1], v, q, u)
				}
			}
		}
	}
	if !haveAsm {
		t.Log("no AVX2: only the Go loops ran")
	}
}

// TestAgainstBranches checks both the kernels and the Go loops against the
// branchy ApplyPenalty (and Descend against the step followed by it) on
// finite records with |q| <= u, the invariant of the warm start.
func TestAgainstBranches(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, asm := range []bool{false, true} {
		for rep := 0; rep < 200; rep++ {
			n := rng.IntN(30)
			u := math.Abs(rng.NormFloat64())
			v, q, g := make([]float64, n), make([]float64, n), make([]float64, n)
			for k := range v {
				v[k], g[k] = rng.NormFloat64(), rng.NormFloat64()
				q[k] = u * (2*rng.Float64() - 1)
				if rng.IntN(5) == 0 {
					v[k] = 0
				}
			}
			step := rng.Float64()
			name := fmt.Sprintf("asm %v rep %d", asm, rep)
			cv, cq := append([]float64(nil), v...), append([]float64(nil), q...)
			clip(cv, cq, u, asm && haveAsm)
			dv, dq := append([]float64(nil), v...), append([]float64(nil), q...)
			descend(dv, dq, g, step, u, asm && haveAsm)
			for k := range v {
				wv, wq := applyPenalty(v[k], q[k], u)
				if cv[k] != wv || cq[k] != wq {
					t.Fatalf("%s clip %d: (%v, %v), want (%v, %v)", name, k, cv[k], cq[k], wv, wq)
				}
				wv, wq = applyPenalty(v[k]-step*g[k], q[k], u)
				if dv[k] != wv || dq[k] != wq {
					t.Fatalf("%s descend %d: (%v, %v), want (%v, %v)", name, k, dv[k], dq[k], wv, wq)
				}
			}
		}
	}
}

// TestZeroStaysZero: a zero weight keeps its sign and its record (|q| <=
// u), the property the lazy catch-up relies on.
func TestZeroStaysZero(t *testing.T) {
	for _, asm := range []bool{false, true} {
		for _, z := range []float64{0, math.Copysign(0, -1)} {
			v, q := []float64{z, z, z, z, z}, []float64{0.5, -0.5, 0.25, 0, -0.125}
			want := append([]float64(nil), q...)
			clip(v, q, 0.5, asm && haveAsm)
			for k := range v {
				if math.Float64bits(v[k]) != math.Float64bits(z) || q[k] != want[k] {
					t.Fatalf("asm %v z %v: v %v q %v", asm, z, v, q)
				}
			}
		}
	}
}

func BenchmarkClip(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 6))
	v, q := make([]float64, 22), make([]float64, 22)
	for k := range v {
		v[k], q[k] = rng.NormFloat64(), 0.01*rng.NormFloat64()
	}
	for _, asm := range []bool{false, true} {
		b.Run(fmt.Sprintf("asm=%v", asm && haveAsm), func(b *testing.B) {
			for range b.N {
				clip(v, q, 0, asm && haveAsm)
			}
		})
	}
}
