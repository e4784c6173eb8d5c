package screen

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/sparsetag/sparsetag/internal/numtest"
)

// ballInstance is one instance of min <b,a> s.t. ||a - a0|| <= r, <p,a> <= c.
type ballInstance struct {
	b, a0, p []float64
	r, c, d  float64 // d is the intended (<p,a0> - c)/(r||p||)
	kind     string
}

func norm(v []float64) float64 { return math.Sqrt(dot(v, v)) }

// randomBallInstance draws an instance, cycling through the degenerate kinds
// listed in the note's section 8 (b = 0, b parallel or anti-parallel to p,
// nearly parallel, d = +-1, d slightly above 1, r = 0).
func randomBallInstance(rng *rand.Rand, k int) ballInstance {
	dim := 1 + rng.IntN(8)
	vec := func(s float64) []float64 {
		v := make([]float64, dim)
		for i := range v {
			v[i] = s * rng.NormFloat64()
		}
		return v
	}
	in := ballInstance{a0: vec(math.Exp(rng.NormFloat64())), p: vec(math.Exp(rng.NormFloat64())), b: vec(math.Exp(rng.NormFloat64()))}
	in.r = math.Exp(rng.NormFloat64())
	in.d = 2.4*rng.Float64() - 1.2
	kinds := []string{"random", "b=0", "parallel", "anti-parallel", "nearly parallel", "d=1", "d=-1", "d=1+1e-9", "d=1-1e-9", "r=0", "b perp p"}
	in.kind = kinds[k%len(kinds)]
	switch in.kind {
	case "b=0":
		clear(in.b)
	case "parallel", "anti-parallel", "nearly parallel":
		s := math.Exp(rng.NormFloat64())
		if in.kind == "anti-parallel" {
			s = -s
		}
		for i := range in.b {
			in.b[i] = s * in.p[i]
			if in.kind == "nearly parallel" {
				in.b[i] *= 1 + 1e-7*rng.NormFloat64()
			}
		}
	case "d=1":
		in.d = 1
	case "d=-1":
		in.d = -1
	case "d=1+1e-9":
		in.d = 1 + 1e-9
	case "d=1-1e-9":
		in.d = 1 - 1e-9
	case "r=0":
		in.r, in.d = 0, math.NaN()
		if rng.IntN(2) == 0 {
			in.c = dot(in.p, in.a0) + rng.Float64()
		} else {
			in.c = dot(in.p, in.a0) - 0.1 - rng.Float64()
		}
		return in
	case "b perp p":
		s := dot(in.b, in.p) / dot(in.p, in.p)
		for i := range in.b {
			in.b[i] -= s * in.p[i]
		}
	}
	if rng.IntN(4) == 0 && in.kind == "random" {
		in.d = []float64{-1, 1, 0, 0.5, -0.5}[rng.IntN(5)]
	}
	in.c = dot(in.p, in.a0) - in.d*in.r*norm(in.p)
	return in
}

// dualValue maximises the 1-D Lagrangian dual q(lambda) = <b + lambda p, a0> -
// r||b + lambda p|| - lambda c over lambda >= 0 by golden-section search (q is
// concave), an independent route to T* (strong duality when d < 1).
func dualValue(in ballInstance) float64 {
	tmp := make([]float64, len(in.b))
	q := func(l float64) float64 {
		for i := range tmp {
			tmp[i] = in.b[i] + l*in.p[i]
		}
		return dot(tmp, in.a0) - in.r*norm(tmp) - l*in.c
	}
	hi := 1.0
	for hi < 1e13 && q(2*hi) > q(hi) {
		hi *= 2
	}
	hi *= 2
	lo := 0.0
	g := (math.Sqrt(5) - 1) / 2
	x1, x2 := hi-g*(hi-lo), lo+g*(hi-lo)
	f1, f2 := q(x1), q(x2)
	for it := 0; it < 400 && hi-lo > 1e-15*hi; it++ {
		if f1 < f2 {
			lo, x1, f1 = x1, x2, f2
			x2 = lo + g*(hi-lo)
			f2 = q(x2)
		} else {
			hi, x2, f2 = x2, x1, f1
			x1 = hi - g*(hi-lo)
			f1 = q(x1)
		}
	}
	return max(q(0), q(lo), q(hi), f1, f2)
}

