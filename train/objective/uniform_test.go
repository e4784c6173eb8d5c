package objective

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/internal/chaintest"
	"github.com/sparsetag/sparsetag/sparse"
	"github.com/sparsetag/sparsetag/train/internal/traintest"
)

// TestUniformBetaMax checks beta_max from counts (UniformBetaMax) feature
// by feature (a feature set of one feature at a time, then every feature)
// against two references on random tiny chains: central differences of the
// brute-force weighted loss at w = 0 (enumeration of every label sequence,
// so the uniform argument itself is checked) and the forward-backward pass
// at w = 0 (MaxAbsResidual, to 1e-12 relative). The cases cover
// transitions or none, pair attributes with real values, signed real unary
// values, sequence weights, dense blocks and one-position sequences.
func TestUniformBetaMax(t *testing.T) {
	for _, tc := range []struct {
		name                string
		L, maxT, pair       int
		real, trans, weight bool
		blocks              bool
	}{
		{"binary", 3, 4, 0, false, true, false, false},
		{"real-weights", 2, 5, 0, true, true, true, false},
		{"no-trans", 3, 3, 0, false, false, false, false},
		{"pairs", 3, 4, 2, true, true, true, false},
		{"multiclass", 4, 1, 0, true, true, false, false},
		{"blocks", 3, 4, 1, true, true, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(40, 41))
			c := randomCorpus(rng, 9, tc.maxT, 4, tc.pair, tc.L, tc.real)
			if tc.pair > 0 {
				c.Pair.Val = make([]float64, c.Pair.NNZ())
				for k := range c.Pair.Val {
					c.Pair.Val[k] = rng.NormFloat64()
				}
			}
			if tc.blocks {
				chaintest.AddDenseBlock(rng, c, 3, 4)
			}
			var s []float64
			if tc.weight {
				s = randomWeights(rng, c.Len())
			}
			m, err := chain.NewModel(labelNames(tc.L), c.NumUnary, tc.pair, tc.trans, nil)
			if err != nil {
				t.Fatal(err)
			}
			checkUniform(t, m, c, s)
		})
	}
}

// checkUniform runs TestUniformBetaMax's comparisons on one problem.
func checkUniform(t *testing.T, m *chain.Model, c *sparse.Corpus, s []float64) {
	t.Helper()
	o := New(m, c, Settings{})
	if err := o.SetWeights(s); err != nil {
		t.Fatal(err)
	}
	o.SetActive(nil, false)
	if _, _, err := o.Loss(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	o.fs.SetModel(false)
	all := o.fs.AllSlice()
	pass := o.Residuals(nil, all)
	brute := centralM(func(w []float64) float64 { return traintest.WeightedNLL(m, w, c.Expanded(), s) },
		make([]float64, len(m.W)), all)
	passMax := 0.0
	for k, j := range all {
		o.fs.SetAll([]int32{j})
		got, ok := o.UniformBetaMax()
		if !ok {
			t.Fatalf("feature %d: no closed form", j)
		}
		approxScalar(t, "against brute force", math.Abs(brute[k]), got, 1e-7, 1e-6)
		if d := math.Abs(got - math.Abs(pass[k])); d > 1e-12*math.Max(got, 1e-300) {
			t.Fatalf("feature %d (%v): %v, the pass %v", j, m.Layout.Decode(int(j)), got, math.Abs(pass[k]))
		}
		passMax = math.Max(passMax, math.Abs(pass[k]))
	}
	o.fs.SetAll(all)
	got, ok := o.UniformBetaMax()
	if !ok || math.Abs(got-passMax) > 1e-12*passMax || !(got > 0) {
		t.Fatalf("every feature: %v (%v), the pass %v", got, ok, passMax)
	}
	if mx := o.MaxAbsResidual(o.fs.All); mx != passMax {
		t.Fatalf("MaxAbsResidual %v, the residuals' max %v", mx, passMax)
	}
}

// TestUniformBetaMaxFallsBack: with a prior or partial labels the model
// at w = 0 is not uniform, so there is no closed form; a NaN value gives
// none either (the pass reports it).
func TestUniformBetaMaxFallsBack(t *testing.T) {
	rng := rand.New(rand.NewPCG(42, 43))
	c := randomCorpus(rng, 6, 3, 3, 0, 3, true)
	m, err := chain.NewModel(labelNames(3), 3, 0, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	o := New(m, c, Settings{})
	o.fs.SetModel(false)
	if _, ok := o.UniformBetaMax(); !ok {
		t.Fatal("no closed form without a prior")
	}
	w0 := make([]float64, len(m.W))
	w0[0] = 0.5
	if err := o.SetPrior(w0); err != nil {
		t.Fatal(err)
	}
	if _, ok := o.UniformBetaMax(); ok {
		t.Fatal("a closed form with a prior")
	}
	p := New(m, c, Settings{})
	p.fs.SetModel(false)
	if err := p.SetPartial(randomSets(rng, c, 3)); err != nil {
		t.Fatal(err)
	}
	if _, ok := p.UniformBetaMax(); ok {
		t.Fatal("a closed form with partial labels")
	}
	c.Unary.Val[0] = math.NaN()
	q := New(m, c, Settings{})
	q.fs.SetModel(false)
	if _, ok := q.UniformBetaMax(); ok {
		t.Fatal("a closed form with a NaN value")
	}
}

// TestSetModel: the feature set SetModel writes is every feature, less
// the transitions when the model has none, and with observedPairs less
// the state and pair features whose (weighted) observed count is 0, with
// and without transitions and pair attributes (real values).
func TestSetModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(47, 48))
	for _, trans := range []bool{true, false} {
		for _, pair := range []int{0, 2} {
			c := randomCorpus(rng, 12, 4, 6, pair, 4, true)
			m, err := chain.NewModel(labelNames(4), 8, pair, trans, nil)
			if err != nil {
				t.Fatal(err)
			}
			s := randomWeights(rng, c.Len())
			obs := ObservedCounts(m, c) // zero where the weighted counts are (real values: no cancellation)
			for _, observed := range []bool{true, false} {
				o := New(m, c, Settings{})
				if err := o.SetWeights(s); err != nil {
					t.Fatal(err)
				}
				var want []int32
				for j := range len(m.W) {
					isTrans := j >= m.Layout.TransOffset() && j < m.Layout.PairOffset()
					if (!isTrans || trans) && (isTrans || !observed || obs[j] != 0) {
						want = append(want, int32(j))
					}
				}
				o.fs.SetModel(observed)
				if got := o.fs.AllSlice(); !slices.Equal(got, want) || o.fs.Size() != len(want) {
					t.Fatalf("transitions %v, pairs %d, observed %v: %d features %v, want %d %v", trans, pair, observed, o.fs.Size(), got, len(want), want)
				}
			}
		}
	}
}
