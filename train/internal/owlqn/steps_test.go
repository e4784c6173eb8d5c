package owlqn

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestPseudoGradient(t *testing.T) {
	// Expected values from the case analysis of [3, p. 35] with l1 = 1.
	tests := []struct {
		name     string
		x, g     float64
		l1, want float64
	}{
		{"positive x adds l1", 2, 0.5, 1, 1.5},
		{"negative x subtracts l1", -1, 0.5, 1, -0.5},
		{"zero x, right derivative negative", 0, -3, 1, -2},
		{"zero x, left derivative positive", 0, 3, 1, 2},
		{"zero x, 0 in subdifferential", 0, 0.7, 1, 0},
		{"zero x, boundary g = l1", 0, 1, 1, 0},
		{"zero x, boundary g = -l1", 0, -1, 1, 0},
		{"l1 = 0 copies g at zero", 0, 0.25, 0, 0.25},
		{"l1 = 0 copies g", -3, -0.25, 0, -0.25},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pg := []float64{math.NaN()}
			pseudoGradient(pg, []float64{tc.x}, []float64{tc.g}, tc.l1)
			approxScalar(t, "pg", tc.want, pg[0], 0, 0)
		})
	}
}

// TestPseudoGradientMinNorm checks, on random inputs, that the pseudo-
// gradient is the minimum-norm element of the subdifferential of F when x_j
// is 0 (g_j + l1*t for t in [-1, 1]) and the gradient of F otherwise.
func TestPseudoGradientMinNorm(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	const n = 200
	x, g, pg := make([]float64, n), make([]float64, n), make([]float64, n)
	for trial := 0; trial < 20; trial++ {
		l1 := rng.Float64() * 2
		for j := range x {
			x[j] = 0
			if rng.IntN(2) == 0 {
				x[j] = rng.NormFloat64()
			}
			g[j] = 2 * rng.NormFloat64()
		}
		pseudoGradient(pg, x, g, l1)
		for j := range x {
			var want float64
			if x[j] != 0 {
				want = g[j] + l1*math.Copysign(1, x[j])
			} else {
				tt := math.Max(-1, math.Min(1, -g[j]/l1))
				want = g[j] + l1*tt
			}
			approxScalar(t, "pg", want, pg[j], 1e-15, 0)
		}
	}
}

func TestProjectDirection(t *testing.T) {
	d := []float64{-1, 1, -2, 3, 4, 0, -5}
	pg := []float64{1, 1, -1, -2, 0, 3, 0}
	// Kept where d_j*pg_j < 0: j = 0 and 3.
	want := []float64{-1, 0, 0, 3, 0, 0, 0}
	projectDirection(d, pg)
	approxEqual(t, "d", want, d, 0, 0)
}

func TestOrthant(t *testing.T) {
	tests := []struct{ x, pg, want float64 }{
		{2, 5, 1}, {2, -5, 1}, {-2, 5, -1}, {-2, -5, -1},
		{0, 5, -1}, {0, -5, 1}, {0, 0, 0},
	}
	for _, tc := range tests {
		if got := orthant(tc.x, tc.pg); got != tc.want {
			t.Errorf("orthant(%g, %g) = %g, want %g", tc.x, tc.pg, got, tc.want)
		}
	}
}

// TestProjectOrthantNeverChangesSign is a property test on random inputs:
// after projection, a point never lies on the other side of the orthant
// chosen at x, whatever the step and direction (projected or not).
func TestProjectOrthantNeverChangesSign(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n = 100
	x, pg, d, xt := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	for trial := 0; trial < 500; trial++ {
		for j := range x {
			x[j], pg[j] = 0, 0
			if rng.IntN(3) > 0 {
				x[j] = rng.NormFloat64()
			}
			if rng.IntN(5) > 0 {
				pg[j] = rng.NormFloat64()
			}
			d[j] = rng.NormFloat64()
		}
		if trial%2 == 0 {
			projectDirection(d, pg)
		}
		step := math.Exp(rng.NormFloat64() * 3)
		for j := range x {
			xt[j] = x[j] + step*d[j]
		}
		projectOrthant(xt, x, pg)
		for j := range x {
			xi := orthant(x[j], pg[j])
			switch {
			case xi == 0 && xt[j] != 0:
				t.Fatalf("trial %d: x[%d] = %g, pg = %g: projected %g, want 0", trial, j, x[j], pg[j], xt[j])
			case xt[j]*xi < 0:
				t.Fatalf("trial %d: x[%d] = %g (ξ = %g) projected to %g: changed orthant", trial, j, x[j], xi, xt[j])
			case x[j] != 0 && xt[j]*x[j] < 0:
				t.Fatalf("trial %d: x[%d] = %g projected to %g: changed sign", trial, j, x[j], xt[j])
			}
			// A coordinate that stays in the orthant is not moved.
			if raw := x[j] + step*d[j]; raw*xi > 0 && xt[j] != raw {
				t.Fatalf("trial %d: coordinate %d inside the orthant moved from %g to %g", trial, j, raw, xt[j])
			}
		}
	}
}

