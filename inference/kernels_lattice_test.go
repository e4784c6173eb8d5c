package inference_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/sparsetag/sparsetag/inference"
)

// latticeBits runs ForwardBackward, EdgeAt, Viterbi and MaxMin on lat and
// returns every result as bits.
func latticeBits(ws *inference.Workspace, lat *inference.Lattice) []uint64 {
	var out []uint64
	add := func(x ...float64) {
		for _, v := range x {
			out = append(out, math.Float64bits(v))
		}
	}
	add(inference.ForwardBackward(ws, lat))
	add(ws.Node()...)
	add(ws.EdgeSum()...)
	for t := 1; t < lat.T; t++ {
		add(ws.EdgeAt(nil, lat, t)...)
	}
	add(inference.ExpectedScore(ws, lat))
	path := make([]int, lat.T)
	add(inference.Viterbi(ws, lat, path))
	for _, y := range path {
		out = append(out, uint64(y))
	}
	return out
}

// TestAsmMatchesGo: on random lattices of all shapes (L = 1 to 30, all
// variants, scales that keep the exp-space path and ones that force the
// log-space path, small-integer scores with ties for Viterbi), the assembly
// and the Go kernels give the same bits for every result.
func TestAsmMatchesGo(t *testing.T) {
	t.Parallel() // each call names its kernels: no package state to share
	if !inference.HaveAsm() {
		t.Skip("no assembly kernels on this machine")
	}
	rng := rand.New(rand.NewPCG(13, 14))
	for trial := range 600 {
		T, L := rng.IntN(30), 1+rng.IntN(30)
		v := variants()[trial%8]
		scale := []float64{0.5, 2, 8, 60}[rng.IntN(4)]
		lat := randomLattice(rng, T, L, scale, v)
		if trial%5 == 0 {
			for i := range lat.Unary {
				lat.Unary[i] = float64(rng.IntN(3))
			}
		}
		name := fmt.Sprintf("trial %d T=%d L=%d %v scale %v", trial, T, L, v, scale)
		a := latticeBits(inference.NewWorkspace(T, L), lat)
		wsGo := inference.NewWorkspace(T, L)
		inference.SetGoKernels(wsGo, true)
		g := latticeBits(wsGo, lat)
		if len(a) != len(g) {
			t.Fatalf("%s: %d vs %d results", name, len(a), len(g))
		}
		for i := range a {
			if a[i] != g[i] {
				t.Fatalf("%s: result %d: asm %x, Go %x", name, i, a[i], g[i])
			}
		}
	}
}
