package objective

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/train/internal/traintest"
)

// TestPriorAgainstBruteForce: with a prior w0 (SetPrior), the loss over an
// active set at x is the enumerated NLL at w0 + x (x scattered), and m over
// the active set and Residuals over every feature are the central
// differences of that NLL, in every scoring mode (dense rows, label lists,
// per-reference accumulation, scatter or fused counts), with binary and
// real values, transitions and pair attributes.
func TestPriorAgainstBruteForce(t *testing.T) {
	for _, tc := range []struct {
		name          string
		L, maxT, pair int
		real, trans   bool
	}{
		{"binary-trans", 3, 4, 0, false, true},
		{"real-trans", 3, 5, 0, true, true},
		{"no-trans", 3, 3, 0, false, false},
		{"pair-attrs", 3, 4, 2, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(5, 6))
			c := randomCorpus(rng, 7, tc.maxT, 4, tc.pair, tc.L, tc.real)
			m, err := chain.NewModel(labelNames(tc.L), 4, tc.pair, tc.trans, nil)
			if err != nil {
				t.Fatal(err)
			}
			w0 := make([]float64, len(m.W))
			for j := range w0 {
				w0[j] = rng.NormFloat64()
			}
			for _, cfg := range []struct {
				name    string
				budget  int
				keep    float64 // 1: every feature active, else label 0 of each attribute
				working bool
			}{{"dense-fused", 64 << 20, 1, false}, {"dense-scatter", 0, 1, false},
				{"lists-scatter", 0, 0.3, false}, {"lists-refs", 0, 0.3, true}, {"lists-fused", 64 << 20, 0.3, true}} {
				old := fusedBudget
				fusedBudget = cfg.budget
				o := New(m, c, Settings{Threads: 2})
				fusedBudget = old
				if err := o.SetPrior(w0); err != nil {
					t.Fatal(err)
				}
				var act []int32
				for j := range m.W {
					if cfg.keep == 1 || j%tc.L == 0 || j >= m.Layout.StateLen() {
						act = append(act, int32(j))
					}
				}
				o.SetActive(act, cfg.working)
				if o.sparseLabels != (cfg.keep < 1) || o.refFused != (cfg.working && cfg.budget == 0) {
					t.Fatalf("%s: label lists %v, per-reference counts %v: not the mode under test", cfg.name, o.sparseLabels, o.refFused)
				}
				x := make([]float64, len(act))
				for k := range x {
					x[k] = 0.5 * rng.NormFloat64()
				}
				mvec := make([]float64, len(act))
				f, err := o.evalM(context.Background(), x, mvec)
				if err != nil {
					t.Fatal(err)
				}
				w := append([]float64(nil), w0...)
				for k, j := range act {
					w[j] += x[k]
				}
				approxScalar(t, cfg.name+" loss", traintest.NLL(m, w, c), f, 1e-10, 1e-10)
				want := make([]float64, len(m.W))
				const h = 1e-5
				for j := range w {
					orig := w[j]
					w[j] = orig + h
					fp := traintest.NLL(m, w, c)
					w[j] = orig - h
					fm := traintest.NLL(m, w, c)
					w[j] = orig
					want[j] = -(fp - fm) / (2 * h)
				}
				wantAct := make([]float64, len(act))
				for k, j := range act {
					wantAct[k] = want[j]
				}
				approxEqual(t, cfg.name+" m", wantAct, mvec, 1e-7, 1e-6)
				approxEqual(t, cfg.name+" residuals", want, o.Residuals(nil, everyFeature(len(m.W))), 1e-7, 1e-6)
			}
		})
	}
}

// TestPriorZeroIsNoPrior: a zero prior gives the same bits as none.
func TestPriorZeroIsNoPrior(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	c := randomCorpus(rng, 20, 5, 5, 1, 3, true)
	m, _ := chain.NewModel(labelNames(3), 5, 1, true, nil)
	x := make([]float64, len(m.W))
	for j := range x {
		x[j] = rng.NormFloat64()
	}
	var got [2]float64
	var ms [2][]float64
	for k := range 2 {
		o := New(m, c, Settings{Threads: 1})
		if k == 1 {
			if err := o.SetPrior(make([]float64, len(m.W))); err != nil {
				t.Fatal(err)
			}
		}
		o.SetActive(everyFeature(len(m.W)), false)
		ms[k] = make([]float64, len(x))
		var err error
		if got[k], err = o.evalM(context.Background(), x, ms[k]); err != nil {
			t.Fatal(err)
		}
	}
	if got[0] != got[1] {
		t.Fatalf("loss %v without a prior, %v with a zero one", got[0], got[1])
	}
	for j := range ms[0] {
		if ms[0][j] != ms[1][j] {
			t.Fatalf("m[%d] = %v without a prior, %v with a zero one", j, ms[0][j], ms[1][j])
		}
	}
}
