package objective

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/internal/chaintest"
	"github.com/sparsetag/sparsetag/screen"
	"github.com/sparsetag/sparsetag/sparse"
	"github.com/sparsetag/sparsetag/train/internal/traintest"
)

// denseCase is a random corpus with two dense blocks and its sparse twin
// (the blocks expanded into Unary), and a model layout over both.
func denseCase(t *testing.T, seed uint64, L, pair int, real bool) (dn, sp *sparse.Corpus, m *chain.Model) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 5))
	dn = randomCorpus(rng, 30, 70, 5, pair, L, real) // sequences longer than countChunk too
	chaintest.AddDenseBlock(rng, dn, 4, 7)
	chaintest.AddDenseBlock(rng, dn, 3, 5)
	if err := dn.Validate(L); err != nil {
		t.Fatal(err)
	}
	sp = dn.Expanded()
	m, err := chain.NewModel(labelNames(L), dn.NumUnary, pair, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	return dn, sp, m
}

// relClose fails unless got and want agree to tol relative to the largest
// |want| (and 1e-300).
func relClose(t *testing.T, name string, want, got []float64, tol float64) {
	t.Helper()
	if len(want) != len(got) {
		t.Fatalf("%s: %d values, want %d", name, len(got), len(want))
	}
	scale := 1e-300
	for _, v := range want {
		scale = math.Max(scale, math.Abs(v))
	}
	for k := range want {
		if !(math.Abs(got[k]-want[k]) <= tol*scale) {
			t.Fatalf("%s[%d] = %v, want %v (scale %g)", name, k, got[k], want[k], scale)
		}
	}
}

// TestDenseBlocksAgainstSparse evaluates the objective on a corpus with
// dense blocks and on its expansion into sparse rows, in every mode
// (fused, scatter, working set with per-reference counts, label lists,
// the compacted corpus), with sequence weights and a prior: the loss, m
// over the active set and the residuals of every feature agree to 1e-12
// relative, and so does the duality gap (the certificate) formed from them.
func TestDenseBlocksAgainstSparse(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name          string
		budget        int
		workingSet    bool
		frac, keep    float64
		weights, prio bool
	}{
		{"fused", 64 << 20, false, 0.5, 0.8, false, false},
		{"scatter", -1, false, 0.5, 0.8, false, false},
		{"working-set", -1, true, 0.5, 0.8, false, false},
		{"dense-rows", -1, false, 0, 2, false, false},
		{"weights", -1, false, 0.5, 0.8, true, false},
		{"prior", 64 << 20, true, 0.5, 0.8, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dn, sp, m := denseCase(t, 3, 4, 1, true)
			rng := rand.New(rand.NewPCG(9, 9))
			var act []int32
			for j := range len(m.W) {
				if j >= m.Layout.StateLen() || rng.IntN(3) > 0 {
					act = append(act, int32(j))
				}
			}
			x := make([]float64, len(act))
			for k := range x {
				x[k] = rng.NormFloat64()
			}
			var s, w0 []float64
			if tc.weights {
				s = make([]float64, dn.Len())
				for i := range s {
					s[i] = 0.5 + rng.Float64()
				}
			}
			if tc.prio {
				w0 = make([]float64, len(m.W))
				for j := range w0 {
					w0[j] = rng.NormFloat64()
				}
			}
			var f [2]float64
			var mv, res [2][]float64
			for k, c := range []*sparse.Corpus{dn, sp} {
				for _, threads := range []int{1, 3} {
					o := New(m, c, Settings{Threads: threads, FusedBudget: tc.budget})
					o.tune.sparseLabelFraction, o.tune.liveKeep = tc.frac, tc.keep
					if err := o.SetWeights(s); err != nil {
						t.Fatal(err)
					}
					if err := o.SetPrior(w0); err != nil {
						t.Fatal(err)
					}
					o.SetActive(act, tc.workingSet)
					fk, err := o.evalM(ctx, x, make([]float64, len(act)))
					if err != nil {
						t.Fatal(err)
					}
					mk := append([]float64(nil), o.M()...)
					rk := o.Residuals(nil, everyFeature(len(m.W)))
					if threads > 1 {
						// Whatever the number of workers: the same bits.
						if fk != f[k] || !equalBits(mk, mv[k]) || !equalBits(rk, res[k]) {
							t.Fatalf("corpus %d: 3 workers give other numbers than 1", k)
						}
						continue
					}
					f[k], mv[k], res[k] = fk, mk, rk
				}
			}
			relClose(t, "loss", f[1:], f[:1], 1e-12)
			relClose(t, "m", mv[1], mv[0], 1e-12)
			relClose(t, "residuals", res[1], res[0], 1e-12)
			// The certificate: the Fenchel-Young gap at the point (the
			// active weights, zero elsewhere) from the residuals of every
			// feature, as the trainer forms it.
			w := make([]float64, len(m.W))
			sparse.Scatter(w, x, act)
			gaps := []float64{screen.GapSum(w, res[0], 0.01, 0.1), screen.GapSum(w, res[1], 0.01, 0.1)}
			if !(gaps[0] > 0) {
				t.Fatalf("gap %v", gaps[0])
			}
			relClose(t, "gap", gaps[1:], gaps[:1], 1e-12)
		})
	}
}

