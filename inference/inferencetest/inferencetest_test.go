package inferencetest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sparsetag/sparsetag/inference"
	"github.com/sparsetag/sparsetag/internal/numtest"
)

// tol is the absolute tolerance of the hand-derived values below.
const tol = 1e-14

// TestEnumerateByHand: T=2, L=2, Unary = [0 ln2; 0 0], no transitions.
// The four sequences (y0,y1) have weights 1, 1, 2, 2, so Z = 6;
// P(y0=1) = 4/6, P(y1=·) = 1/2, the pairwise marginal is [1 1; 2 2]/6,
// E[score] = (4/6) ln 2 and H = -2(1/6)ln(1/6) - 2(1/3)ln(1/3). The best
// score ln 2 is reached by [1 0] and [1 1]; comparing from the last position,
// [1 0] comes first.
func TestEnumerateByHand(t *testing.T) {
	ln2 := math.Ln2
	lat := &inference.Lattice{T: 2, L: 2, Unary: []float64{0, ln2, 0, 0}}
	r := Enumerate(lat)
	numtest.RequireClose(t, math.Log(6), r.LogZ, tol, 0, "LogZ")
	numtest.RequireSlices(t, []float64{1.0 / 3, 2.0 / 3, 0.5, 0.5}, r.Node, tol, 0, "Node")
	numtest.RequireSlices(t, []float64{1.0 / 6, 1.0 / 6, 2.0 / 6, 2.0 / 6}, r.EdgeSum, tol, 0, "EdgeSum")
	require.Len(t, r.EdgeAt, 2)
	numtest.RequireSlices(t, r.EdgeSum, r.EdgeAt[1], tol, 0, "EdgeAt[1]")
	assert.Nil(t, r.EdgeAt[0], "EdgeAt[0]")
	numtest.Close(t, 4.0/6*ln2, r.ExpectedScore, tol, 0, "ExpectedScore")
	numtest.Close(t, -(2.0/6)*math.Log(1.0/6)-(2.0/3)*math.Log(1.0/3), r.Entropy, tol, 0, "Entropy")
	assert.Equal(t, []int{1, 0}, r.Best, "Best")
	assert.Equal(t, ln2, r.BestScore, "BestScore")
	assert.Equal(t, ln2, r.Max, "Max")
	assert.Equal(t, 0.0, r.Min, "Min")
}

// TestEnumerateScoreTerms: every term of the score definition is counted
// once, on the one sequence of a T=3, L=1 lattice.
func TestEnumerateScoreTerms(t *testing.T) {
	lat := &inference.Lattice{T: 3, L: 1,
		Unary: []float64{1, 2, 4}, Trans: []float64{8},
		TransAt: []float64{1000, 16, 32}, // block 0 ignored
		Start:   []float64{64}, End: []float64{128}}
	// 1+2+4 + 2·8 + 16+32 + 64 + 128 = 263
	r := Enumerate(lat)
	if r.LogZ != 263 || r.BestScore != 263 || r.Max != 263 || r.Min != 263 || r.ExpectedScore != 263 || r.Entropy != 0 {
		t.Fatalf("got %+v", r)
	}
}

func TestEnumerateEmptyAndForbidden(t *testing.T) {
	r := Enumerate(&inference.Lattice{T: 0, L: 2, Unary: []float64{}})
	assert.Equal(t, 0.0, r.LogZ, "T=0: LogZ")
	assert.Empty(t, r.Node, "T=0: Node")
	assert.Empty(t, r.Best, "T=0: Best")
	assert.Len(t, r.EdgeSum, 4, "T=0: EdgeSum")
	assert.Equal(t, 0.0, r.Max, "T=0: Max")
	assert.Equal(t, 0.0, r.Min, "T=0: Min")
	inf := math.Inf(-1)
	r = Enumerate(&inference.Lattice{T: 2, L: 2, Unary: []float64{inf, inf, 0, 0}})
	if !math.IsInf(r.LogZ, -1) || !math.IsInf(r.ExpectedScore, -1) || r.Entropy != 0 || fmt.Sprint(r.Best) != "[0 0]" {
		t.Fatalf("no finite path: %+v", r)
	}
}

func TestEnumerateTooLarge(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("no panic for 4^20 sequences")
		}
	}()
	Enumerate(&inference.Lattice{T: 20, L: 4, Unary: make([]float64, 80)})
}

func TestRandomLattice(t *testing.T) {
	a := RandomLattice(rand.New(rand.NewPCG(1, 2)), 3, 4, 5, true, true)
	b := RandomLattice(rand.New(rand.NewPCG(1, 2)), 3, 4, 5, true, true)
	if fmt.Sprint(a) != fmt.Sprint(b) {
		t.Fatal("RandomLattice is not deterministic for a seed")
	}
	assert.Len(t, a.Unary, 12, "Unary")
	assert.Len(t, a.Trans, 16, "Trans")
	assert.Len(t, a.TransAt, 48, "TransAt")
	assert.Len(t, a.Start, 4, "Start")
	assert.Len(t, a.End, 4, "End")
	for _, x := range [][]float64{a.Unary, a.Trans, a.TransAt, a.Start, a.End} {
		for _, v := range x {
			if !(v >= -5 && v < 5) {
				t.Fatalf("value %v outside [-5, 5)", v)
			}
		}
	}
	c := RandomLattice(rand.New(rand.NewPCG(1, 2)), 3, 4, 5, false, false)
	// Optional parts are nil when not asked for.
	assert.Nil(t, c.TransAt, "TransAt")
	assert.Nil(t, c.Start, "Start")
	assert.Nil(t, c.End, "End")
}
