package screen

import (
	"math"
	"math/rand/v2"
	"testing"
)

// safetyPoints returns perturbed points w* + eps*z for several eps, with dense
// and support-only directions z.
func safetyPoints(rng *rand.Rand, wstar []float64) [][]float64 {
	var pts [][]float64
	for _, eps := range []float64{3, 1, 0.3, 0.1, 0.03, 0.01, 1e-3, 1e-4, 1e-5} {
		for kind := 0; kind < 3; kind++ {
			w := append([]float64(nil), wstar...)
			for j := range w {
				if kind == 1 && wstar[j] == 0 {
					continue // support-only
				}
				if kind == 2 && rng.Float64() < 0.7 {
					continue // sparse
				}
				w[j] += eps * rng.NormFloat64()
			}
			pts = append(pts, w)
		}
	}
	return pts
}

// TestPinskerSafetyChain solves tiny chain CRFs tightly and checks, at many
// perturbed points w, the facts behind the Pinsker rule (section 8 of the
// note): sum_i KL(p_w||p*) <= n G(w), |m_j(theta*)| <= PinskerBound_j, and no
// feature with w*_j != 0 is ever screened.
func TestPinskerSafetyChain(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 1))
	configs := []struct {
		L, maxT, attrs, pair int
		real                 bool
	}{
		{3, 4, 5, 1, false},
		{2, 5, 4, 2, true},
		{4, 3, 4, 1, true},
		{3, 1, 6, 0, true}, // T = 1
	}
	checked := 0
	for ci, cfg := range configs {
		b := newBrute(rng, 7, 1, cfg.maxT, cfg.L, cfg.attrs, cfg.pair, cfg.real)
		m0, _ := uniformGradient(nil, b.lay, b.corpus)
		bmax := BetaMax(m0)
		rn, err := Rnorm(nil, b.lay, b.corpus)
		if err != nil {
			t.Fatal(err)
		}
		for _, alpha := range []float64{1, 0.1} {
			for _, frac := range []float64{0.5, 0.2} {
				beta := frac * bmax
				wstar, gstar := b.solveTight(alpha, beta)
				if gstar > 1e-18 {
					t.Fatalf("config %d: reference solve reached only G = %v", ci, gstar)
				}
				t.Logf("config %d alpha %v beta %.3g: G* = %.3g", ci, alpha, beta, gstar)
				sstar := b.eval(wstar)
				// |w*_j| beyond this is certainly non-zero at the true optimum.
				wtol := 10*math.Sqrt(2*gstar/(alpha*beta)) + 1e-12
				for _, w := range safetyPoints(rng, wstar) {
					s := b.eval(w)
					g := Gap(w, s.m, alpha, beta)
					kl, l1sq := 0.0, 0.0
					for i := range s.p {
						l1 := 0.0
						for k, p := range s.p[i] {
							q := sstar.p[i][k]
							if p > 0 {
								kl += p * math.Log(p/q)
							}
							l1 += math.Abs(p - q)
						}
						l1sq += l1 * l1
					}
					n := float64(b.n)
					if kl > n*g*(1+1e-9)+1e-9 || l1sq > 2*n*g*(1+1e-9)+1e-8 {
						t.Fatalf("config %d: KL = %v, ||.||_1^2 = %v, n G = %v", ci, kl, l1sq, n*g)
					}
					screened := make([]bool, b.d)
					Pinsker(screened, s.m, rn, g, b.n, beta, DefaultTau)
					for j := range wstar {
						u := PinskerBound(s.m[j], rn[j], g, b.n)
						// The reference m(w*) is itself within sqrt(2 G*/n) R_j
						// of m(theta*).
						slack := math.Sqrt(2*gstar/n)*rn[j] + 1e-13
						if math.Abs(sstar.m[j]) > u+slack {
							t.Fatalf("config %d: |m_%d(theta*)| = %v > bound %v (G = %v)", ci, j, math.Abs(sstar.m[j]), u, g)
						}
						if screened[j] && math.Abs(wstar[j]) > wtol {
							t.Fatalf("config %d: feature %d screened but w*_j = %v", ci, j, wstar[j])
						}
						checked++
					}
				}
			}
		}
	}
	t.Logf("%d (feature, point) bound checks", checked)
}

// TestPinskerScreensAtOptimum checks that the rule is not vacuous: at a tight
// solution almost every zero of w* is screened, and the sum form (M, GapSum,
// n = 1, lam1) screens exactly the same set as the average form.
func TestPinskerScreensAtOptimum(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 1))
	b := newBrute(rng, 8, 1, 4, 3, 6, 1, false)
	m0, _ := uniformGradient(nil, b.lay, b.corpus)
	rn, _ := Rnorm(nil, b.lay, b.corpus)
	alpha, beta := 1.0, 0.3*BetaMax(m0)
	w, g := b.solveTight(alpha, beta)
	s := b.eval(w)
	avg := make([]bool, b.d)
	ZeroRnorm(avg, rn)
	Pinsker(avg, s.m, rn, g, b.n, beta, DefaultTau)
	zeros, screened := 0, 0
	for j := range w {
		if w[j] == 0 {
			zeros++
			if avg[j] {
				screened++
			}
		}
	}
	if zeros == 0 || screened < zeros*9/10 {
		t.Fatalf("screened %d of %d zeros at G = %v", screened, zeros, g)
	}
	n := float64(b.n)
	M := make([]float64, b.d)
	for j := range M {
		M[j] = n * s.m[j]
	}
	sum := make([]bool, b.d)
	ZeroRnorm(sum, rn)
	Pinsker(sum, M, rn, GapSum(w, M, n*beta, n*alpha*beta), 1, n*beta, DefaultTau)
	for j := range sum {
		if sum[j] != avg[j] {
			t.Fatalf("feature %d: sum form %v, average form %v", j, sum[j], avg[j])
		}
	}
}