// equalBits reports whether a and b hold the same float64 bits.
func equalBits(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if math.Float64bits(a[k]) != math.Float64bits(b[k]) {
			return false
		}
	}
	return true
}

// TestDenseBlocksBruteForce checks the objective over dense blocks on a
// tiny chain against enumeration of every label sequence (traintest.NLL
// on the expanded corpus) and central differences of it, every feature
// active and, for the residuals, every feature of the model.
func TestDenseBlocksBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	c := randomCorpus(rng, 6, 4, 3, 0, 3, false)
	chaintest.AddDenseBlock(rng, c, 3, 4)
	sp := c.Expanded()
	m, err := chain.NewModel(labelNames(3), c.NumUnary, 0, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, budget := range []int{64 << 20, -1} {
		o := New(m, c, Settings{Threads: 2, FusedBudget: budget})
		all := everyFeature(len(m.W))
		o.SetActive(all, false)
		x := make([]float64, len(all))
		for k := range x {
			x[k] = rng.NormFloat64()
		}
		f, mv, w := evalAt(t, o, all, x, nil)
		requireBrute(t, "dense", func(w []float64) float64 { return traintest.NLL(m, w, sp) }, w, all, f, mv, o)
	}
}

// TestDenseBlocksPartial compares the partial-label objective over dense
// blocks with that of the expanded corpus (random allowed sets, every
// feature active): loss and m within 1e-12.
func TestDenseBlocksPartial(t *testing.T) {
	dn, sp, m := denseCase(t, 11, 3, 0, false)
	rng := rand.New(rand.NewPCG(2, 2))
	sets := NewLabelSets(dn.Positions(), 3)
	for p := range dn.Positions() {
		sets.Allow(p, int(dn.Labels[p]))
		if rng.IntN(2) == 0 {
			sets.Allow(p, rng.IntN(3))
		}
	}
	all := everyFeature(len(m.W))
	x := make([]float64, len(all))
	for k := range x {
		x[k] = rng.NormFloat64()
	}
	var f [2]float64
	var mv [2][]float64
	for k, c := range []*sparse.Corpus{dn, sp} {
		o := New(m, c, Settings{Threads: 2, FusedBudget: -1})
		if err := o.SetPartial(sets); err != nil {
			t.Fatal(err)
		}
		o.SetActive(all, false)
		mv[k] = make([]float64, len(all))
		var err error
		if f[k], err = o.evalM(context.Background(), x, mv[k]); err != nil {
			t.Fatal(err)
		}
	}
	relClose(t, "loss", f[1:], f[:1], 1e-12)
	relClose(t, "m", mv[1], mv[0], 1e-12)
}
