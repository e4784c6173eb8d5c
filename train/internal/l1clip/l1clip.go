package l1clip

import "math"

// Clip applies the penalty u to the weights v with their penalty records
// q (len(q) >= len(v)); see the package documentation.
func Clip(v, q []float64, u float64) { clip(v, q, u, haveAsm) }

func clip(v, q []float64, u float64, asm bool) {
	q = q[:len(v)]
	if len(v) == 0 {
		return
	}
	if asm {
		clipAVX2(&v[0], &q[0], len(v), u)
		return
	}
	clipGo(v, q, u)
}

// Descend sets v -= step g and then applies the penalty u (Clip);
// len(q) and len(g) are at least len(v).
func Descend(v, q, g []float64, step, u float64) { descend(v, q, g, step, u, haveAsm) }

func descend(v, q, g []float64, step, u float64, asm bool) {
	q, g = q[:len(v)], g[:len(v)]
	if len(v) == 0 {
		return
	}
	if asm {
		descendAVX2(&v[0], &q[0], &g[0], len(v), step, u)
		return
	}
	descendGo(v, q, g, step, u)
}

// clipGo is Clip's Go loop (len(q) = len(v)).
func clipGo(v, q []float64, u float64) {
	for k, z := range v {
		v[k], q[k] = clipOne(z, q[k], u)
	}
}

// descendGo is Descend's Go loop (len(q) = len(g) = len(v)).
func descendGo(v, q, g []float64, step, u float64) {
	for k, z := range v {
		v[k], q[k] = clipOne(z-float64(step*g[k]), q[k], u)
	}
}

// clipOne returns the weight z and its record q after the penalty u.
func clipOne(z, q, u float64) (float64, float64) {
	sg := math.Copysign(1, z)
	nz := sg * max(0, math.Abs(z)-(u+float64(sg*q)))
	return nz, q + (nz - z)
}
