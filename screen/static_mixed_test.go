package screen

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/sparsetag/sparsetag/sparse"
)

// TestRangeBoundsMixedExact: in a matrix where some attributes have real
// values (word vectors) and the others integers (binary template
// attributes stored with value 1, or counts), the bounds of the integer
// attributes are exact, bit for bit against enumeration, so that the tie
// B_j = c1 of a binary attribute seen once still screens; the real ones
// are never below the exact value.
func TestRangeBoundsMixedExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(38, 5))
	for trial := range 8 {
		L := 2 + trial%2
		numPair := 2 * (trial % 2)
		c := randomCorpus(rng, 5, 1, 4, 5, numPair, true)
		// Attributes 0 and 1 (and pair attribute 0) take integer values.
		integer := func(m *sparse.Matrix, a int32) bool { return a < 2 || (m == &c.Pair && a == 0) }
		for _, m := range []*sparse.Matrix{&c.Unary, &c.Pair} {
			for k, a := range m.Col {
				if integer(m, a) {
					m.Val[k] = math.Round(2 * m.Val[k])
				}
			}
		}
		b := &bruteCRF{lay: sparse.Layout{NumUnary: 5, L: L, NumPair: numPair, Transitions: true}, corpus: c}
		plantLabels(rng, b)
		b.build()
		_, _, _, exact := b.bruteRange()
		got, err := RangeBounds(nil, b.lay, c)
		if err != nil {
			t.Fatal(err)
		}
		checked := 0
		for j := range got {
			f := b.lay.Decode(j)
			isInt := f.Block == sparse.TransBlock ||
				(f.Block == sparse.StateBlock && integer(&c.Unary, int32(f.Attr))) ||
				(f.Block == sparse.PairBlock && integer(&c.Pair, int32(f.Attr)))
			if isInt && got[j] != exact[j] {
				t.Fatalf("trial %d: integer feature %d: B = %.17g, want exactly %.17g", trial, j, got[j], exact[j])
			}
			if !(got[j] >= exact[j]) || got[j] > exact[j]+1e-9*(1+exact[j]) {
				t.Fatalf("trial %d: feature %d: B = %.17g, exact %.17g", trial, j, got[j], exact[j])
			}
			if isInt {
				checked++
			}
		}
		if checked == 0 {
			t.Fatal("no integer feature checked")
		}
	}
}
