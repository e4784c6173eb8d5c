package screen

import (
	"iter"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/sparsetag/sparsetag/sparse"
)

// goldCounts returns the gold state counts of c under the layout's L
// (entry by entry, repeats counted), as a dense block and as the sparse
// sequence CountedRangeBounds reads.
func goldCounts(c *sparse.Corpus, U, L int) ([]float64, iter.Seq2[int32, float64]) {
	obs := make([]float64, U*L)
	for p := 0; p < c.Positions(); p++ {
		cols, _ := c.Unary.Row(p)
		for _, a := range cols {
			obs[int(a)*L+int(c.Labels[p])]++
		}
	}
	return obs, func(yield func(int32, float64) bool) {
		for j, v := range obs {
			if v != 0 && !yield(int32(j), v) {
				return
			}
		}
	}
}

// TestCountedRangeBounds: the bounds from the gold counts are
// WeightedRangeBounds's (unit weights) bit for bit on binary corpora with
// repeated attributes in a row, pair attributes, attributes of the layout
// the corpus never uses (among and after the others), 1 to 5 labels and no sequence, written over a
// dst full of other values.
func TestCountedRangeBounds(t *testing.T) {
	rng := rand.New(rand.NewPCG(40, 6))
	for trial := range 24 {
		L := 1 + trial%5
		numPair := trial % 3
		n := 25
		if trial == 23 {
			n = 0
		}
		c := randomCorpus(rng, n, 1, 7, 9, numPair, false)
		for k, a := range c.Unary.Col { // attributes 3 and 4 never fire
			if a >= 3 {
				c.Unary.Col[k] = a + 2
			}
		}
		c.NumUnary += 2
		c.Labels = make([]int32, c.Positions())
		for p := range c.Labels {
			c.Labels[p] = int32(rng.IntN(L))
		}
		lay := sparse.Layout{NumUnary: 11 + trial%4, L: L, NumPair: numPair, Transitions: true}
		want, err := WeightedRangeBounds(nil, lay, c, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, obs := goldCounts(c, lay.NumUnary, L)
		dst := make([]float64, lay.Dim()+3)
		for j := range dst {
			dst[j] = rng.NormFloat64()
		}
		got, err := CountedRangeBounds(dst, lay, c, obs)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("trial %d: %d bounds, want %d", trial, len(got), len(want))
		}
		for j := range want {
			if math.Float64bits(got[j]) != math.Float64bits(want[j]) {
				t.Fatalf("trial %d (L %d): bound %d = %v, RangeBounds %v", trial, L, j, got[j], want[j])
			}
		}
	}
}

// TestCountedRangeBoundsRefuses: a valued corpus, counts out of order or
// outside the state block are errors.
func TestCountedRangeBoundsRefuses(t *testing.T) {
	rng := rand.New(rand.NewPCG(40, 7))
	c := randomCorpus(rng, 5, 1, 4, 4, 0, false)
	c.Labels = make([]int32, c.Positions())
	lay := sparse.Layout{NumUnary: 4, L: 3, Transitions: true}
	seq := func(js ...int32) iter.Seq2[int32, float64] {
		return func(yield func(int32, float64) bool) {
			for _, j := range js {
				if !yield(j, 1) {
					return
				}
			}
		}
	}
	for name, obs := range map[string]iter.Seq2[int32, float64]{
		"decreasing": seq(4, 2), "repeated": seq(2, 2), "past the state block": seq(1, 12), "negative": seq(-1),
	} {
		if _, err := CountedRangeBounds(nil, lay, c, obs); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	v := randomCorpus(rng, 5, 1, 4, 4, 0, true)
	v.Labels = make([]int32, v.Positions())
	if _, err := CountedRangeBounds(nil, lay, v, seq(0)); err == nil {
		t.Error("valued corpus: no error")
	}
}
