package objective

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/internal/chaintest"
	"github.com/sparsetag/sparsetag/sparse"
	"github.com/sparsetag/sparsetag/train/internal/traintest"
)

// partialNLL is the partial-label loss by enumeration: the average over
// sequences of log Z minus the log-sum-exp of the scores of the label
// sequences the sets allow.
func partialNLL(m *chain.Model, w []float64, c *sparse.Corpus, s *LabelSets) float64 {
	total := 0.0
	for i := 0; i < c.Len(); i++ {
		start, T := c.Span(i)
		var all, allowed []float64
		y := make([]int, T)
		for {
			sc := traintest.Score(m, w, c, i, y)
			all = append(all, sc)
			ok := true
			for t := range T {
				ok = ok && s.Has(start+t, y[t])
			}
			if ok {
				allowed = append(allowed, sc)
			}
			if !chaintest.NextPath(y, m.NumLabels()) {
				break
			}
		}
		total += floats.LogSumExp(all) - floats.LogSumExp(allowed)
	}
	return total / float64(c.Len())
}

// randomSets allows, at each position, its gold label alone (a third of
// the positions), every label (a third), or the gold label and a random
// subset of the others.
func randomSets(rng *rand.Rand, c *sparse.Corpus, L int) *LabelSets {
	s := NewLabelSets(c.Positions(), L)
	for p := range c.Positions() {
		switch rng.IntN(3) {
		case 0:
			s.Allow(p, int(c.Labels[p]))
		case 1:
			s.AllowAll(p)
		default:
			s.Allow(p, int(c.Labels[p]))
			for y := range L {
				if rng.IntN(2) == 0 {
					s.Allow(p, y)
				}
			}
		}
	}
	return s
}

// TestPartialAgainstBruteForce: with partial labels (SetPartial) the loss
// is the enumerated constrained log-partition difference, and m over an
// active set and Residuals over every feature are its central differences,
// in every scoring and accumulation mode, with real values, with and
// without transitions, and with a prior.
func TestPartialAgainstBruteForce(t *testing.T) {
	for _, tc := range []struct {
		name        string
		L, maxT     int
		real, trans bool
		prior       bool
	}{
		{"binary-trans", 3, 4, false, true, false},
		{"real-trans", 3, 5, true, true, false},
		{"no-trans", 3, 3, false, false, false},
		{"prior", 3, 4, true, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(9, 10))
			c := randomCorpus(rng, 7, tc.maxT, 4, 0, tc.L, tc.real)
			m, err := chain.NewModel(labelNames(tc.L), 4, 0, tc.trans, nil)
			if err != nil {
				t.Fatal(err)
			}
			sets := randomSets(rng, c, tc.L)
			w0 := make([]float64, len(m.W))
			if tc.prior {
				for j := range w0 {
					w0[j] = rng.NormFloat64()
				}
			}
			for _, cfg := range []struct {
				name    string
				budget  int
				keep    float64
				working bool
			}{{"dense-fused", 64 << 20, 1, false}, {"dense-scatter", -1, 1, false},
				{"lists-scatter", -1, 0.3, false}, {"lists-refs", -1, 0.3, true}} {
				o := New(m, c, Settings{Threads: 2, FusedBudget: cfg.budget})
				if tc.prior {
					if err := o.SetPrior(w0); err != nil {
						t.Fatal(err)
					}
				}
				if err := o.SetPartial(sets); err != nil {
					t.Fatal(err)
				}
				var act []int32
				for j := range m.W {
					if cfg.keep == 1 || j%tc.L == 0 || j >= m.Layout.StateLen() {
						act = append(act, int32(j))
					}
				}
				o.SetActive(act, cfg.working)
				x := make([]float64, len(act))
				for k := range x {
					x[k] = 0.5 * rng.NormFloat64()
				}
				f, mvec, w := evalAt(t, o, act, x, w0)
				requireBrute(t, cfg.name, func(w []float64) float64 { return partialNLL(m, w, c, sets) }, w, act, f, mvec, o)
			}
		})
	}
}

