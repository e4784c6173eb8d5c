package screen

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/sparsetag/sparsetag/internal/numtest"
)

// TestGapTermCases checks the case-by-case form against the defining
// expression beta|w| + (ab/2)w^2 + max(|m|-beta,0)^2/(2ab) - w m on values that
// hit every case, and that it is never negative.
func TestGapTermCases(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for k := 0; k < 20000; k++ {
		alpha := math.Exp(rng.NormFloat64())
		beta := math.Exp(rng.NormFloat64())
		ab := alpha * beta
		var w, m float64
		switch k % 5 {
		case 0:
			w = 0
		case 1:
			w = rng.NormFloat64()
		case 2: // near the optimum w = soft(m,beta)/ab
			m = (1 + rng.Float64()) * beta * float64(1-2*rng.IntN(2))
			w = (math.Abs(m) - beta) / ab * math.Copysign(1, m) * (1 + 1e-3*rng.NormFloat64())
		case 3:
			w = rng.NormFloat64()
			m = -math.Copysign(beta*(1+rng.Float64()), w)
		case 4:
			w = rng.NormFloat64()
			m = math.Copysign(beta*rng.Float64(), w*rng.NormFloat64())
		}
		if k%5 < 2 {
			m = 2 * beta * rng.NormFloat64()
		}
		e := math.Max(math.Abs(m)-beta, 0)
		want := beta*math.Abs(w) + ab/2*w*w + e*e/(2*ab) - w*m
		got := GapTerm(w, m, alpha, beta)
		if got < 0 || math.IsNaN(got) {
			t.Fatalf("GapTerm(%v, %v, %v, %v) = %v < 0", w, m, alpha, beta, got)
		}
		scale := beta*math.Abs(w) + ab/2*w*w + e*e/(2*ab) + math.Abs(w*m)
		numtest.RequireClose(t, want, got, 1e-13*scale, 0, "GapTerm")
	}
	if g := GapTerm(1, 1, 0, 1); !math.IsInf(g, 1) {
		t.Errorf("GapTerm with alpha = 0: %v, want +Inf", g)
	}
	if g := Gap([]float64{0, 1}, []float64{math.NaN(), 0}, 1, 1); !math.IsNaN(g) {
		t.Errorf("Gap with NaN m: %v, want NaN (never clamped to 0)", g)
	}
}

// TestGapIdentity checks Gap(w, m(w)) == P(w) + D(p_w), both sides computed by
// enumeration of tiny CRFs (section 2 of the note), at random points.
func TestGapIdentity(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 1))
	for trial := 0; trial < 12; trial++ {
		L := 2 + trial%3
		b := newBrute(rng, 4+trial%4, 1, 4, L, 5, 1+trial%2, trial%3 != 0)
		for _, alpha := range []float64{1, 0.1} {
			for _, beta := range []float64{0.05, 0.3} {
				w := make([]float64, b.d)
				for j := range w {
					if rng.Float64() < 0.5 {
						w[j] = rng.NormFloat64()
					}
				}
				s := b.eval(w)
				want := b.primal(w, s, alpha, beta) + dual(s, alpha, beta)
				got := Gap(w, s.m, alpha, beta)
				// P + D loses about eps*(log Z + |w|^2) to cancellation.
				numtest.RequireClose(t, want, got, 1e-12*(1+b.primal(w, s, alpha, beta)), 0, "Gap vs P+D")
				if want < -1e-12 {
					t.Fatalf("weak duality violated: P + D = %v", want)
				}
				// Sum form: lam1 = n beta, lam2 = n alpha beta, M = n m.
				n := float64(b.n)
				M := make([]float64, b.d)
				for j := range M {
					M[j] = n * s.m[j]
				}
				numtest.RequireClose(t, n*got, GapSum(w, M, n*beta, n*alpha*beta), 0, 1e-12, "GapSum")
				// Masked: skipping coordinates removes exactly their terms.
				skip := make([]bool, b.d)
				sub := 0.0
				for j := range skip {
					skip[j] = j%3 == 0
					if !skip[j] {
						sub += GapTerm(w[j], s.m[j], alpha, beta)
					}
				}
				numtest.RequireClose(t, sub, gapMasked(w, s.m, skip, alpha, beta), 0, 1e-12, "gapMasked")
			}
		}
	}
}