// minimiser returns the explicit minimiser of the note's section 6.
func minimiser(in ballInstance) []float64 {
	np := norm(in.p)
	nb := norm(in.b)
	a := append([]float64(nil), in.a0...)
	if in.r == 0 {
		return a
	}
	d := (dot(in.p, in.a0) - in.c) / (in.r * np)
	if nb == 0 { // any feasible point; a0 - r max(d,0) phat is one
		for i := range a {
			a[i] -= in.r * max(d, 0) * in.p[i] / np
		}
		return a
	}
	if d <= -1 || dot(in.p, in.b) >= d*np*nb {
		for i := range a {
			a[i] -= in.r * in.b[i] / nb
		}
		return a
	}
	bp := dot(in.b, in.p) / np
	perp := make([]float64, len(in.b))
	for i := range perp {
		perp[i] = in.b[i] - bp*in.p[i]/np
	}
	np2 := norm(perp)
	s := math.Sqrt(max(1-d*d, 0))
	for i := range a {
		a[i] -= in.r * d * in.p[i] / np
		if np2 > 1e-12*nb {
			a[i] -= in.r * s * perp[i] / np2
		}
	}
	return a
}

// TestMinLinearBallHalfspace certifies the closed form on random instances,
// degenerate ones included: the infeasibility calls are right, the explicit
// minimiser is feasible and attains the value, the 1-D dual (bisection) agrees,
// no random feasible point goes below it, and the inner-product version agrees
// with the vector version.
func TestMinLinearBallHalfspace(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 1))
	for k := 0; k < 6000; k++ {
		in := randomBallInstance(rng, k)
		got := minLinearBallHalfspace(in.b, in.a0, in.p, in.r, in.c)
		nb, np := norm(in.b), norm(in.p)
		ba0 := dot(in.b, in.a0)
		dots := minLinearBallHalfspaceDots(ba0, dot(in.b, in.b), dot(in.p, in.b), dot(in.p, in.a0), dot(in.p, in.p), in.r, in.c)
		infeasible := in.d > 1+1e-12 || (in.r == 0 && dot(in.p, in.a0) > in.c)
		if infeasible {
			if !math.IsInf(got, 1) || !math.IsInf(dots, 1) {
				t.Fatalf("%d (%s): infeasible instance gave %v, %v", k, in.kind, got, dots)
			}
			continue
		}
		if math.IsInf(got, 0) || math.IsNaN(got) || math.IsInf(dots, 0) || math.IsNaN(dots) {
			t.Fatalf("%d (%s): feasible instance (d = %v) gave %v, %v", k, in.kind, in.d, got, dots)
		}
		scale := math.Abs(ba0) + in.r*nb + 1e-300
		if in.r > 0 && np > 0 {
			// Outward rounding of d near d = 1 (see minLinearBallHalfspaceDots).
			delta := 8 * eps * (1 + (math.Abs(dot(in.p, in.a0))+math.Abs(in.c))/(in.r*np))
			scale += in.r * nb * math.Sqrt(4*delta) / 2e-7
		}
		// The explicit minimiser is feasible and attains the value.
		a := minimiser(in)
		da := make([]float64, len(a))
		for i := range a {
			da[i] = a[i] - in.a0[i]
		}
		if norm(da) > in.r*(1+1e-12) || dot(in.p, a) > in.c+1e-9*(math.Abs(in.c)+in.r*np+math.Abs(dot(in.p, in.a0))) {
			t.Fatalf("%d (%s): minimiser infeasible: ||a-a0|| = %v > r = %v or <p,a> = %v > c = %v", k, in.kind, norm(da), in.r, dot(in.p, a), in.c)
		}
		ta := dot(in.b, a)
		if got > ta+1e-12*scale || got < ta-2e-7*scale {
			t.Fatalf("%d (%s, d = %v): value %v, minimiser attains %v", k, in.kind, in.d, got, ta)
		}
		// Strong duality (the dual sup is approached as lambda grows when d = 1).
		if in.d < 1-1e-12 {
			dv := dualValue(in)
			if math.Abs(dv-got) > 2e-7*scale+1e-9*math.Abs(in.c)*nb/np {
				t.Fatalf("%d (%s, d = %v): closed form %v, dual bisection %v", k, in.kind, in.d, got, dv)
			}
		}
		// The inner-product form is a (slightly looser) lower bound.
		if dots > got+1e-12*scale || dots < got-2e-7*scale {
			t.Fatalf("%d (%s): Dots %v, vector form %v", k, in.kind, dots, got)
		}
		// Random feasible points never go below it.
		for s := 0; s < 30; s++ {
			u := make([]float64, len(in.a0))
			for i := range u {
				u[i] = rng.NormFloat64()
			}
			rad := in.r
			if s%3 == 0 {
				rad *= rng.Float64()
			}
			nu := norm(u)
			for i := range u {
				u[i] = in.a0[i] + rad*u[i]/nu
			}
			if dot(in.p, u) > in.c {
				continue
			}
			if v := dot(in.b, u); v < got-1e-12*scale {
				t.Fatalf("%d (%s): feasible point with <b,a> = %v < %v", k, in.kind, v, got)
			}
		}
		// The maximum is the minimum of -b, negated.
		nbv := make([]float64, len(in.b))
		for i := range nbv {
			nbv[i] = -in.b[i]
		}
		if mx := maxLinearBallHalfspace(in.b, in.a0, in.p, in.r, in.c); mx != -minLinearBallHalfspace(nbv, in.a0, in.p, in.r, in.c) {
			t.Fatalf("%d: max %v is not -min(-b)", k, mx)
		}
	}
}

