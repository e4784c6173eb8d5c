package screen

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/sparsetag/sparsetag/internal/numtest"
	"github.com/sparsetag/sparsetag/sparse"
)

// t1Setup returns the T1Input of the brute-force T = 1 problem b at w.
func t1Setup(b *bruteCRF, w []float64, s state, alpha, beta float64) *T1Input {
	L, A := b.lay.L, b.lay.NumUnary
	delta := DualResidual(nil, w, s.m, alpha, beta)
	in := &T1Input{Corpus: b.corpus, L: L, Delta: delta[:A*L], Gap: Gap(w, s.m, alpha, beta)}
	for i := 0; i < b.n; i++ {
		in.P = append(in.P, s.p[i]...) // at T = 1, path k is label k
	}
	return in
}

// reduced returns the reduced coordinates (label L-1 eliminated) of the
// distributions p, flattened as i*(L-1) + y.
func reduced(p [][]float64, L int) []float64 {
	var out []float64
	for _, pi := range p {
		out = append(out, pi[:L-1]...)
	}
	return out
}

// dualOf evaluates D at the full distributions theta, by definition.
func (b *bruteCRF) dualOf(theta [][]float64, alpha, beta float64) float64 {
	m := make([]float64, b.d)
	h := 0.0
	for i := range theta {
		for j, v := range b.feats[i][b.gold[i]] {
			m[j] += v
		}
		for k, f := range b.feats[i] {
			for j, v := range f {
				m[j] -= theta[i][k] * v
			}
			if theta[i][k] > 0 {
				h -= theta[i][k] * math.Log(theta[i][k])
			}
		}
	}
	q := 0.0
	for j := range m {
		if e := math.Abs(m[j]/float64(b.n)) - beta; e > 0 {
			q += e * e
		}
	}
	return q/(2*alpha*beta) - h/float64(b.n)
}

// denseT1 builds b_j and g explicitly in reduced coordinates, from the
// definitions of the note's section 6, and returns the bounds of the half (or
// paper) ball and the gap ball with every half-space, via the vector closed
// form. It also returns g and the center/radius of the balls for other checks.
func denseT1(b *bruteCRF, in *T1Input, s state, paper bool) (bounds, g []float64) {
	L, n := b.lay.L, b.n
	yo := L - 1
	nf := float64(n)
	dim := n * (L - 1)
	delta := make([]float64, b.d)
	copy(delta, in.Delta)
	g = make([]float64, dim)
	for i := 0; i < n; i++ {
		for y := 0; y < yo; y++ {
			g[i*(L-1)+y] = (dot(delta, b.feats[i][y]) - dot(delta, b.feats[i][yo])) / nf
		}
	}
	theta := reduced(s.p, L)
	kappa, r := 0.5, nf*norm(g)/2
	if paper {
		kappa, r = 1, nf*norm(g)
	}
	type ballT struct {
		center []float64
		r      float64
	}
	var balls []ballT
	for _, kr := range [][2]float64{{kappa, r}, {0, math.Sqrt(2 * nf * in.Gap)}} {
		c := make([]float64, dim)
		for q := range c {
			c[q] = theta[q] - kr[0]*nf*g[q]
		}
		balls = append(balls, ballT{c, kr[1]})
	}
	nState := b.lay.StateLen()
	bounds = make([]float64, nState)
	for j := 0; j < nState; j++ {
		bj := make([]float64, dim)
		cst := 0.0
		for i := 0; i < n; i++ {
			cst += (b.feats[i][b.gold[i]][j] - b.feats[i][yo][j]) / nf
			for y := 0; y < yo; y++ {
				bj[i*(L-1)+y] = (b.feats[i][yo][j] - b.feats[i][y][j]) / nf
			}
		}
		best := math.Inf(1)
		for _, bl := range balls {
			mc := cst + dot(bj, bl.center)
			best = min(best, math.Abs(mc)+bl.r*norm(bj))
			for k := 0; k < n; k++ {
				p := make([]float64, dim)
				for y := 0; y < yo; y++ {
					p[k*(L-1)+y] = 1
				}
				hi := maxLinearBallHalfspace(bj, bl.center, p, bl.r, 1)
				lo := minLinearBallHalfspace(bj, bl.center, p, bl.r, 1)
				best = min(best, max(cst+hi, -(cst+lo)))
			}
		}
		bounds[j] = best
	}
	return bounds, g
}

