package screen

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/sparsetag/sparsetag/internal/numtest"
)

// The weighted dual of docs/crfsuite-algorithms.md ("The weighted dual"),
// checked by enumeration on tiny chains: with sequence weights s_i > 0,
//
//	P_s(w)     = (1/n) sum_i s_i NLL_i(w) + beta (alpha/2 ||w||^2 + ||w||_1)
//	m_s(theta) = (1/n) sum_i s_i (F(x_i, y_i) - E_theta_i F(x_i, Y))
//	D_s(theta) = ||soft(m_s(theta), beta)||^2 / (2 alpha beta) - (1/n) sum_i s_i H(theta_i)
//
// and the gap at theta = p_w is the unweighted formula Gap(w, m_s(p_w)); the
// Pinsker rule holds with Rnorm_j^2 = sum_i s_i R_ij^2; for pure L1
// (alpha = 0) the mixture theta_i = c p_w + (1 - c) delta_{y_i} has
// m_s = c m_s(p_w) and an entropy in closed form.

// weightedEval is bruteCRF.eval with sequence weights s.
func (b *bruteCRF) weightedEval(w, s []float64) (st state, wentropy float64) {
	st = b.eval(w) // p and logZ; m, nll and entropy are recomputed weighted
	st.m = make([]float64, b.d)
	st.nll = 0
	for i := 0; i < b.n; i++ {
		h := 0.0
		for k, p := range st.p[i] {
			if p > 0 {
				h -= p * math.Log(p)
			}
			for j, v := range b.feats[i][k] {
				st.m[j] -= s[i] * p * v
			}
		}
		wentropy += s[i] * h
		for j, v := range b.feats[i][b.gold[i]] {
			st.m[j] += s[i] * v
		}
		st.nll += s[i] * (st.logZ[i] - dot(w, b.feats[i][b.gold[i]]))
	}
	n := float64(b.n)
	for j := range st.m {
		st.m[j] /= n
	}
	st.nll /= n
	return st, wentropy / n
}

// weightedDualOf is D_s at the distributions theta, by definition (alpha =
// 0: the constraint ||m||_inf <= beta, +Inf outside).
func (b *bruteCRF) weightedDualOf(theta [][]float64, s []float64, alpha, beta float64) (d float64, m []float64) {
	m = make([]float64, b.d)
	h := 0.0
	for i := range theta {
		for j, v := range b.feats[i][b.gold[i]] {
			m[j] += s[i] * v
		}
		for k, f := range b.feats[i] {
			for j, v := range f {
				m[j] -= s[i] * theta[i][k] * v
			}
			if theta[i][k] > 0 {
				h -= s[i] * theta[i][k] * math.Log(theta[i][k])
			}
		}
	}
	q := 0.0
	for j := range m {
		m[j] /= float64(b.n)
		if e := math.Abs(m[j]) - beta; e > 0 {
			if alpha == 0 {
				return math.Inf(1), m
			}
			q += e * e
		}
	}
	if alpha == 0 {
		return -h / float64(b.n), m
	}
	return q/(2*alpha*beta) - h/float64(b.n), m
}

func randomWeights(rng *rand.Rand, n int) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = 0.2 + 3*rng.Float64()
	}
	return s
}

func randomPoint(rng *rand.Rand, d int) []float64 {
	w := make([]float64, d)
	for j := range w {
		if rng.Float64() < 0.5 {
			w[j] = rng.NormFloat64()
		}
	}
	return w
}

func randomDistributions(rng *rand.Rand, b *bruteCRF) [][]float64 {
	theta := make([][]float64, b.n)
	for i := range theta {
		theta[i] = make([]float64, len(b.feats[i]))
		sum := 0.0
		for k := range theta[i] {
			theta[i][k] = rng.ExpFloat64()
			sum += theta[i][k]
		}
		for k := range theta[i] {
			theta[i][k] /= sum
		}
	}
	return theta
}

