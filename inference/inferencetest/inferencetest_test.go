package inferencetest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/sparsetag/sparsetag/inference"
)

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-14 }

func nearSlice(t *testing.T, name string, want, got []float64) {
	t.Helper()
	if len(want) != len(got) {
		t.Fatalf("%s: len %d, want %d", name, len(got), len(want))
	}
	for i := range want {
		if !near(want[i], got[i]) {
			t.Fatalf("%s[%d] = %v, want %v", name, i, got[i], want[i])
		}
	}
}

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
	if !near(r.LogZ, math.Log(6)) {
		t.Fatalf("LogZ = %v, want ln 6", r.LogZ)
	}
	nearSlice(t, "Node", []float64{1.0 / 3, 2.0 / 3, 0.5, 0.5}, r.Node)
	nearSlice(t, "EdgeSum", []float64{1.0 / 6, 1.0 / 6, 2.0 / 6, 2.0 / 6}, r.EdgeSum)
	nearSlice(t, "EdgeAt[1]", r.EdgeSum, r.EdgeAt[1])
	if r.EdgeAt[0] != nil || len(r.EdgeAt) != 2 {
		t.Fatalf("EdgeAt = %v", r.EdgeAt)
	}
	if !near(r.ExpectedScore, 4.0/6*ln2) {
		t.Fatalf("ExpectedScore = %v", r.ExpectedScore)
	}
	if h := -(2.0/6)*math.Log(1.0/6) - (2.0/3)*math.Log(1.0/3); !near(r.Entropy, h) {
		t.Fatalf("Entropy = %v, want %v", r.Entropy, h)
	}
	if fmt.Sprint(r.Best) != "[1 0]" || r.BestScore != ln2 || r.Max != ln2 || r.Min != 0 {
		t.Fatalf("Best = %v %v, Max %v, Min %v", r.Best, r.BestScore, r.Max, r.Min)
	}
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
	if r.LogZ != 0 || len(r.Node) != 0 || len(r.Best) != 0 || len(r.EdgeSum) != 4 || r.Max != 0 || r.Min != 0 {
		t.Fatalf("T=0: %+v", r)
	}
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
	if len(a.Unary) != 12 || len(a.Trans) != 16 || len(a.TransAt) != 48 || len(a.Start) != 4 || len(a.End) != 4 {
		t.Fatalf("shapes: %d %d %d %d %d", len(a.Unary), len(a.Trans), len(a.TransAt), len(a.Start), len(a.End))
	}
	for _, x := range [][]float64{a.Unary, a.Trans, a.TransAt, a.Start, a.End} {
		for _, v := range x {
			if !(v >= -5 && v < 5) {
				t.Fatalf("value %v outside [-5, 5)", v)
			}
		}
	}
	c := RandomLattice(rand.New(rand.NewPCG(1, 2)), 3, 4, 5, false, false)
	if c.TransAt != nil || c.Start != nil || c.End != nil {
		t.Fatal("optional parts must be nil when not asked for")
	}
}
