package screen

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/sparsetag/sparsetag/internal/numtest"
	"github.com/sparsetag/sparsetag/sparse"
)

// bruteRange returns, by enumeration of every label sequence, the observed
// sum-form feature totals obs_j = sum_i F_j(x_i, y_i) and Lo_j = sum_i min_y
// F_j(x_i, y), Hi_j = sum_i max_y F_j(x_i, y), and the exact maximum of |M_j|
// over all dual points, max(obs - Lo, Hi - obs).
func (b *bruteCRF) bruteRange() (obs, lo, hi, exact []float64) {
	obs = make([]float64, b.d)
	lo = make([]float64, b.d)
	hi = make([]float64, b.d)
	exact = make([]float64, b.d)
	for i := 0; i < b.n; i++ {
		for j := 0; j < b.d; j++ {
			mn, mx := math.Inf(1), math.Inf(-1)
			for _, f := range b.feats[i] {
				mn = min(mn, f[j])
				mx = max(mx, f[j])
			}
			lo[j] += mn
			hi[j] += mx
			obs[j] += b.feats[i][b.gold[i]][j]
		}
	}
	for j := range exact {
		exact[j] = max(obs[j]-lo[j], hi[j]-obs[j])
	}
	return obs, lo, hi, exact
}

// residual returns the sum-form M(theta) = sum_i (F(x_i, y_i) -
// E_{theta_i}[F(x_i, Y)]) for per-sequence distributions theta[i][k] over the
// enumerated label sequences.
func (b *bruteCRF) residual(theta [][]float64) []float64 {
	M := make([]float64, b.d)
	for i := 0; i < b.n; i++ {
		for j, v := range b.feats[i][b.gold[i]] {
			M[j] += v
		}
		for k, f := range b.feats[i] {
			if p := theta[i][k]; p != 0 {
				for j, v := range f {
					M[j] -= p * v
				}
			}
		}
	}
	return M
}

// randomDual draws a dual point: per sequence, a random distribution over all
// label sequences (kind 0), a one-hot one (kind 1), or one supported on a few
// sequences (kind 2).
func (b *bruteCRF) randomDual(rng *rand.Rand, kind int) [][]float64 {
	theta := make([][]float64, b.n)
	for i := range theta {
		K := len(b.feats[i])
		p := make([]float64, K)
		switch kind {
		case 1:
			p[rng.IntN(K)] = 1
		default:
			s := 0.0
			for k := range p {
				if kind == 0 || rng.IntN(4) == 0 {
					p[k] = rng.ExpFloat64()
					s += p[k]
				}
			}
			if s == 0 {
				p[rng.IntN(K)], s = 1, 1
			}
			for k := range p {
				p[k] /= s
			}
		}
		theta[i] = p
	}
	return theta
}

// staticConfig is one tiny brute-force problem of the static-rule tests.
type staticConfig struct {
	name             string
	L, n, minT, maxT int
	numAttrs         int
	numPair          int
	startEnd         bool
	values           string // "binary", "signed" (mixed-sign reals), "nonneg" (positive reals), "int" (integers stored as values)
}

func staticConfigs() []staticConfig {
	return []staticConfig{
		{"L2/binary", 2, 5, 0, 4, 4, 0, false, "binary"},
		{"L3/binary/pairs", 3, 4, 1, 4, 3, 2, false, "binary"},
		{"L2/binary/pairs/startend", 2, 6, 1, 4, 3, 2, true, "binary"},
		{"L3/signed/pairs", 3, 4, 1, 4, 3, 2, false, "signed"},
		{"L2/signed/pairs/startend", 2, 5, 0, 4, 4, 2, true, "signed"},
		{"L3/nonneg/pairs", 3, 4, 1, 4, 3, 2, true, "nonneg"},
		{"L2/int/pairs", 2, 5, 1, 4, 3, 2, false, "int"},
	}
}

// build makes a labelled brute-force problem for the configuration (labels
// planted from a random sparse CRF).
func (cfg staticConfig) build(rng *rand.Rand) *bruteCRF {
	c := randomCorpus(rng, cfg.n, cfg.minT, cfg.maxT, cfg.numAttrs, cfg.numPair, cfg.values != "binary")
	for _, val := range [][]float64{c.Unary.Val, c.Pair.Val} {
		for k, v := range val {
			switch cfg.values {
			case "nonneg":
				val[k] = math.Abs(v)
			case "int":
				val[k] = math.Round(2 * v)
			}
		}
	}
	b := &bruteCRF{lay: sparse.Layout{NumUnary: cfg.numAttrs, L: cfg.L, NumPair: cfg.numPair}, corpus: c}
	plantLabels(rng, b)
	b.build()
	return b
}

