package train

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/screen"
	"github.com/sparsetag/sparsetag/sparse"
)

// rareCorpus builds n random sequences of length 1..maxT where each position
// has two of numAttr attributes (binary, or signed reals), so that most
// attributes are seen only a few times, as in text, plus one of numPair pair
// attributes at half of the positions; labels are uniform in [0, L).
func rareCorpus(rng *rand.Rand, n, maxT, numAttr, numPair, L int, real bool) *sparse.Corpus {
	c := &sparse.Corpus{NumUnary: numAttr, NumPair: numPair}
	for i := 0; i < n; i++ {
		T := 1 + rng.IntN(maxT)
		unary := make([][]int32, T)
		var uval, pval [][]float64
		if real {
			uval = make([][]float64, T)
		}
		var pair [][]int32
		if numPair > 0 {
			pair = make([][]int32, T)
			if real {
				pval = make([][]float64, T)
			}
		}
		labels := make([]int32, T)
		for t := 0; t < T; t++ {
			for k := 0; k < 2; k++ {
				unary[t] = append(unary[t], int32(rng.IntN(numAttr)))
				if real {
					uval[t] = append(uval[t], rng.NormFloat64())
				}
			}
			if numPair > 0 && rng.IntN(2) == 0 {
				pair[t] = append(pair[t], int32(rng.IntN(numPair)))
				if real {
					pval[t] = append(pval[t], rng.NormFloat64())
				}
			}
			labels[t] = int32(rng.IntN(L))
		}
		c.AppendSequence(unary, uval, pair, pval, labels)
	}
	return c
}

// TestStaticRangeRuleSafe is the end-to-end check of screen.RangeScreen
// against the real trainer: train without screening to a gap of 1e-12 in the
// sum form (CRFsuite's c1, c2) at several c1 on tiny random chains (binary
// and signed real attributes, with and without transitions, with pair
// attributes), and assert that every feature with B_j <= c1 is zero at the
// optimum: |w_j| <= sqrt(2G/lam2), the certified distance to w* (section 2
// of the note), and in fact exactly 0. It also asserts that the rule removes
// features, that the optima have non-zero weights, and that halved bounds
// (an unsafe rule) would remove a feature whose weight is certainly
// non-zero, so that this test can fail.
func TestStaticRangeRuleSafe(t *testing.T) {
	if testing.Short() {
		t.Skip("trains to a gap of 1e-12")
	}
	rng := rand.New(rand.NewPCG(31, 1))
	removed, nonzero, caught := 0, 0, 0
	for trial := 0; trial < 6; trial++ {
		L := 2 + trial%2
		real := trial%3 == 2
		trans := trial%4 != 3
		numPair := 0
		if trial%2 == 1 {
			numPair = 2
		}
		c := rareCorpus(rng, 10, 4, 15, numPair, L, real)
		lay := sparse.Layout{NumUnary: c.NumUnary, L: L, NumPair: numPair}
		B, err := screen.RangeBounds(nil, lay, c)
		if err != nil {
			t.Fatal(err)
		}
		for _, c1 := range []float64{0.5, 1, 2, 3, 5} {
			m, err := chain.NewModel(labelNames(L), c.NumUnary, numPair, trans, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(B) != len(m.W) {
				t.Fatalf("layout has %d features, model %d", len(B), len(m.W))
			}
			res, err := Train(context.Background(), m, c, Options{
				Problem:   Problem{SumForm: true, C1: c1, C2: 0.1},
				Stopping:  Stopping{Epsilon: 1e-12, MaxIter: 20000},
				Method:    Method{Screen: ScreenNone},
				Resources: Resources{Threads: 1},
			})
			if err != nil {
				t.Fatal(err)
			}
			if !res.Converged {
				t.Fatalf("trial %d c1 = %v: not converged (%s, gap %v)", trial, c1, res.StopReason, res.Gap)
			}
			rad := math.Sqrt(2 * res.Gap / res.Lambda2)
			scr := make([]bool, len(B))
			removed += screen.RangeScreen(scr, B, c1)
			half := make([]float64, len(B))
			for j := range B {
				half[j] = B[j] / 2
			}
			unsafe := make([]bool, len(B))
			screen.RangeScreen(unsafe, half, c1)
			for j, w := range m.W {
				if math.Abs(w) > rad {
					nonzero++
					if unsafe[j] {
						caught++
					}
				}
				if scr[j] && (w != 0 || math.Abs(w) > rad) {
					t.Fatalf("trial %d c1 = %v: feature %d has B = %v <= c1 but w = %v (certified radius %v)", trial, c1, j, B[j], w, rad)
				}
			}
		}
	}
	t.Logf("removed %d, certainly non-zero %d, of which a halved bound would remove %d", removed, nonzero, caught)
	if removed == 0 || nonzero == 0 || caught == 0 {
		t.Fatalf("vacuous test: removed %d, non-zero %d, caught %d", removed, nonzero, caught)
	}
}
