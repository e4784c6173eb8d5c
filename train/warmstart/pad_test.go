package warmstart

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"unsafe"
)

// TestPadStarts: the padded blocks are in attribute order, disjoint, each
// at least its size apart; a block of 16 weights or more starts at a
// multiple of 8 when that wastes at most an eighth of it; the padding is
// at most an eighth of the blocks; without padding the starts are sptr.
func TestPadStarts(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	for trial := range 50 {
		sptr := make([]int32, 1+rng.IntN(60))
		for a := 1; a < len(sptr); a++ {
			n := int32(22)
			if trial%2 == 1 || rng.IntN(5) == 0 {
				n = int32(rng.IntN(30))
			}
			sptr[a] = sptr[a-1] + n
		}
		if got := padStarts(sptr, false); !slices.Equal(got, sptr) {
			t.Fatalf("unpadded starts %v, want %v", got, sptr)
		}
		vpos := padStarts(sptr, true)
		end := int32(0)
		aligned := 0
		for a := 0; a+1 < len(sptr); a++ {
			n, gap := sptr[a+1]-sptr[a], vpos[a]-end
			if gap < 0 || gap > 7 || vpos[a+1]-vpos[a] < n {
				t.Fatalf("block %d (%d weights) at %d after a block ending at %d", a, n, vpos[a], end)
			}
			want := int32(0)
			if g := (8 - end%8) % 8; n >= 16 && 8*g <= n {
				want = g
			}
			if gap != want {
				t.Fatalf("block %d (%d weights) after %d: gap %d, want %d", a, n, end, gap, want)
			}
			if n >= 16 && vpos[a]%8 == 0 {
				aligned++
			}
			end = vpos[a] + n
		}
		last := len(sptr) - 1
		if vpos[last] != end || 8*(vpos[last]-sptr[last]) > sptr[last] {
			t.Fatalf("state block of %d weights padded to %d (end %d)", sptr[last], vpos[last], end)
		}
		if trial%2 == 0 && len(sptr) > 5 && aligned == 0 {
			t.Fatalf("no block of 22 aligned: %v", vpos)
		}
	}
}

// TestAlignedFloats: the slice starts a cache line, has n zeros and no
// room to grow into the padding.
func TestAlignedFloats(t *testing.T) {
	for _, n := range []int{0, 1, 7, 8, 9, 1000, 100000} {
		x := alignedFloats(n)
		if len(x) != n || cap(x) != n {
			t.Fatalf("n=%d: len %d cap %d", n, len(x), cap(x))
		}
		if n > 0 && uintptr(unsafe.Pointer(&x[0]))%64 != 0 {
			t.Fatalf("n=%d: not aligned", n)
		}
		for _, v := range x {
			if v != 0 {
				t.Fatalf("n=%d: not zero", n)
			}
		}
	}
}

// TestPaddedSameBits: steps over padded blocks give the NLL, point and
// penalty of steps over unpadded ones, bit for bit (22 labels, so blocks
// of 16 to 22 weights are padded; frozen features, real values).
func TestPaddedSameBits(t *testing.T) {
	for _, tc := range listCases {
		pad := newListCasePadded(t, tc, 21, true)
		plain := newListCasePadded(t, tc, 21, false)
		if tc.labels >= 16 && pad.ns == plain.ns {
			t.Fatalf("%s: no padding (%d weights)", tc.name, pad.ns)
		}
		pad.lists = newAttrLists(pad, MaxListed)
		n := len(pad.lists.uPtr) - 1
		rng := rand.New(rand.NewPCG(4, 4))
		for k := range 60 {
			i, eta := rng.IntN(n), 0.6/(1+float64(k)/float64(n))
			if got, want := pad.step(i, rng.IntN(n), eta), plain.step(i, -1, eta); math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("%s: step %d: NLL %v, want %v", tc.name, k, got, want)
			}
		}
		if got, want := pad.penaltyValue(), plain.penaltyValue(); math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("%s: penalty %v, want %v", tc.name, got, want)
		}
		p, q := pad.point(), plain.point()
		if len(q.Idx) == 0 || !slices.Equal(p.Idx, q.Idx) || !sameBits(p.Val, q.Val) {
			t.Fatalf("%s: points of %d and %d weights differ", tc.name, len(p.Idx), len(q.Idx))
		}
	}
}