// TestWeightedGapIdentity: P_s(w) + D_s(p_w) equals the gap formula at
// m_s(p_w) (Fenchel-Young: the weighted log Z terms cancel), and weak
// duality P_s(w) + D_s(theta) >= 0 holds at random distributions.
func TestWeightedGapIdentity(t *testing.T) {
	rng := rand.New(rand.NewPCG(36, 1))
	for trial := 0; trial < 10; trial++ {
		b := newBrute(rng, 3+trial%4, 1, 3, 2+trial%2, 4, trial%2, trial%3 != 0)
		s := randomWeights(rng, b.n)
		for _, alpha := range []float64{1, 0.1} {
			for _, beta := range []float64{0.05, 0.3} {
				w := randomPoint(rng, b.d)
				st, h := b.weightedEval(w, s)
				pen := 0.0
				for _, v := range w {
					pen += alpha/2*v*v + math.Abs(v)
				}
				primal := st.nll + beta*pen
				dv, m := b.weightedDualOf(st.p, s, alpha, beta)
				for j := range m {
					numtest.RequireClose(t, m[j], st.m[j], 1e-12, 0, "m_s")
				}
				q := 0.0
				for _, v := range st.m {
					if e := math.Abs(v) - beta; e > 0 {
						q += e * e
					}
				}
				numtest.RequireClose(t, q/(2*alpha*beta)-h, dv, 1e-12, 1e-12, "D_s(p_w)")
				numtest.RequireClose(t, primal+dv, Gap(w, st.m, alpha, beta), 1e-11*(1+primal), 0, "weighted gap")
				for r := 0; r < 5; r++ {
					d, _ := b.weightedDualOf(randomDistributions(rng, b), s, alpha, beta)
					if primal+d < -1e-12 {
						t.Fatalf("weak duality violated: P_s + D_s = %v", primal+d)
					}
				}
			}
		}
	}
}

// TestWeightedPinskerLipschitz: the two inequalities the Pinsker rule
// rests on, with weights: |m_s,j(theta) - m_s,j(theta')| <= Rnorm_s,j
// sqrt((1/n) sum_i s_i ||theta_i - theta'_i||_1^2) / sqrt(n) with
// Rnorm_s,j^2 = sum_i s_i R_ij^2; and the weighted entropy term is
// strongly concave: D_s(theta') >= D_s(theta) + <grad, theta' - theta> +
// (1/2n) sum_i s_i ||theta'_i - theta_i||_1^2 along the segment (checked
// at its midpoint).
func TestWeightedPinskerLipschitz(t *testing.T) {
	rng := rand.New(rand.NewPCG(36, 2))
	for trial := 0; trial < 10; trial++ {
		b := newBrute(rng, 3+trial%3, 1, 3, 2+trial%2, 4, trial%2, true)
		s := randomWeights(rng, b.n)
		// Rnorm_s by enumeration.
		rn := make([]float64, b.d)
		for i := 0; i < b.n; i++ {
			for j := 0; j < b.d; j++ {
				lo, hi := math.Inf(1), math.Inf(-1)
				for _, f := range b.feats[i] {
					lo, hi = min(lo, f[j]), max(hi, f[j])
				}
				rn[j] += s[i] * (hi - lo) * (hi - lo) / 4
			}
		}
		n := float64(b.n)
		for r := 0; r < 20; r++ {
			a, c := randomDistributions(rng, b), randomDistributions(rng, b)
			_, ma := b.weightedDualOf(a, s, 1, 1)
			_, mc := b.weightedDualOf(c, s, 1, 1)
			dist := 0.0
			for i := range a {
				l1 := 0.0
				for k := range a[i] {
					l1 += math.Abs(a[i][k] - c[i][k])
				}
				dist += s[i] * l1 * l1 / n
			}
			for j := range ma {
				bound := math.Sqrt(rn[j]/n) * math.Sqrt(dist)
				if math.Abs(ma[j]-mc[j]) > bound+1e-12 {
					t.Fatalf("feature %d: |dm| = %v > %v", j, math.Abs(ma[j]-mc[j]), bound)
				}
			}
			// Strong concavity of (1/n) sum s_i H: H(mid) >= (H(a)+H(c))/2 + (1/8)(1/n) sum s_i ||a_i - c_i||_1^2.
			ent := func(th [][]float64) float64 {
				h := 0.0
				for i := range th {
					for _, p := range th[i] {
						if p > 0 {
							h -= s[i] * p * math.Log(p)
						}
					}
				}
				return h / n
			}
			mid := make([][]float64, len(a))
			for i := range a {
				mid[i] = make([]float64, len(a[i]))
				for k := range a[i] {
					mid[i][k] = (a[i][k] + c[i][k]) / 2
				}
			}
			if ent(mid) < (ent(a)+ent(c))/2+dist/8-1e-12 {
				t.Fatalf("weighted entropy not 1-strongly concave in the weighted l1 norm")
			}
		}
	}
}