// TestBetaMax checks the closed-form uniform gradient against m(0) by
// enumeration, and that beta_max is exact: the solution is 0 just above it and
// non-zero just below it.
func TestBetaMax(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 1))
	for trial := 0; trial < 6; trial++ {
		b := newBrute(rng, 6, 1, 4, 2+trial%3, 4, trial%2, trial%2 == 0)
		s := b.eval(make([]float64, b.d))
		m0, err := uniformGradient(nil, b.lay, b.corpus)
		if err != nil {
			t.Fatal(err)
		}
		numtest.RequireSlices(t, s.m, m0, 1e-14, 1e-12, "uniformGradient")
		bmax := 0.0
		for _, v := range s.m {
			bmax = max(bmax, math.Abs(v))
		}
		numtest.RequireClose(t, bmax, BetaMax(m0), 1e-14, 1e-12, "BetaMax")
		if g := Gap(make([]float64, b.d), m0, 1, 1.0001*bmax); g != 0 {
			t.Fatalf("G(0) = %v at beta > beta_max, want 0", g)
		}
		if trial < 3 {
			w0 := make([]float64, b.d)
			for j := range w0 {
				w0[j] = rng.NormFloat64()
			}
			w, gap := b.solve(w0, 1, 1.01*bmax, 1e-14, 5000)
			for j, v := range w {
				if v != 0 {
					t.Fatalf("beta = 1.01 beta_max: w[%d] = %v (gap %v), want 0", j, v, gap)
				}
			}
			w, gap = b.solve(make([]float64, b.d), 1, 0.99*bmax, 1e-14, 5000)
			nz := 0
			for _, v := range w {
				if v != 0 {
					nz++
				}
			}
			if nz == 0 || gap > 1e-14 {
				t.Fatalf("beta = 0.99 beta_max: %d non-zeros at gap %v, want > 0", nz, gap)
			}
		}
	}
	if v := BetaMax([]float64{1, math.NaN(), 3}); !math.IsNaN(v) {
		t.Errorf("BetaMax with NaN = %v", v)
	}
}

// TestRulesScreenNothingOnBadInput checks that NaN or invalid parameters never
// lead to screening.
func TestRulesScreenNothingOnBadInput(t *testing.T) {
	m := []float64{0, 0.1, math.NaN()}
	rn := []float64{1, 1, 1}
	for _, g := range []float64{math.NaN(), -1, math.Inf(1)} {
		sc := make([]bool, 3)
		if k := Pinsker(sc, m, rn, g, 5, 1, DefaultTau); k != 0 {
			t.Errorf("gap %v: screened %d", g, k)
		}
	}
	sc := make([]bool, 3)
	if k := Pinsker(sc, m, rn, 0.01, 0, 1, DefaultTau); k != 0 {
		t.Errorf("n = 0: screened %d", k)
	}
	if k := Pinsker(sc, m, rn, 0.01, 5, 1, DefaultTau); k != 2 || sc[2] {
		t.Errorf("NaN m_j screened (%v), or finite ones not (%d)", sc, k)
	}
	if g := Gap([]float64{1}, []float64{0}, 0, 1); !math.IsInf(g, 1) {
		t.Errorf("Gap with alpha = 0: %v", g)
	}
	if g := GapSum([]float64{1}, []float64{0}, 1, 0); !math.IsInf(g, 1) {
		t.Errorf("GapSum with lam2 = 0: %v", g)
	}
	b := []float64{1, math.NaN()}
	if k := ScreenBounds(make([]bool, 2), b, 2, DefaultTau); k != 1 {
		t.Errorf("ScreenBounds with NaN: %d", k)
	}
}
