package features

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSort16 checks the sorting network on every input of zeros and ones
// (which proves it sorts every input, by the 0-1 principle) and
// sortDedup16 against slices.Sort and slices.Compact on random rows of 2 to
// 16 ids with repeats, some of them math.MaxInt32 (the padding value).
func TestSort16(t *testing.T) {
	for bits := range 1 << 16 {
		var a [16]int32
		for i := range a {
			a[i] = int32(bits >> i & 1)
		}
		want := a
		slices.Sort(want[:])
		if sort16(&a); a != want {
			t.Fatalf("sort16 of the bits of %#x: %v", bits, a)
		}
	}
	r := rand.New(rand.NewPCG(4, 4))
	for range 20000 {
		ids := make([]int32, 2+r.IntN(15))
		for i := range ids {
			switch r.IntN(8) {
			case 0:
				ids[i] = math.MaxInt32
			case 1:
				ids[i] = -r.Int32()
			default:
				ids[i] = r.Int32N(1 + r.Int32N(100))
			}
		}
		want := slices.Compact(slices.Sorted(slices.Values(ids)))
		if got := sortDedup16(slices.Clone(ids)); !slices.Equal(got, want) {
			t.Fatalf("sortDedup16(%v) = %v, want %v", ids, got, want)
		}
	}
}