// TestPureL1Mixture: for alpha = 0 the dual point theta_i = c p_w + (1 - c)
// delta_{y_i} with c = min(1, beta / ||m_s(p_w)||_inf) is feasible, its
// residual is c m_s(p_w), its entropy has the closed form of the docs
//
//	H(theta_i) = c H(p_i) + c p_i(y_i) log p_i(y_i) - c (1 - p_i(y_i)) log c
//	             - (c p_i(y_i) + 1 - c) log(c p_i(y_i) + 1 - c),
//
// and P_s(w) + D_s(theta) >= 0 (weak duality, so the gap certifies).
func TestPureL1Mixture(t *testing.T) {
	rng := rand.New(rand.NewPCG(36, 3))
	for trial := 0; trial < 12; trial++ {
		b := newBrute(rng, 3+trial%3, 1, 3, 2+trial%2, 4, trial%2, trial%3 != 0)
		s := randomWeights(rng, b.n)
		beta := []float64{0.02, 0.1, 0.5}[trial%3]
		w := randomPoint(rng, b.d)
		st, _ := b.weightedEval(w, s)
		inf := 0.0
		for _, v := range st.m {
			inf = max(inf, math.Abs(v))
		}
		c := 1.0
		if inf > beta {
			c = beta / inf * (1 - 1e-9) // a margin for rounding: feasible for sure
		}
		theta := make([][]float64, b.n)
		closed := 0.0
		for i := range theta {
			theta[i] = make([]float64, len(st.p[i]))
			hp := 0.0
			for k, p := range st.p[i] {
				theta[i][k] = c * p
				if p > 0 {
					hp -= p * math.Log(p)
				}
			}
			theta[i][b.gold[i]] += 1 - c
			pg := st.p[i][b.gold[i]]
			x := c*pg + 1 - c
			h := c*hp + c*pg*math.Log(pg) - x*math.Log(x)
			if c < 1 {
				h -= c * (1 - pg) * math.Log(c)
			}
			closed += s[i] * h
		}
		closed /= float64(b.n)
		d, m := b.weightedDualOf(theta, s, 0, beta)
		if math.IsInf(d, 1) {
			t.Fatalf("the scaled mixture is infeasible")
		}
		for j := range m {
			numtest.RequireClose(t, c*st.m[j], m[j], 1e-12, 0, "m of the mixture")
		}
		numtest.RequireClose(t, -closed, d, 1e-12, 1e-12, "closed-form entropy")
		l1 := 0.0
		for _, v := range w {
			l1 += math.Abs(v)
		}
		if gap := st.nll + beta*l1 + d; gap < -1e-12 {
			t.Fatalf("weak duality violated for pure L1: %v", gap)
		}
	}
}

