package inference

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

func requireAsm(t *testing.T) {
	t.Helper()
	if !haveAsm {
		t.Skip("no assembly kernels on this machine")
	}
}

func sameBits(a, b []float64) int {
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) && !(math.IsNaN(a[i]) && math.IsNaN(b[i])) {
			return i
		}
	}
	return -1
}

// expArgs returns n arguments for the exp tests: mostly uniform in [-800,
// 0], with edge cases mixed in.
func expArgs(rng *rand.Rand, n int) []float64 {
	edge := []float64{0, math.Copysign(0, -1), negInf, math.NaN(), -745.1332191019411,
		-745.13321910194122, -745.2, -708.39641853226408, -708.4, -746, -1e300,
		-5e-324, -1e-300, -0.34657359027997264, -0.34657359027997270, -1, -2, -300}
	x := make([]float64, n)
	for i := range x {
		switch r := rng.IntN(10); {
		case r == 0:
			x[i] = edge[rng.IntN(len(edge))]
		case r < 3:
			x[i] = -rng.Float64() * 2
		default:
			x[i] = -rng.Float64() * 800
		}
	}
	return x
}

// TestExpShiftAsmBits: the assembly exp gives the bits of expKernel on
// every length (tails of 1 to 3 entries) and on the edge cases.
func TestExpShiftAsmBits(t *testing.T) {
	t.Parallel() // each call names its kernels: no package state to share
	requireAsm(t)
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := range 20000 {
		n := trial % 40
		x := expArgs(rng, n+8)[:n]
		max := 0.0
		if trial%3 == 0 {
			max = rng.NormFloat64() * 10
		}
		a := append([]float64(nil), x...)
		g := append([]float64(nil), x...)
		guard := append(a, 123)[:n] // a sentinel after the end must survive
		kernels{asm: true}.expShift(guard, max)
		kernels{asm: false}.expShift(g, max)
		if i := sameBits(guard, g); i >= 0 {
			t.Fatalf("trial %d: exp(%v - %v): asm %v, Go %v", trial, x[i], max, guard[i], g[i])
		}
		if n > 0 && cap(guard) > n && guard[:n+1][n] != 123 {
			t.Fatalf("trial %d: wrote past the end", trial)
		}
	}
}

// TestExpAccuracy: expKernel against math.Exp and against exp in 300-bit
// arithmetic. Relative error at most 4e-16 from math.Exp (itself up to 2
// ulp off on amd64) and at most 2.23e-16 (1 ulp) from the exact value where
// exp is normal (x ≥ -708.39); absolute error at most one subnormal step
// (2^-1074) below; exact values at 0, -0 and -Inf, NaN for NaN.
func TestExpAccuracy(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	arg := func(i int) float64 {
		switch i % 4 {
		case 0:
			return -rng.Float64() * 745.2
		case 1:
			return -rng.Float64() * 2
		case 2:
			return -rng.Float64() * 40
		}
		return -math.Exp(-rng.Float64() * 40)
	}
	worst, at := 0.0, 0.0
	for i := range 1000000 {
		x := arg(i)
		got, want := expKernel(x), math.Exp(x)
		if want >= 0x1p-1022 {
			if e := math.Abs(got-want) / want; e > worst {
				worst, at = e, x
			}
		} else if math.Abs(got-want) > 0x1p-1074 {
			t.Fatalf("exp(%v) = %v, math.Exp %v", x, got, want)
		}
	}
	t.Logf("max relative error from math.Exp %.3g at %v", worst, at)
	if worst > 4e-16 {
		t.Fatalf("max relative error from math.Exp %.3g at %v", worst, at)
	}
	worst = 0
	for i := range 20000 {
		x := arg(i)
		if x < -708.39 {
			continue
		}
		want := bigExp(x)
		if e := math.Abs(expKernel(x)-want) / want; e > worst {
			worst, at = e, x
		}
	}
	t.Logf("max relative error %.3g at %v", worst, at)
	if worst > 2.23e-16 {
		t.Fatalf("max relative error %.3g at %v", worst, at)
	}
	for _, c := range []struct{ x, want float64 }{{0, 1}, {math.Copysign(0, -1), 1}, {negInf, 0}, {-746, 0}, {-1e308, 0}} {
		if got := expKernel(c.x); got != c.want {
			t.Errorf("exp(%v) = %v, want %v", c.x, got, c.want)
		}
	}
	if !math.IsNaN(expKernel(math.NaN())) {
		t.Error("exp(NaN) is not NaN")
	}
}

// bigExp returns exp(x) rounded from 300-bit arithmetic: the Taylor series
// of x/2^12, squared 12 times.
func bigExp(x float64) float64 {
	const prec = 300
	y := new(big.Float).SetPrec(prec).SetFloat64(x)
	y.SetMantExp(y, -12)
	sum := new(big.Float).SetPrec(prec).SetInt64(1)
	term := new(big.Float).SetPrec(prec).SetInt64(1)
	for i := int64(1); i < 40; i++ {
		term.Mul(term, y)
		term.Quo(term, new(big.Float).SetPrec(prec).SetInt64(i))
		sum.Add(sum, term)
	}
	for range 12 {
		sum.Mul(sum, sum)
	}
	f, _ := sum.Float64()
	return f
}

