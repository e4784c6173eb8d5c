package prefetch

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestBlocksAtCount: BlocksAt covers the lines the Go count gives, on
// edge cases (no offset, negative offsets skipped, one element, a block
// ending at the array's end, repeated offsets) and random ones; it
// changes no value.
func TestBlocksAtCount(t *testing.T) {
	if !haveAsm {
		t.Skip("no prefetch kernel on this build: BlocksAt does nothing")
	}
	base := make([]float64, 1000)
	x, y := base[3:403], base[500:900]
	cases := []struct {
		offs []int32
		n    int
	}{
		{nil, 22}, {[]int32{-1, -1}, 22}, {[]int32{0}, 1}, {[]int32{399}, 1}, {[]int32{378}, 22},
		{[]int32{5, -1, 5, 100}, 22}, {[]int32{7}, 0},
	}
	for k := range base {
		base[k] = float64(k)
	}
	want := slices.Clone(base)
	for _, c := range cases {
		if got, lines := BlocksAt(x, y, c.offs, c.n), linesAtGo(x, y, c.offs, c.n); got != lines {
			t.Errorf("offsets %v, n %d: %d lines, want %d", c.offs, c.n, got, lines)
		}
		if !slices.Equal(base, want) {
			t.Fatalf("offsets %v: BlocksAt changed the arrays", c.offs)
		}
	}
	if n := linesAtGo(x, y, []int32{-1, 4}, 1); n != 2 {
		t.Fatalf("one element and a skipped offset: %d lines, want 2", n)
	}
	rng := rand.New(rand.NewPCG(8, 8))
	for trial := range 200 {
		n := 1 + rng.IntN(40)
		offs := make([]int32, rng.IntN(20))
		for k := range offs {
			offs[k] = int32(rng.IntN(len(x)-n+1)) - int32(rng.IntN(2))*1000
		}
		if got, want := BlocksAt(x, y, offs, n), linesAtGo(x, y, offs, n); got != want {
			t.Fatalf("trial %d: %d lines, want %d", trial, got, want)
		}
	}
}