// TestWeightedRnormBrute: WeightedRnorm equals sqrt(sum_i s_i R_ij^2) with
// the half-ranges R_ij by enumeration (state, transition and pair features,
// binary and real values), and nil weights give Rnorm's bits.
func TestWeightedRnormBrute(t *testing.T) {
	rng := rand.New(rand.NewPCG(36, 4))
	for trial := 0; trial < 12; trial++ {
		b := newBrute(rng, 3+trial%4, 0, 5, 2+trial%3, 4, 2, trial%2 == 0)
		s := randomWeights(rng, b.n)
		want := make([]float64, b.d)
		for i := 0; i < b.n; i++ {
			for j := 0; j < b.d; j++ {
				lo, hi := math.Inf(1), math.Inf(-1)
				for _, f := range b.feats[i] {
					lo, hi = min(lo, f[j]), max(hi, f[j])
				}
				want[j] += s[i] * (hi - lo) * (hi - lo) / 4
			}
		}
		for j := range want {
			want[j] = math.Sqrt(want[j])
		}
		got, err := WeightedRnorm(nil, b.lay, b.corpus, s)
		if err != nil {
			t.Fatal(err)
		}
		numtest.RequireSlices(t, want, got, 1e-12, 1e-12, "WeightedRnorm")
		plain, _ := Rnorm(nil, b.lay, b.corpus)
		unit, _ := WeightedRnorm(nil, b.lay, b.corpus, nil)
		for j := range plain {
			if math.Float64bits(plain[j]) != math.Float64bits(unit[j]) {
				t.Fatalf("nil weights: Rnorm[%d] %v, %v", j, unit[j], plain[j])
			}
		}
	}
	b := newBrute(rng, 3, 1, 3, 2, 2, 0, false)
	for _, bad := range [][]float64{{1, 1}, {1, 0, 1}, {1, math.NaN(), 1}, {1, math.Inf(1), 1}} {
		if _, err := WeightedRnorm(nil, b.lay, b.corpus, bad); err == nil {
			t.Fatalf("weights %v accepted", bad)
		}
		if _, err := WeightedRangeBounds(nil, b.lay, b.corpus, bad); err == nil {
			t.Fatalf("weights %v accepted by WeightedRangeBounds", bad)
		}
	}
}

// TestWeightedRangeBounds: the weighted static bound B_s,j is at least the
// exact max over dual points of |M_s,j| (max(sum_i s_i (obs_ij - lo_ij),
// sum_i s_i (hi_ij - obs_ij)) by enumeration, attained by a one-hot point)
// and within its rounding margin of it, for every configuration of the
// unweighted test; |M_s,j(theta)| <= B_s,j at random dual points; nil
// weights give RangeBounds's bits.
func TestWeightedRangeBounds(t *testing.T) {
	rng := rand.New(rand.NewPCG(36, 8))
	for _, cfg := range staticConfigs() {
		for trial := 0; trial < 3; trial++ {
			b := cfg.build(rng)
			s := randomWeights(rng, b.n)
			down, up := make([]float64, b.d), make([]float64, b.d)
			for i := 0; i < b.n; i++ {
				for j := 0; j < b.d; j++ {
					mn, mx := math.Inf(1), math.Inf(-1)
					for _, f := range b.feats[i] {
						mn, mx = min(mn, f[j]), max(mx, f[j])
					}
					g := b.feats[i][b.gold[i]][j]
					down[j] += s[i] * (g - mn)
					up[j] += s[i] * (mx - g)
				}
			}
			got, err := WeightedRangeBounds(nil, b.lay, b.corpus, s)
			if err != nil {
				t.Fatal(err)
			}
			for j := range got {
				exact := max(down[j], up[j])
				if !(got[j] >= exact-1e-13*(1+exact)) || got[j] > exact+1e-9*(1+exact) {
					t.Fatalf("%s: B_s[%d] = %.17g, exact %.17g", cfg.name, j, got[j], exact)
				}
			}
			for pt := 0; pt < 30; pt++ {
				theta := b.randomDual(rng, pt%3)
				M := make([]float64, b.d)
				for i := range theta {
					for j, v := range b.feats[i][b.gold[i]] {
						M[j] += s[i] * v
					}
					for k, f := range b.feats[i] {
						for j, v := range f {
							M[j] -= s[i] * theta[i][k] * v
						}
					}
				}
				for j := range M {
					if math.Abs(M[j]) > got[j] {
						t.Fatalf("%s: |M_s[%d]| = %.17g > B_s = %.17g", cfg.name, j, math.Abs(M[j]), got[j])
					}
				}
			}
			plain, _ := RangeBounds(nil, b.lay, b.corpus)
			unit, _ := WeightedRangeBounds(nil, b.lay, b.corpus, nil)
			for j := range plain {
				if math.Float64bits(plain[j]) != math.Float64bits(unit[j]) {
					t.Fatalf("nil weights: B[%d] %v, %v", j, unit[j], plain[j])
				}
			}
		}
	}
}