// TestGemvTAsmBits and TestMaxPlusAsmBits: the assembly matrix kernels give
// the bits of the Go ones on random shapes, strides and values (with -Inf
// and ties for maxPlus).
func TestGemvTAsmBits(t *testing.T) {
	t.Parallel() // each call names its kernels: no package state to share
	requireAsm(t)
	rng := rand.New(rand.NewPCG(9, 10))
	for trial := range 3000 {
		n, w := rng.IntN(30), 4*(1+rng.IntN(10))
		xs, as := 1+rng.IntN(3), w-rng.IntN(4)
		x := make([]float64, n*xs+1)
		a := make([]float64, n*as+w)
		for i := range x {
			x[i] = rng.ExpFloat64()
		}
		for i := range a {
			a[i] = rng.ExpFloat64()
		}
		d1, d2 := make([]float64, w), make([]float64, w)
		kernels{asm: true}.gemvT(d1, x, a, n, xs, as, w)
		kernels{asm: false}.gemvT(d2, x, a, n, xs, as, w)
		if i := sameBits(d1, d2); i >= 0 {
			t.Fatalf("trial %d (n=%d w=%d): column %d: asm %v, Go %v", trial, n, w, i, d1[i], d2[i])
		}
	}
}

func TestMaxPlusAsmBits(t *testing.T) {
	t.Parallel() // each call names its kernels: no package state to share
	requireAsm(t)
	rng := rand.New(rand.NewPCG(11, 12))
	for trial := range 3000 {
		n, w := 1+rng.IntN(30), 4*(1+rng.IntN(10))
		as := w - rng.IntN(4)
		val := func() float64 {
			if rng.IntN(8) == 0 {
				return negInf
			}
			return float64(rng.IntN(5)) // many ties
		}
		prev := make([]float64, n)
		a := make([]float64, n*as+w)
		for i := range prev {
			prev[i] = val()
		}
		for i := range a {
			a[i] = val()
		}
		m1, m2 := make([]float64, w), make([]float64, w)
		g1, g2 := make([]float64, w), make([]float64, w)
		kernels{asm: true}.maxPlusT(m1, g1, prev, a, n, as, w)
		kernels{asm: false}.maxPlusT(m2, g2, prev, a, n, as, w)
		if i := sameBits(m1, m2); i >= 0 {
			t.Fatalf("trial %d: max %d: asm %v, Go %v", trial, i, m1[i], m2[i])
		}
		if i := sameBits(g1, g2); i >= 0 {
			t.Fatalf("trial %d: arg %d: asm %v, Go %v", trial, i, g1[i], g2[i])
		}
	}
}

// TestRowKernelsAsmBits: maxMin and normRow give the same bits on the
// assembly and in Go on every length (tails), with zeros of both signs,
// ±Inf and NaN for maxMin, and rows that trip the floor for normRow.
func TestRowKernelsAsmBits(t *testing.T) {
	t.Parallel() // each call names its kernels: no package state to share
	requireAsm(t)
	rng := rand.New(rand.NewPCG(15, 16))
	special := []float64{0, math.Copysign(0, -1), negInf, posInf, math.NaN(), 1e-300, -3}
	for trial := range 20000 {
		n := 1 + trial%37
		x := make([]float64, n)
		e := make([]float64, n)
		for i := range x {
			x[i] = rng.NormFloat64() * 10
			if rng.IntN(6) == 0 {
				x[i] = special[rng.IntN(len(special))]
			}
			e[i] = rng.Float64()
			if rng.IntN(8) == 0 {
				e[i] = []float64{0, 1e-200, 1}[rng.IntN(3)]
			}
		}
		var a, g [2]float64
		a[0], a[1] = kernels{asm: true}.maxMin(x)
		g[0], g[1] = kernels{asm: false}.maxMin(x)
		if i := sameBits(a[:], g[:]); i >= 0 {
			t.Fatalf("trial %d: maxMin(%v) = %v, Go %v", trial, x, a, g)
		}
		for i := range x {
			x[i] = math.Abs(x[i])
			if math.IsInf(x[i], 0) || math.IsNaN(x[i]) {
				x[i] = 1
			}
		}
		xa, xg := append([]float64(nil), x...), append([]float64(nil), x...)
		var la, lg bool
		a[0], a[1], la = kernels{asm: true}.normRow(xa, e, alphaFloor)
		g[0], g[1], lg = kernels{asm: false}.normRow(xg, e, alphaFloor)
		if i := sameBits(a[:], g[:]); i >= 0 || la != lg {
			t.Fatalf("trial %d: normRow s, inv, low = %v %v, Go %v %v", trial, a, la, g, lg)
		}
		if i := sameBits(xa, xg); i >= 0 {
			t.Fatalf("trial %d: normRow entry %d: %v, Go %v", trial, i, xa[i], xg[i])
		}
	}
}