// TestRangeBoundsExact checks that RangeBounds equals the exact maximum of
// |M_j| over the dual feasible set, max(obs - Lo, Hi - obs) by enumeration,
// for every feature: bit for bit on integer data, and within its documented
// upward margin (never below) on real data. Since the exact value is attained
// by a one-hot dual point (checked in TestRangeBoundsAttained), nobody can
// lower the bound without breaking safety.
func TestRangeBoundsExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 1))
	for _, cfg := range staticConfigs() {
		for trial := 0; trial < 4; trial++ {
			b := cfg.build(rng)
			_, _, _, exact := b.bruteRange()
			// Into reused storage full of other values: the same bounds.
			dirty := make([]float64, b.d+3)
			for j := range dirty {
				dirty[j] = rng.NormFloat64()
			}
			got, err := RangeBounds(dirty, b.lay, b.corpus)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != b.d {
				t.Fatalf("%s: len %d, want %d", cfg.name, len(got), b.d)
			}
			integer := cfg.values == "binary" || cfg.values == "int"
			for j := range got {
				if integer && got[j] != exact[j] {
					t.Fatalf("%s trial %d: B[%d] = %v, want exactly %v", cfg.name, trial, j, got[j], exact[j])
				}
				if !(got[j] >= exact[j]) || got[j] > exact[j]+1e-9*(1+exact[j]) {
					t.Fatalf("%s trial %d: B[%d] = %.17g, exact %.17g", cfg.name, trial, j, got[j], exact[j])
				}
			}
		}
	}
}

// TestRangeBoundsDualPoints checks |M_j(theta)| <= B_j at random dual points
// (dense, sparse and one-hot distributions over all label sequences) and that
// the bound is attained by a one-hot dual point: the one that puts every
// sequence on an argmin of F_j (or every one on an argmax).
func TestRangeBoundsDualPoints(t *testing.T) {
	rng := rand.New(rand.NewPCG(22, 1))
	checks := 0
	for _, cfg := range staticConfigs() {
		for trial := 0; trial < 3; trial++ {
			b := cfg.build(rng)
			B, err := RangeBounds(nil, b.lay, b.corpus)
			if err != nil {
				t.Fatal(err)
			}
			for pt := 0; pt < 60; pt++ {
				M := b.residual(b.randomDual(rng, pt%3))
				for j := range M {
					checks++
					if math.Abs(M[j]) > B[j]+1e-12*(1+B[j]) {
						t.Fatalf("%s: |M[%d]| = %.17g > B = %.17g", cfg.name, j, math.Abs(M[j]), B[j])
					}
				}
			}
			// Attainment: for each j, the one-hot point on argmin_y F_j
			// (resp. argmax) in every sequence.
			for j := 0; j < b.d; j++ {
				var best float64
				for _, useMax := range []bool{false, true} {
					theta := make([][]float64, b.n)
					for i := range theta {
						theta[i] = make([]float64, len(b.feats[i]))
						arg := 0
						for k, f := range b.feats[i] {
							if (useMax && f[j] > b.feats[i][arg][j]) || (!useMax && f[j] < b.feats[i][arg][j]) {
								arg = k
							}
						}
						theta[i][arg] = 1
					}
					best = max(best, math.Abs(b.residual(theta)[j]))
				}
				if best < B[j]-1e-9*(1+B[j]) {
					t.Fatalf("%s: B[%d] = %v is not attained (best one-hot |M| = %v)", cfg.name, j, B[j], best)
				}
			}
		}
	}
	t.Logf("%d (feature, dual point) checks", checks)
}

// TestRangeBoundsStrict checks the strictness argument of RangeScreen: at a
// finite w every sequence has positive probability, so |M_j(p_w)| < B_j
// whenever B_j > 0 (and M_j = 0 when B_j = 0), here at random weights of
// moderate and large size.
func TestRangeBoundsStrict(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 1))
	for _, cfg := range staticConfigs() {
		b := cfg.build(rng)
		B, _ := RangeBounds(nil, b.lay, b.corpus)
		for _, scale := range []float64{0.1, 1, 5} {
			w := make([]float64, b.d)
			for j := range w {
				w[j] = scale * rng.NormFloat64()
			}
			s := b.eval(w)
			for j, m := range s.m {
				M := float64(b.n) * m
				if B[j] == 0 && math.Abs(M) > 1e-12 || B[j] > 0 && !(math.Abs(M) < B[j]) {
					t.Fatalf("%s scale %v: |M[%d]| = %v, B = %v", cfg.name, scale, j, math.Abs(M), B[j])
				}
			}
		}
	}
}

