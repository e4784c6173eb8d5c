package objective

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/sparse"
)

// perFeatureBetaMax is UniformBetaMax feature by feature (spanMax.span
// over every block), the loop before stateRow.
func perFeatureBetaMax(o *Objective) float64 {
	u := uniformCountsOf(o.c, o.m.Layout, o.weights)
	lay := o.m.Layout
	L := lay.L
	r := spanMax{in: o.fs.inSet, cur: o.obs.cursor(), inv: 1 / o.n}
	for a, e := range u.state {
		r.span(a*L, (a+1)*L, e)
	}
	r.span(lay.TransOffset(), lay.PairOffset(), u.trans)
	for a, e := range u.pair {
		r.span(lay.PairIndex(a, 0, 0), lay.PairIndex(a+1, 0, 0), e)
	}
	return r.best
}

// TestStateRowBetaMax: beta_max from counts taken a row of state features
// at a time is the feature-by-feature maximum bit for bit, with every
// feature in the set, the observed pairs only, and random subsets (rows
// partly in the set take the feature-by-feature loop), from sparse and
// dense counts, and row by row (NaN expectations among them).
func TestStateRowBetaMax(t *testing.T) {
	rng := rand.New(rand.NewPCG(40, 11))
	for trial := range 12 {
		L := []int{2, 3, 22, 70}[trial%4]
		c := skewedCorpus(rng, 40, 25, L, trial%2)
		m, err := chain.NewModel(labelNames(L), 25, trial%2, true, nil)
		if err != nil {
			t.Fatal(err)
		}
		budget := -1
		if trial%3 == 2 {
			budget = 64 << 20
		}
		o := New(m, c, Settings{Threads: 1, FusedBudget: budget})
		switch trial % 3 {
		case 1:
			o.fs.SetModel(true)
		case 2:
			var all []int32
			for j := range int32(len(m.W)) {
				if rng.Float64() < 0.97 {
					all = append(all, j)
				}
			}
			o.fs.SetAll(all)
		}
		got, ok := o.UniformBetaMax()
		want := perFeatureBetaMax(o)
		if !ok || math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("trial %d (L %d): beta_max %v (%v), feature by feature %v", trial, L, got, ok, want)
		}
		// Row by row, each from a fresh cursor and maximum: the same
		// value and NaN flag as the feature-by-feature loop.
		u := uniformCountsOf(o.c, m.Layout, nil)
		for a, e := range u.state {
			e := e
			if a%7 == 3 {
				e = math.NaN()
			}
			fast := spanMax{in: o.fs.inSet, cur: o.obs.cursor(), inv: 1 / o.n}
			slow := fast
			fast.stateRow(a*L, L, e)
			slow.span(a*L, (a+1)*L, e)
			if math.Float64bits(fast.best) != math.Float64bits(slow.best) || fast.nan != slow.nan {
				t.Fatalf("trial %d, attribute %d: %v (NaN %v), feature by feature %v (%v)", trial, a, fast.best, fast.nan, slow.best, slow.nan)
			}
		}
	}
}

// TestStateRowUnobserved: a row whose largest residual is that of its one
// label without a count (labels 0 and 1 seen once each of 3: |1 - 2/3| <
// |0 - 2/3|), and rows of every number of counts, against span.
func TestStateRowUnobserved(t *testing.T) {
	const L = 3
	in := sparse.NewBitset(4 * L)
	for j := range 4 * L {
		in.Set(j)
	}
	c := counts{stIdx: []int32{0, 1, 3, 6, 7, 8}, stVal: []float64{1, 1, 2, 1, 1, 1}, stateLen: 4 * L}
	for a, e := range []float64{2.0 / 3, 2.0 / 3, 1, 0.4} {
		fast := spanMax{in: in, cur: c.cursor(), inv: 0.5}
		slow := fast
		fast.stateRow(a*L, L, e)
		slow.span(a*L, (a+1)*L, e)
		if math.Float64bits(fast.best) != math.Float64bits(slow.best) {
			t.Fatalf("attribute %d: %v, feature by feature %v", a, fast.best, slow.best)
		}
	}
}

// TestAllIn checks the range test of bit sets against Has, with one bit
// clear at every place of three words and ranges over it and beside it.
func TestAllIn(t *testing.T) {
	for z := range 192 {
		b := sparse.NewBitset(192)
		for j := range 192 {
			if j != z {
				b.Set(j)
			}
		}
		for lo := range 192 {
			for n := 1; lo+n <= 192 && n <= 130; n++ {
				if want := z < lo || z >= lo+n; allIn(b, lo, n) != want {
					t.Fatalf("bit %d clear: allIn(%d, %d) = %v", z, lo, n, !want)
				}
			}
		}
	}
}