// TestEuclideanT1 checks the rule on tiny T = 1 problems: the gradient of the
// reduced dual against finite differences, the scalar shortcuts against an
// explicit dense construction, theta* inside every ball, and safety of the
// bounds (alone and combined with Pinsker) at perturbed points around a
// tight solution.
func TestEuclideanT1(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 1))
	checked, screenedE := 0, 0
	for trial := 0; trial < 4; trial++ {
		L := 3 + trial%2
		b := newBrute(rng, 8+trial, 1, 1, L, 5, 0, trial < 2)
		m0, _ := uniformGradient(nil, b.lay, b.corpus)
		rn, _ := Rnorm(nil, b.lay, b.corpus)
		alpha, beta := 1.0, 0.4*BetaMax(m0)
		wstar, gstar := b.solveTight(alpha, beta)
		sstar := b.eval(wstar)
		thetaStar := reduced(sstar.p, L)
		nf := float64(b.n)
		nState := b.lay.StateLen()
		wtol := 10*math.Sqrt(2*gstar/(alpha*beta)) + 1e-12
		for pi, w := range safetyPoints(rng, wstar) {
			s := b.eval(w)
			in := t1Setup(b, w, s, alpha, beta)
			for _, paper := range []bool{false, true} {
				got, err := EuclideanT1(nil, in, T1Options{PaperBall: paper, K: b.n})
				if err != nil {
					t.Fatal(err)
				}
				want, g := denseT1(b, in, s, paper)
				numtest.RequireSlices(t, want, got, 1e-10, 1e-7, "EuclideanT1 vs dense")
				theta := reduced(s.p, L)
				if pi%9 == 0 && !paper {
					// g = grad D_hat(theta_hat) by central differences.
					for q := range theta {
						i, y := q/(L-1), q%(L-1)
						h := 1e-4 * min(s.p[i][y], s.p[i][L-1])
						th := func(sgn float64) [][]float64 {
							out := make([][]float64, len(s.p))
							for k := range s.p {
								out[k] = append([]float64(nil), s.p[k]...)
							}
							out[i][y] += sgn * h
							out[i][L-1] -= sgn * h
							return out
						}
						fd := (b.dualOf(th(1), alpha, beta) - b.dualOf(th(-1), alpha, beta)) / (2 * h)
						// Truncation (h/p)^2 plus rounding eps*|D|/h.
						numtest.RequireClose(t, fd, g[q], 1e-7+1e-15/h, 1e-6, "grad D_hat")
					}
				}
				// theta* in the ball (half or paper) and in the gap ball.
				kappa := 0.5
				if paper {
					kappa = 1
				}
				dist, gdist := 0.0, 0.0
				for q := range theta {
					e := thetaStar[q] - (theta[q] - kappa*nf*g[q])
					dist += e * e
					f := thetaStar[q] - theta[q]
					gdist += f * f
				}
				if math.Sqrt(dist) > kappa*nf*norm(g)*(1+1e-9)+1e-9 || gdist > 2*nf*in.Gap*(1+1e-9)+1e-9 {
					t.Fatalf("theta* outside a ball: %v > %v or %v > %v", math.Sqrt(dist), kappa*nf*norm(g), gdist, 2*nf*in.Gap)
				}
				// Safety of the bounds, alone and combined with Pinsker.
				comb := PinskerBounds(nil, s.m[:nState], rn[:nState], in.Gap, b.n)
				MinInto(comb, got)
				scr := make([]bool, nState)
				ScreenBounds(scr, comb, beta, DefaultTau)
				for j := 0; j < nState; j++ {
					slack := math.Sqrt(2*gstar/nf)*rn[j] + 1e-12
					if math.Abs(sstar.m[j]) > got[j]+slack {
						t.Fatalf("|m_%d(theta*)| = %v > Euclidean bound %v", j, math.Abs(sstar.m[j]), got[j])
					}
					if scr[j] && math.Abs(wstar[j]) > wtol {
						t.Fatalf("feature %d screened but w*_j = %v", j, wstar[j])
					}
					if got[j] < beta*(1-DefaultTau) {
						screenedE++
					}
					checked++
				}
			}
			// Random k: each bound lies between the all-k and the ball-only ones.
			rk, _ := EuclideanT1(nil, in, T1Options{K: 3, Seed: uint64(pi)})
			all, _ := EuclideanT1(nil, in, T1Options{K: b.n})
			none, _ := EuclideanT1(nil, in, T1Options{})
			for j := range rk {
				if rk[j] < all[j]-1e-12 || rk[j] > none[j]+1e-12 {
					t.Fatalf("random-k bound %v outside [%v, %v]", rk[j], all[j], none[j])
				}
			}
		}
	}
	if screenedE == 0 {
		t.Fatal("the Euclidean rule never screened anything: the test is vacuous")
	}
	t.Logf("%d bound checks, %d screened by the Euclidean rule alone", checked, screenedE)
}

// TestEuclideanT1RefusesChains checks the refusal on a chain.
func TestEuclideanT1RefusesChains(t *testing.T) {
	c := &sparse.Corpus{NumUnary: 1}
	c.AppendSequence([][]int32{{0}}, nil, nil, nil, []int32{0})
	c.AppendSequence([][]int32{{0}, {0}}, nil, nil, nil, []int32{0, 1})
	_, err := EuclideanT1(nil, &T1Input{Corpus: c, L: 2, P: make([]float64, 4), Delta: make([]float64, 2)}, T1Options{})
	if !errors.Is(err, ErrChain) || !strings.Contains(err.Error(), "Pinsker") {
		t.Fatalf("err = %v, want ErrChain", err)
	}
}