// evalTwoWays evaluates the loss and m at a random point of a random chain
// twice, with the objective configured by set(o, k) for k = 0 and 1; sets
// gets the gold label of every position and, when wider, a second label at
// every third position.
func evalTwoWays(t *testing.T, seed uint64, wider bool, set func(o *Objective, sets *LabelSets, k int) error) (f [2]float64, ms [2][]float64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, seed+1))
	c := randomCorpus(rng, 15, 5, 4, 0, 3, true)
	m, _ := chain.NewModel(labelNames(3), 4, 0, true, nil)
	x := make([]float64, len(m.W))
	for j := range x {
		x[j] = rng.NormFloat64()
	}
	sets := NewLabelSets(c.Positions(), 3)
	for p := range c.Positions() {
		sets.Allow(p, int(c.Labels[p]))
		if wider && p%3 == 0 {
			sets.Allow(p, (int(c.Labels[p])+1)%3)
		}
	}
	for k := range 2 {
		o := New(m, c, Settings{Threads: 1})
		if err := set(o, sets, k); err != nil {
			t.Fatal(err)
		}
		o.SetActive(everyFeature(len(m.W)), false)
		ms[k] = make([]float64, len(x))
		var err error
		if f[k], err = o.evalM(context.Background(), x, ms[k]); err != nil {
			t.Fatal(err)
		}
	}
	return f, ms
}

// TestPartialSingletonsAreFullLabels: sets holding the gold label alone
// give the fully labeled loss and m.
func TestPartialSingletonsAreFullLabels(t *testing.T) {
	f, ms := evalTwoWays(t, 11, false, func(o *Objective, sets *LabelSets, k int) error {
		if k == 1 {
			return o.SetPartial(sets)
		}
		return nil
	})
	approxScalar(t, "loss", f[0], f[1], 1e-12, 1e-12)
	approxEqual(t, "m", ms[0], ms[1], 1e-12, 1e-12)
}

// TestPartialKeepsCountsAfterNilWeights: SetWeights(nil) after SetPartial
// leaves the partial-label objective as it was (its observed counts stay
// SetPartial's): the loss and m are the same bits with and without the call.
func TestPartialKeepsCountsAfterNilWeights(t *testing.T) {
	f, ms := evalTwoWays(t, 13, true, func(o *Objective, sets *LabelSets, k int) error {
		if err := o.SetPartial(sets); err != nil || k == 0 {
			return err
		}
		return o.SetWeights(nil)
	})
	if math.Float64bits(f[0]) != math.Float64bits(f[1]) {
		t.Fatalf("loss %v after SetWeights(nil), want %v", f[1], f[0])
	}
	approxEqual(t, "m", ms[1], ms[0], 0, 0)
}

// TestPartialRefused: empty sets, mismatched sizes and pair attributes are
// errors, and an evaluation in which a sequence's sets admit no path of
// finite score returns ErrNoPath.
func TestPartialRefused(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	c := randomCorpus(rng, 3, 3, 4, 0, 2, false)
	m, _ := chain.NewModel(labelNames(2), 4, 0, true, nil)
	o := New(m, c, Settings{})
	if err := o.SetPartial(NewLabelSets(c.Positions(), 2)); err == nil {
		t.Error("empty sets: no error")
	}
	if err := o.SetPartial(NewLabelSets(c.Positions()+1, 2)); err == nil {
		t.Error("sets of another size: no error")
	}
	cp := randomCorpus(rng, 3, 3, 4, 1, 2, false)
	mp, _ := chain.NewModel(labelNames(2), 4, 1, true, nil)
	s := NewLabelSets(cp.Positions(), 2)
	for p := range cp.Positions() {
		s.AllowAll(p)
	}
	if err := New(mp, cp, Settings{}).SetPartial(s); err == nil {
		t.Error("pair attributes: no error")
	}
	// Infinite weights on every allowed path: no finite path.
	full := NewLabelSets(c.Positions(), 2)
	for p := range c.Positions() {
		full.Allow(p, 0)
	}
	o = New(m, c, Settings{})
	if err := o.SetPartial(full); err != nil {
		t.Fatal(err)
	}
	o.SetActive(everyFeature(len(m.W)), false)
	x := make([]float64, len(m.W))
	for j := 0; j < m.Layout.StateLen(); j += 2 {
		x[j] = math.Inf(-1) // label 0 impossible wherever an attribute fires
	}
	if _, err := o.evalM(context.Background(), x, make([]float64, len(x))); !errors.Is(err, ErrNoPath) {
		t.Errorf("no path: got %v, want ErrNoPath", err)
	}
}