// denseBFGS returns the inverse Hessian approximation of BFGS built with the
// explicit update [2, eq. (2.6)]
//
//	H ← (I - ρ s yᵀ) H (I - ρ y sᵀ) + ρ s sᵀ
//
// from H0 = (s·y/y·y)_newest I over the pairs oldest to newest: an
// independent, dense derivation of what twoLoop computes implicitly.
func denseBFGS(n int, ss, ys [][]float64) *mat.Dense {
	last := len(ss) - 1
	gamma := mat.Dot(mat.NewVecDense(n, ss[last]), mat.NewVecDense(n, ys[last])) /
		mat.Dot(mat.NewVecDense(n, ys[last]), mat.NewVecDense(n, ys[last]))
	H := mat.NewDense(n, n, nil)
	for i := range n {
		H.Set(i, i, gamma)
	}
	return bfgsUpdates(H, n, ss, ys)
}

// bfgsUpdates applies the explicit update H ← (I - ρ s yᵀ) H (I - ρ y sᵀ)
// + ρ s sᵀ for the pairs oldest to newest and returns the result.
func bfgsUpdates(H *mat.Dense, n int, ss, ys [][]float64) *mat.Dense {
	for k := range ss {
		s, y := mat.NewVecDense(n, ss[k]), mat.NewVecDense(n, ys[k])
		rho := 1 / mat.Dot(s, y)
		V := mat.NewDense(n, n, nil) // I - ρ y sᵀ
		V.Outer(-rho, y, s)
		for i := range n {
			V.Set(i, i, V.At(i, i)+1)
		}
		var tmp, next, sst mat.Dense
		tmp.Mul(V.T(), H)
		next.Mul(&tmp, V)
		sst.Outer(rho, s, s)
		next.Add(&next, &sst)
		H = &next
	}
	return H
}

func TestTwoLoopMatchesDenseBFGS(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 1))
	const n = 6
	// Random SPD matrix B = CᵀC + I; y = B s always has s·y > 0.
	C := mat.NewDense(n, n, nil)
	for i := range n {
		for j := range n {
			C.Set(i, j, rng.NormFloat64())
		}
	}
	var B mat.Dense
	B.Mul(C.T(), C)
	for i := range n {
		B.Set(i, i, B.At(i, i)+1)
	}
	for _, tc := range []struct{ m, pushes int }{{1, 1}, {3, 2}, {3, 3}, {3, 7}, {5, 5}} {
		mem := newMemory(tc.m, n)
		zero := make([]float64, n)
		var ss, ys [][]float64
		for range tc.pushes {
			s := make([]float64, n)
			for j := range s {
				s[j] = rng.NormFloat64()
			}
			yv := mat.NewVecDense(n, nil)
			yv.MulVec(&B, mat.NewVecDense(n, s))
			y := yv.RawVector().Data
			if !mem.update(nil, s, zero, y, zero) {
				t.Fatalf("update rejected a pair with s·y > 0")
			}
			ss, ys = append(ss, s), append(ys, y)
		}
		if len(ss) > tc.m { // the ring keeps the newest m pairs
			ss, ys = ss[len(ss)-tc.m:], ys[len(ys)-tc.m:]
		}
		H := denseBFGS(n, ss, ys)
		q := make([]float64, n)
		for j := range q {
			q[j] = rng.NormFloat64()
		}
		var want mat.VecDense
		want.MulVec(H, mat.NewVecDense(n, q))
		want.ScaleVec(-1, &want)
		d := make([]float64, n)
		twoLoop(nil, d, q, &mem)
		approxEqual(t, "d", want.RawVector().Data, d, 1e-10, 1e-10)

		// Secant equation of the newest pair: H y = s, so d = -s.
		last := len(ss) - 1
		twoLoop(nil, d, ys[last], &mem)
		for j := range d {
			d[j] = -d[j]
		}
		approxEqual(t, "H y_newest", ss[last], d, 1e-10, 1e-10)
	}
}