// TestRangeScreenSafeAtOptimum is the end-to-end check on tiny problems: solve
// to a tight gap without screening (FISTA + Newton, solveTight) at several
// sum-form penalties c1 (beta = c1/n, c2 = 0.5 so alpha = 2 c2/c1), and assert
// that every feature the rule removes is exactly zero at the optimum and has
// |M_j(w*)| < c1. It also asserts that the rule removes something and that
// the optima are not all zero, and that a deliberately wrong rule (bounds
// halved) removes a non-zero feature on at least one problem, so that this
// harness can detect an unsafe rule.
func TestRangeScreenSafeAtOptimum(t *testing.T) {
	if testing.Short() {
		t.Skip("solves to a tight gap")
	}
	rng := rand.New(rand.NewPCG(24, 1))
	removed, nonzero, caught := 0, 0, 0
	for _, cfg := range staticConfigs() {
		b := cfg.build(rng)
		B, _ := RangeBounds(nil, b.lay, b.corpus)
		n := float64(b.n)
		for _, c1 := range []float64{0.5, 1, 2, 3} {
			const c2 = 0.5
			beta, alpha := c1/n, 2*c2/c1
			w, g := b.solveTight(alpha, beta)
			if g > 1e-9 {
				t.Fatalf("%s c1 = %v: gap %v", cfg.name, c1, g)
			}
			s := b.eval(w)
			scr := make([]bool, b.d)
			removed += RangeScreen(scr, B, c1)
			half := make([]bool, b.d)
			wrong := make([]float64, b.d)
			for j := range B {
				wrong[j] = B[j] / 2
			}
			RangeScreen(half, wrong, c1)
			// w* is certified to within sqrt(2G/(alpha beta)) of w.
			rad := math.Sqrt(2 * g / (alpha * beta))
			for j := range w {
				if w[j] != 0 {
					nonzero++
				}
				if half[j] && math.Abs(w[j]) > rad {
					caught++
				}
				if !scr[j] {
					continue
				}
				if w[j] != 0 || !(n*math.Abs(s.m[j]) < c1) {
					t.Fatalf("%s c1 = %v: feature %d (B = %v) removed, but w = %v, |M| = %v", cfg.name, c1, j, B[j], w[j], n*math.Abs(s.m[j]))
				}
			}
		}
	}
	t.Logf("removed %d, non-zero %d, non-zero features a halved bound would remove: %d", removed, nonzero, caught)
	if removed == 0 || nonzero == 0 || caught == 0 {
		t.Fatalf("vacuous test: removed %d, non-zero %d, caught %d", removed, nonzero, caught)
	}
}

// TestRangeScreenTies checks the floating-point policy on integer data: a
// binary attribute seen once with gold label l has B = max(1, 1 - 1) = 1 for
// (a, l) and max(0, 1 - 0) = 1 for the other labels, so c1 = 1 removes all
// of its features and the next float below 1 removes none. Real values get an
// upward margin, so a value of 0.5 seen once is not removed at c1 = 0.5, but
// is at 0.5 + 1e-9.
func TestRangeScreenTies(t *testing.T) {
	c := &sparse.Corpus{NumUnary: 2}
	// Attribute 0 fires once, attribute 1 three times (gold labels 0, 1, 1).
	c.AppendSequence([][]int32{{0, 1}, {1}}, nil, nil, nil, []int32{0, 1})
	c.AppendSequence([][]int32{{1}}, nil, nil, nil, []int32{1})
	lay := sparse.Layout{NumUnary: 2, L: 3}
	B, err := RangeBounds(nil, lay, c)
	if err != nil {
		t.Fatal(err)
	}
	// State: attribute 0 -> [1 1 1]; attribute 1 (c_a = 3, gold counts
	// 1, 2, 0) -> [max(1,2) max(2,1) max(0,3)] = [2 2 3]. Transitions: sequence lengths 2 and 1, so Hi = 1 on the
	// diagonal and 1 off it; the only gold bigram is 0 -> 1.
	want := []float64{1, 1, 1, 2, 2, 3,
		1, 1, 1,
		1, 1, 1,
		1, 1, 1}
	numtest.RequireSlices(t, want, B, 0, 0, "B")
	scr := make([]bool, len(B))
	if k := RangeScreen(scr, B, math.Nextafter(1, 0)); k != 0 {
		t.Fatalf("c1 just below 1 removed %d features", k)
	}
	if k := RangeScreen(scr, B, 1); k != 12 {
		t.Fatalf("c1 = 1 removed %d features, want 12 (all but attribute 1)", k)
	}
	if k := RangeScreen(scr, B, 1); k != 0 {
		t.Fatalf("second call removed %d more", k)
	}

	r := &sparse.Corpus{NumUnary: 1}
	r.AppendSequence([][]int32{{0}}, [][]float64{{0.5}}, nil, nil, []int32{0})
	Br, err := RangeBounds(nil, sparse.Layout{NumUnary: 1, L: 2}, r)
	if err != nil {
		t.Fatal(err)
	}
	if !(Br[0] > 0.5 && Br[0] < 0.5+1e-12) {
		t.Fatalf("real-valued B = %.17g, want 0.5 plus a small margin", Br[0])
	}
	scr = make([]bool, len(Br))
	if RangeScreen(scr, Br, 0.5) != 4 || scr[0] || scr[1] {
		// Transitions (T = 1) have B = 0 and are removed; the state
		// features are not.
		t.Fatalf("c1 = 0.5: screened %v", scr)
	}
	if RangeScreen(scr, Br, 0.5+1e-9) != 2 {
		t.Fatalf("c1 = 0.5+1e-9: screened %v", scr)
	}
}

