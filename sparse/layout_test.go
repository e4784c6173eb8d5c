package sparse

import (
	"fmt"
	"testing"
)

// TestLayoutOffsets checks the offsets of a small layout against the block
// sizes written out by hand: U=3, L=2, P=2 gives 6 state, 4 transition and
// 8 pair entries.
func TestLayoutOffsets(t *testing.T) {
	l := Layout{NumUnary: 3, L: 2, NumPair: 2, Transitions: true}
	for _, c := range []struct {
		name      string
		got, want int
	}{
		{"StateLen", l.StateLen(), 6},
		{"TransOffset", l.TransOffset(), 6},
		{"PairOffset", l.PairOffset(), 10},
		{"Dim", l.Dim(), 18},
		{"StateIndex(2,1)", l.StateIndex(2, 1), 5},
		{"TransIndex(1,0)", l.TransIndex(1, 0), 8},
		{"PairIndex(0,0,0)", l.PairIndex(0, 0, 0), 10},
		{"PairIndex(1,1,0)", l.PairIndex(1, 1, 0), 16},
	} {
		if c.got != c.want {
			t.Errorf("%s = %d, want %d", c.name, c.got, c.want)
		}
	}
	if got := l.DimFloat(); got != 18 {
		t.Errorf("DimFloat = %v, want 18", got)
	}
	// Transitions does not change the layout.
	if o := (Layout{NumUnary: 3, L: 2, NumPair: 2}); o.Dim() != l.Dim() || o.PairOffset() != l.PairOffset() {
		t.Error("Transitions changed the layout")
	}
	// DimFloat does not overflow where Dim would.
	big := Layout{NumUnary: 1 << 40, L: 1 << 20, NumPair: 1 << 30}
	if got := big.DimFloat(); got < 1<<60 {
		t.Errorf("DimFloat = %v, want about 2^70", got)
	}
}

// TestLayoutRoundTrip checks that Decode and Index are inverse bijections
// between [0, Dim()) and the features, in index order, over several shapes
// (including empty blocks).
func TestLayoutRoundTrip(t *testing.T) {
	for _, l := range []Layout{
		{NumUnary: 0, L: 1},
		{NumUnary: 4, L: 1, NumPair: 2},
		{NumUnary: 3, L: 2, NumPair: 2},
		{NumUnary: 5, L: 3},
		{NumUnary: 0, L: 4, NumPair: 3, Transitions: true},
	} {
		t.Run(fmt.Sprintf("U=%d,L=%d,P=%d", l.NumUnary, l.L, l.NumPair), func(t *testing.T) {
			// The features in index order, built independently of Decode.
			var want []Feature
			for a := 0; a < l.NumUnary; a++ {
				for y := 0; y < l.L; y++ {
					want = append(want, Feature{StateBlock, a, -1, y})
				}
			}
			for p := 0; p < l.L; p++ {
				for q := 0; q < l.L; q++ {
					want = append(want, Feature{TransBlock, -1, p, q})
				}
			}
			for a := 0; a < l.NumPair; a++ {
				for p := 0; p < l.L; p++ {
					for q := 0; q < l.L; q++ {
						want = append(want, Feature{PairBlock, a, p, q})
					}
				}
			}
			if len(want) != l.Dim() {
				t.Fatalf("Dim = %d, want %d", l.Dim(), len(want))
			}
			for j, f := range want {
				if got := l.Decode(j); got != f {
					t.Errorf("Decode(%d) = %+v, want %+v", j, got, f)
				}
				if got := l.Index(f); got != j {
					t.Errorf("Index(%+v) = %d, want %d", f, got, j)
				}
			}
		})
	}
}

func TestLayoutDecodePanics(t *testing.T) {
	l := Layout{NumUnary: 2, L: 2, NumPair: 1}
	for _, j := range []int{-1, l.Dim(), l.Dim() + 5} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Decode(%d) did not panic", j)
				}
			}()
			l.Decode(j)
		}()
	}
}

func TestLayoutCheck(t *testing.T) {
	for _, c := range []struct {
		l  Layout
		ok bool
	}{
		{Layout{L: 1}, true},
		{Layout{NumUnary: 3, L: 2, NumPair: 1}, true},
		{Layout{}, false},
		{Layout{NumUnary: -1, L: 2}, false},
		{Layout{L: 2, NumPair: -1}, false},
	} {
		if err := c.l.Check(); (err == nil) != c.ok {
			t.Errorf("%+v.Check() = %v, want ok=%v", c.l, err, c.ok)
		}
	}
	if s := PairBlock.String(); s != "pair" {
		t.Errorf("PairBlock.String() = %q", s)
	}
}
