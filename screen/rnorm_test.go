package screen

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/sparsetag/sparsetag/internal/numtest"
	"github.com/sparsetag/sparsetag/sparse"
)

// TestRnormBruteForce compares every closed form and the pair DP with
// (max - min)/2 of each feature over all label sequences on tiny chains,
// binary and real-valued (mixed sign), L = 2, 3, 4.
func TestRnormBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 1))
	for trial := 0; trial < 36; trial++ {
		L := 2 + trial%3
		maxT := 6
		if L == 4 {
			maxT = 5
		}
		c := randomCorpus(rng, 3+trial%4, 0, maxT, 4, 3, trial%2 == 0)
		b := &bruteCRF{lay: sparse.Layout{NumUnary: 4, L: L, NumPair: 3, Transitions: true}, corpus: c}
		b.build()
		want := b.rnorm()
		got, err := Rnorm(nil, b.lay, c)
		if err != nil {
			t.Fatal(err)
		}
		numtest.RequireSlices(t, want, got, 1e-12, 1e-12, "Rnorm")
	}
}

// TestRnormPairRuns checks the pair DP on hand-made runs of consecutive and
// separated positions with mixed signs, where the half-range is known: for
// values (+1, -1, +1) on consecutive positions 1..3 and L = 2, the off-diagonal
// feature (0 -> 1) can collect at most +2 (positions 1 and 3: y = 0,1,0,1) and
// at least -1, so R = 1.5; the diagonal (0 -> 0) collects at most 1 (one
// positive step: a 0 -> 0 -> 0 -> 0 path would also take -1) -- e.g. y =
// 0,0,1,0 collects +1 only at t = 1 -- and at least -1, so R = 1.
func TestRnormPairRuns(t *testing.T) {
	var x sparse.Matrix
	x.AppendRow(nil, nil)
	x.AppendRow([]int32{0}, []float64{1})
	x.AppendRow([]int32{0}, []float64{-1})
	x.AppendRow([]int32{0}, []float64{1})
	seq := []int32{0, 4}
	got := pairRnorm(nil, &x, seq, 1, 2, nil)
	numtest.RequireSlices(t, []float64{1, 1.5}, got, 1e-15, 0, "pairRnorm")
	// State and transitions on the same sequence: R = 3/2, diag 3/2, off 1.
	numtest.RequireSlices(t, []float64{1.5}, stateRnorm(nil, &x, seq, 1, nil), 1e-15, 0, "stateRnorm")
	d, o := transitionRnorm(seq, nil)
	numtest.RequireSlices(t, []float64{1.5, 1}, []float64{d, o}, 1e-15, 0, "transitionRnorm")
}

// TestRnormLayout checks that Rnorm refuses a layout the corpus does not fit,
// fills the transition block whether or not the model has transition
// features, and reuses dst.
func TestRnormLayout(t *testing.T) {
	c := &sparse.Corpus{NumUnary: 2, NumPair: 1}
	c.AppendSequence([][]int32{{0}, {1}, {0, 1}}, nil, [][]int32{nil, {0}, {0}}, nil, []int32{0, 1, 2})
	for _, bad := range []sparse.Layout{
		{NumUnary: 2, L: 0, NumPair: 1},  // no labels
		{NumUnary: 1, L: 3, NumPair: 1},  // too few unary attributes
		{NumUnary: 2, L: 3, NumPair: 0},  // too few pair attributes
		{NumUnary: 2, L: 2, NumPair: 1},  // label 2 out of range
		{NumUnary: -1, L: 3, NumPair: 1}, // negative count
	} {
		if _, err := Rnorm(nil, bad, c); err == nil {
			t.Errorf("Rnorm accepted layout %+v", bad)
		}
	}
	lay := sparse.Layout{NumUnary: 3, L: 3, NumPair: 2}
	without, err := Rnorm(nil, lay, c)
	if err != nil {
		t.Fatal(err)
	}
	lay.Transitions = true
	dst := make([]float64, 0, 100)
	with, err := Rnorm(dst, lay, c)
	if err != nil {
		t.Fatal(err)
	}
	if &with[0] != &dst[:1][0] {
		t.Error("Rnorm did not reuse dst")
	}
	numtest.RequireSlices(t, without, with, 0, 0, "Rnorm with transitions")
	// T = 3: transition diagonal (T-1)/2 = 1, off-diagonal floor(3/2)/2 = 1/2.
	numtest.RequireSlices(t, []float64{1, 0.5, 0.5}, with[lay.TransIndex(0, 0):lay.TransIndex(1, 0)], 0, 0, "transition block")
	// Attribute 2 never fires: its state features have Rnorm 0.
	numtest.RequireSlices(t, []float64{0, 0, 0}, with[lay.StateIndex(2, 0):lay.TransOffset()], 0, 0, "unused attribute")
}

// TestConstantsRowOrder: a row whose attributes are increasing takes the
// constants' loop without staging (increasing), any other the staged one;
// the two give the same bits. The same corpus with every row reversed
// (each attribute still once per row, so every sum gets the same additions
// in the same order) must give WeightedRnorm's and the range rule's bounds
// bit for bit, with signed real values, sequence weights and the range
// rule split over goroutines.
func TestConstantsRowOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(50, 51))
	const U, L = 9, 3
	var fwd, rev sparse.Corpus
	fwd.NumUnary, rev.NumUnary = U, U
	for range 40 {
		T := 1 + rng.IntN(6)
		var uf, ur [][]int32
		var vf, vr [][]float64
		labels := make([]int32, T)
		for t := range T {
			var ids []int32
			var vals []float64
			for a := range U {
				if rng.IntN(2) == 0 {
					ids, vals = append(ids, int32(a)), append(vals, rng.NormFloat64())
				}
			}
			uf, vf = append(uf, ids), append(vf, vals)
			ri, rv := slices.Clone(ids), slices.Clone(vals)
			slices.Reverse(ri)
			slices.Reverse(rv)
			ur, vr = append(ur, ri), append(vr, rv)
			labels[t] = int32(rng.IntN(L))
		}
		fwd.AppendSequence(uf, vf, nil, nil, labels)
		rev.AppendSequence(ur, vr, nil, nil, labels)
	}
	lay := sparse.Layout{NumUnary: U, L: L, Transitions: true}
	s := make([]float64, fwd.Len())
	for i := range s {
		s[i] = 0.5 + rng.Float64()
	}
	for _, w := range [][]float64{nil, s} {
		a, err := WeightedRnorm(nil, lay, &fwd, w)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := WeightedRnorm(nil, lay, &rev, w)
		requireBits(t, "Rnorm", a, b)
		for _, threads := range []int{1, 3} {
			a, err := weightedRangeBounds(nil, lay, &fwd, w, threads, 2)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := weightedRangeBounds(nil, lay, &rev, w, threads, 2)
			requireBits(t, "range bounds", a, b)
		}
	}
}

// requireBits fails unless a and b hold the same bits.
func requireBits(t *testing.T, name string, a, b []float64) {
	t.Helper()
	if len(a) != len(b) {
		t.Fatalf("%s: lengths %d and %d", name, len(a), len(b))
	}
	for j := range a {
		if math.Float64bits(a[j]) != math.Float64bits(b[j]) {
			t.Fatalf("%s[%d]: %v and %v", name, j, a[j], b[j])
		}
	}
}