func TestTwoLoopEmptyMemoryIsSteepestDescent(t *testing.T) {
	mem := newMemory(4, 3)
	d := make([]float64, 3)
	twoLoop(nil, d, []float64{1, -2, 0.5}, &mem)
	approxEqual(t, "d", []float64{-1, 2, -0.5}, d, 0, 0)
}

func TestMemoryUpdateSkipsNonPositiveCurvature(t *testing.T) {
	mem := newMemory(2, 2)
	zero := []float64{0, 0}
	mem.update(nil, []float64{1, 0}, zero, []float64{1, 0}, zero)       // s·y = 1
	mem.update(nil, []float64{0, 1}, zero, []float64{0, 2}, zero)       // s·y = 2, memory full
	if mem.update(nil, []float64{1, 1}, zero, []float64{-1, 0}, zero) { // s·y = -1
		t.Fatal("pair with s·y < 0 stored")
	}
	if mem.update(nil, []float64{1, 0}, zero, []float64{0, 1}, zero) { // s·y = 0
		t.Fatal("pair with s·y = 0 stored")
	}
	if mem.count != 2 {
		t.Fatalf("count = %d, want 2", mem.count)
	}
	// The oldest pair must not have been overwritten.
	k := mem.slot(0)
	approxEqual(t, "s oldest", []float64{1, 0}, mem.s[k], 0, 0)
	approxScalar(t, "rho oldest", 1, mem.rho[k], 0, 0)
	approxScalar(t, "rho newest", 0.5, mem.rho[mem.slot(1)], 0, 0)
}

func TestMemoryCompact(t *testing.T) {
	mem := newMemory(4, 3)
	zero := []float64{0, 0, 0}
	// Five pushes into 4 slots: the ring wraps, pair 0 is evicted.
	pairs := [][2][]float64{
		{{1, 1, 1}, {1, 1, 1}},
		{{1, 2, 0}, {1, 1, 0}},  // s·y = 3;   kept on {1,2}: 2
		{{5, 1, 0}, {1, -2, 0}}, // s·y = 3;   on {1,2}: -2 -> dropped
		{{0, 1, 1}, {4, 1, 1}},  // s·y = 2;   on {1,2}: 2
		{{2, 0, 3}, {1, 7, 1}},  // s·y = 5;   on {1,2}: 3
	}
	for _, p := range pairs {
		if !mem.update(nil, p[0], zero, p[1], zero) {
			t.Fatal("update rejected")
		}
	}
	mem.compact(nil, []int32{1, 2})
	if mem.count != 3 {
		t.Fatalf("count = %d, want 3", mem.count)
	}
	wantS := [][]float64{{2, 0}, {1, 1}, {0, 3}}
	wantY := [][]float64{{1, 0}, {1, 1}, {7, 1}}
	wantRho := []float64{1. / 2, 1. / 2, 1. / 3}
	for i := range 3 {
		k := mem.slot(i)
		approxEqual(t, "s", wantS[i], mem.s[k], 0, 0)
		approxEqual(t, "y", wantY[i], mem.y[k], 0, 0)
		approxScalar(t, "rho", wantRho[i], mem.rho[k], 0, 1e-15)
	}
	for k := range mem.s {
		if len(mem.s[k]) != 2 || len(mem.y[k]) != 2 {
			t.Fatalf("slot %d not shrunk: %d, %d", k, len(mem.s[k]), len(mem.y[k]))
		}
	}
	// A new push after compaction fills the free slot with the new length.
	if !mem.update(nil, []float64{1, 1}, []float64{0, 0}, []float64{1, 1}, []float64{0, 0}) || mem.count != 4 {
		t.Fatalf("update after compact: count = %d", mem.count)
	}
}