// TestRangeBoundsInput covers the degenerate and invalid inputs.
func TestRangeBoundsInput(t *testing.T) {
	c := &sparse.Corpus{NumUnary: 1}
	c.AppendSequence([][]int32{{0}, {0}}, nil, nil, nil, nil)
	if _, err := RangeBounds(nil, sparse.Layout{NumUnary: 1, L: 2}, c); err == nil {
		t.Fatal("no error without labels")
	}
	c.Labels = []int32{0, 0}
	// L = 1: every feature is constant, so every bound is 0.
	B, err := RangeBounds(make([]float64, 100), sparse.Layout{NumUnary: 1, L: 1}, c)
	if err != nil || len(B) != 2 || B[0] != 0 || B[1] != 0 {
		t.Fatalf("L = 1: %v, %v", B, err)
	}
	if _, err := RangeBounds(nil, sparse.Layout{NumUnary: 0, L: 2}, c); err == nil {
		t.Fatal("no error for a corpus with more attributes than the layout")
	}
	bad := &sparse.Corpus{NumUnary: 1}
	bad.AppendSequence([][]int32{{0}}, [][]float64{{math.NaN()}}, nil, nil, []int32{0})
	if _, err := RangeBounds(nil, sparse.Layout{NumUnary: 1, L: 2}, bad); err == nil {
		t.Fatal("no error for a NaN value")
	}
	scr := make([]bool, 2)
	for _, lam := range []float64{0, -1, math.NaN(), math.Inf(1)} {
		if RangeScreen(scr, []float64{0, 0}, lam) != 0 {
			t.Fatalf("lam1 = %v screened", lam)
		}
	}
	if RangeScreen(scr, []float64{math.NaN(), 0}, 1) != 1 || scr[0] {
		t.Fatal("a NaN bound screened")
	}
	defer func() {
		if recover() == nil {
			t.Fatal("no panic on length mismatch")
		}
	}()
	RangeScreen(scr, []float64{0}, 1)
}

// TestRangeBoundsEmptyAndShortSequences: sequences of length 0 and 1 add
// nothing to the transition and pair ranges and nothing to start/end for
// T = 0.
func TestRangeBoundsEmptyAndShortSequences(t *testing.T) {
	c := &sparse.Corpus{NumUnary: 1, NumPair: 1}
	c.AppendSequence(nil, nil, nil, nil, nil)
	c.AppendSequence([][]int32{{0}}, nil, [][]int32{{0}}, nil, []int32{1})
	lay := sparse.Layout{NumUnary: 1, L: 2, NumPair: 1}
	B, err := RangeBounds(nil, lay, c)
	if err != nil {
		t.Fatal(err)
	}
	// State [1 1]; transitions 0 (T = 1); start/end: one sequence, gold 1:
	// [1 1] each; pair: the first row has no edge, so 0.
	want := []float64{1, 1, 0, 0, 0, 0, 0, 0, 0, 0}
	numtest.RequireSlices(t, want, B, 0, 0, "B")
}

func ExampleRangeScreen() {
	// Two sentences, labels 0/1, one binary attribute per token:
	// attribute 0 ("the") at three positions, attribute 1 ("zebra") once.
	c := &sparse.Corpus{NumUnary: 2}
	c.AppendSequence([][]int32{{0}, {1}}, nil, nil, nil, []int32{0, 1})
	c.AppendSequence([][]int32{{0}, {0}}, nil, nil, nil, []int32{0, 0})
	lay := sparse.Layout{NumUnary: 2, L: 2}
	B, _ := RangeBounds(nil, lay, c)
	// State features: "the" has c_a = 3 and gold counts (3, 0), so B =
	// max(3, 0) = 3 for both labels; "zebra" has B = 1 for both labels.
	// Transitions: 2 edges, gold 0->1 once and 0->0 once.
	fmt.Println(B)
	screened := make([]bool, len(B))
	fmt.Println(RangeScreen(screened, B, 1), screened)
	// Output:
	// [3 3 1 1 1 1 2 2]
	// 4 [false false true true true true false false]
}
