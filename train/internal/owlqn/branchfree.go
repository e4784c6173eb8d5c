package owlqn

import "math"

// Branch-free versions of the sign-dependent steps, for the kernels. On
// real data the signs of x, g and d along the coordinates are close to
// random, so the branches of pseudoGradient, projectDirection and
// projectOrthant are mispredicted about half the time, which costs several
// times the memory traffic of the loop. These versions choose with integer
// selects on the IEEE bits (compiled to conditional moves) and give the
// same results, bit for bit, for every input without NaNs (tested against
// the readable versions in steps.go, which define the mathematics).

const signBit = 1 << 63

// pseudoGradientFast is pseudoGradient for l1 > 0. It writes
// pg_j = g_j - clamp(g_j, lo_j, hi_j), with [lo, hi] = [-l1, -l1] if
// x_j > 0, [l1, l1] if x_j < 0 and [-l1, l1] if x_j = 0: g_j + l1, g_j - l1,
// or the soft threshold of g_j at l1.
func pseudoGradientFast(pg, x, g []float64, l1 float64) {
	n := len(x)
	pg, g = pg[:n], g[:n]
	l1b := math.Float64bits(l1)
	for j, xj := range x {
		gj := g[j]
		lo, hi := l1b|signBit, l1b
		if xj < 0 {
			lo = l1b
		}
		if xj > 0 {
			hi = l1b | signBit
		}
		pg[j] = gj - min(max(gj, math.Float64frombits(lo)), math.Float64frombits(hi))
	}
}

// projectDirectionFast is projectDirection.
func projectDirectionFast(d, pg []float64) {
	d = d[:len(pg)]
	for j, pj := range pg {
		dj := d[j]
		b := math.Float64bits(dj)
		if dj*pj >= 0 {
			b = 0
		}
		d[j] = math.Float64frombits(b)
	}
}

// projectOrthantFast is projectOrthant. The orthant sign ξ_j is that of
// x_j if x_j != 0, else that of -pg_j, else 0 (see orthant).
func projectOrthantFast(dst, x, pg []float64) {
	n := len(x)
	dst, pg = dst[:n], pg[:n]
	one := math.Float64bits(1)
	for j, xj := range x {
		ref := math.Float64bits(pg[j]) ^ signBit
		if xb := math.Float64bits(xj); xb<<1 != 0 {
			ref = xb
		}
		xi := ref&signBit | one
		if ref<<1 == 0 {
			xi = 0
		}
		t := dst[j]
		b := math.Float64bits(t)
		if t*math.Float64frombits(xi) <= 0 {
			b = 0
		}
		dst[j] = math.Float64frombits(b)
	}
}