// quad is f(x) = ½ Σ c_j (x_j - a_j)², separable, allocation-free.
type quad struct{ c, a []float64 }

func (q quad) eval(x, g []float64) (float64, error) {
	var f float64
	for j := range x {
		r := x[j] - q.a[j]
		f += 0.5 * q.c[j] * r * r
		g[j] = q.c[j] * r
	}
	return f, nil
}

func TestLineSearchArmijoAndOrthant(t *testing.T) {
	q := quad{c: []float64{1, 4, 2}, a: []float64{3, -1, 0.2}}
	x := []float64{1, 0.5, 0}
	g := make([]float64, 3)
	f, _ := q.eval(x, g)
	const l1 = 1.0
	pg := make([]float64, 3)
	pseudoGradient(pg, x, g, l1)
	o, err := New(x, f, g, Settings{L1: l1})
	if err != nil {
		t.Fatal(err)
	}
	obj := o.Objective()
	approxScalar(t, "F(x)", f+l1*norm1(x), obj, 0, 0)
	trials := 0
	for {
		xt, gt, err := o.Next()
		if err != nil || xt == nil {
			t.Fatalf("Next: %v, %v", xt, err)
		}
		trials++
		ft, _ := q.eval(xt, gt)
		if o.Tell(ft) {
			break
		}
	}
	// Independent recomputation at the accepted point.
	xt := o.X()
	g2 := make([]float64, 3)
	f2, _ := q.eval(xt, g2)
	approxScalar(t, "f(xt)", f2, o.F(), 0, 1e-15)
	approxEqual(t, "grad(xt)", g2, o.Grad(), 0, 1e-15)
	approxScalar(t, "F(xt)", f2+l1*norm1(xt), o.Objective(), 0, 1e-15)
	var dec float64
	for j := range x {
		dec += pg[j] * (xt[j] - x[j])
		if xt[j]*orthant(x[j], pg[j]) < 0 {
			t.Fatalf("xt[%d] = %g left the orthant", j, xt[j])
		}
	}
	if !(dec < 0) || !(o.Objective() <= obj+o.set.Armijo*dec) {
		t.Fatalf("Armijo violated after %d trials: F' = %g, F = %g, dec = %g", trials, o.Objective(), obj, dec)
	}
}

func TestLineSearchFailures(t *testing.T) {
	x, g := []float64{1, 2}, []float64{1, 1}
	s := Settings{MaxLineSearch: 5}

	// A NaN objective is rejected at every trial: ErrLineSearch after 5.
	o, err := New(x, 0, g, s)
	if err != nil {
		t.Fatal(err)
	}
	trials := 0
	for {
		xt, _, err := o.Next()
		if err != nil {
			if !errors.Is(err, ErrLineSearch) || trials != 5 {
				t.Fatalf("NaN objective: err = %v after %d trials; want ErrLineSearch after 5", err, trials)
			}
			break
		}
		if xt == nil {
			t.Fatal("NaN objective: Next reports an optimum")
		}
		trials++
		if o.Tell(math.NaN()) {
			t.Fatal("a NaN objective was accepted")
		}
	}
	if o.X()[0] != 1 || o.X()[1] != 2 || o.Iterations() != 0 {
		t.Fatalf("a failed line search moved the point to %v", o.X())
	}

	// A trial that is never told (the caller's evaluation failed) is
	// abandoned: the next Next starts again from X with the same trial.
	o, _ = New(x, 0, g, s)
	first, _, _ := o.Next()
	first = append([]float64(nil), first...)
	again, _, err := o.Next()
	if err != nil || !slices.Equal(first, again) {
		t.Fatalf("after an abandoned trial: %v, %v; want the first trial %v again", again, err, first)
	}

	// A step that underflows leaves x unchanged: fail without handing out
	// a point.
	o, _ = New(x, 0, g, s)
	if ok, err := o.startIteration(); !ok || err != nil {
		t.Fatal(ok, err)
	}
	o.step = 1e-300
	if xt, _, err := o.Next(); !errors.Is(err, ErrLineSearch) || xt != nil {
		t.Fatalf("underflow: %v, %v; want ErrLineSearch and no point", xt, err)
	}
}
