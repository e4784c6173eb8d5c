package prefetch

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestBlocksCount: Blocks covers the lines the Go count gives (every line
// of each block of x and y, once per block) on edge cases: no attribute,
// empty blocks, one element, a block ending at the array's end, arrays
// whose lines are offset from each other, a repeated attribute; and it
// changes no value.
func TestBlocksCount(t *testing.T) {
	base := make([]float64, 1000)
	for k := range base {
		base[k] = float64(k)
	}
	x := base[3:403]   // 400 values, starting 24 bytes into a line (or wherever the allocation put it)
	y := base[500:900] // offset from x by 497 values: other line boundaries
	starts := []int32{0, 0, 1, 9, 9, 31, 100, 101, 399, 400}
	cases := map[string][]int32{
		"none":                   nil,
		"empty block":            {0, 3},
		"one element":            {1, 6},
		"block at the array end": {8, 7},
		"several":                {2, 4, 5, 1},
		"repeated":               {4, 4},
		"all":                    {0, 1, 2, 3, 4, 5, 6, 7, 8},
	}
	want := slices.Clone(base)
	for name, attrs := range cases {
		got, ref := Blocks(x, y, starts, attrs), linesGo(x, y, starts, attrs)
		if got != ref {
			t.Errorf("%s: %d lines, want %d", name, got, ref)
		}
		if !slices.Equal(base, want) {
			t.Fatalf("%s: Blocks changed the arrays", name)
		}
	}
	if n := linesGo(x, y, starts, []int32{1}); n != 2 {
		t.Fatalf("one element: %d lines in x and y, want 2", n)
	}
	if n := linesGo(base[0:], base[0:], []int32{0, 8}, []int32{0}); n != 2 && n != 4 {
		t.Fatalf("8 values: %d lines in x and y, want 2 (aligned) or 4", n)
	}
}

// TestBlocksRandom compares Blocks' count with the Go count on random
// layouts and lists (every alignment of x and y modulo a line).
func TestBlocksRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 1))
	base := make([]float64, 4096)
	for trial := range 200 {
		nb := 1 + rng.IntN(30)
		starts := make([]int32, nb+1)
		for a := 1; a <= nb; a++ {
			starts[a] = starts[a-1] + int32(rng.IntN(50))
		}
		n := int(starts[nb])
		ox, oy := rng.IntN(16), rng.IntN(16)
		x, y := base[ox:ox+n], base[2048+oy:2048+oy+n]
		attrs := make([]int32, rng.IntN(2*nb))
		for k := range attrs {
			attrs[k] = int32(rng.IntN(nb))
		}
		if got, ref := Blocks(x, y, starts, attrs), linesGo(x, y, starts, attrs); got != ref {
			t.Fatalf("trial %d: %d lines, want %d", trial, got, ref)
		}
	}
}