// TestMinLinearBallHalfspaceSpecial checks the special cases of the note whose
// values are known in closed form: b = -k p gives -c||b||/||p||, d = 1 gives
// the single feasible point a0 - r phat, and an inactive half-space gives the
// ball minimum <b,a0> - r||b||.
func TestMinLinearBallHalfspaceSpecial(t *testing.T) {
	p := []float64{3, 4} // ||p|| = 5
	a0 := []float64{1, 1}
	b := []float64{-6, -8} // -2 p, ||b|| = 10
	// d = 0.5: c = <p,a0> - 0.5*r*5 with r = 2: c = 7 - 5 = 2; T* = -c||b||/||p|| = -4.
	numtest.RequireClose(t, -4, minLinearBallHalfspace(b, a0, p, 2, 2), 1e-12, 0, "anti-parallel")
	// d = 1 with r = 2: c = 7 - 10 = -3; the feasible point is a0 - 2 (0.6, 0.8);
	// <b,.> = -14 + 2*(3.6 + 6.4) = 6.
	numtest.RequireClose(t, 6, minLinearBallHalfspace(b, a0, p, 2, -3), 1e-6, 0, "d = 1")
	// Inactive: c = 100: T* = <b,a0> - r||b|| = -14 - 20.
	numtest.RequireClose(t, -34, minLinearBallHalfspace(b, a0, p, 2, 100), 1e-12, 0, "inactive")
	numtest.RequireClose(t, 0, minLinearBallHalfspace([]float64{0, 0}, a0, p, 2, 2), 0, 0, "b = 0")
	if v := minLinearBallHalfspace(b, a0, p, 2, -3.1); !math.IsInf(v, 1) {
		t.Errorf("d > 1: %v, want +Inf", v)
	}
}

// minLinearBallHalfspace is the vector form of minLinearBallHalfspaceDots
// (same problem, same closed form), the reference the tests compare it with:
// bperp is computed from the vectors, free of the cancellation in ||b||^2 -
// bp^2. It panics if the lengths differ.
func minLinearBallHalfspace(b, a0, p []float64, r, c float64) float64 {
	if len(b) != len(a0) || len(p) != len(a0) {
		panic("screen: minLinearBallHalfspace: b, a0 and p must have the same length")
	}
	var ba0, bb, pb, pa0, pp float64
	for i, bi := range b {
		ba0 += bi * a0[i]
		bb += bi * bi
		pb += p[i] * bi
		pa0 += p[i] * a0[i]
		pp += p[i] * p[i]
	}
	if !(r > 0) || pp == 0 || bb == 0 {
		return minLinearBallHalfspaceDots(ba0, bb, pb, pa0, pp, r, c)
	}
	// bperp from the vectors, free of the cancellation in ||b||^2 - bp^2.
	np := math.Sqrt(pp)
	bp := pb / np
	s := pb / pp
	bperp2 := 0.0
	for i, bi := range b {
		e := bi - s*p[i]
		bperp2 += e * e
	}
	return minLinearCore(ba0, math.Sqrt(bb), bp, math.Sqrt(bperp2), pa0, np, r, c)
}

// maxLinearBallHalfspace returns max <b,a> subject to ||a - a0|| <= r, <p,a>
// <= c, as -minLinearBallHalfspace(-b, a0, p, r, c); -Inf if the set is
// empty. It allocates a copy of b.
func maxLinearBallHalfspace(b, a0, p []float64, r, c float64) float64 {
	nb := make([]float64, len(b))
	for i, v := range b {
		nb[i] = -v
	}
	return -minLinearBallHalfspace(nb, a0, p, r, c)
}
