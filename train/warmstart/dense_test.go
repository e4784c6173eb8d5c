package warmstart

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/internal/chaintest"
	"github.com/sparsetag/sparsetag/sparse"
)

// TestRunDenseBlocks runs the warm start on a corpus with a dense block
// (each step expands its sequence) and on the corpus expanded at once: the
// same rows in the same order, so the same point, bit for bit.
func TestRunDenseBlocks(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 1))
	c := chaintest.RandomCorpus(rng, 40, 5, 4, 1, 3, true)
	chaintest.AddDenseBlock(rng, c, 5, 6)
	m, err := chain.NewModel(chaintest.LabelNames(3), c.NumUnary, 1, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	free := make([]int32, len(m.W))
	for j := range free {
		free[j] = int32(j)
	}
	var pts [2]Point
	for k, cc := range []*sparse.Corpus{c, c.Expanded()} {
		p := Problem{Model: m, Corpus: cc, L1: 0.01, L2: 0.01, Free: free}
		pt, _, err := Run(context.Background(), p, Settings{Epochs: 2})
		if err != nil {
			t.Fatal(err)
		}
		pts[k] = pt
	}
	if len(pts[0].Idx) == 0 || !slices.Equal(pts[0].Idx, pts[1].Idx) || !slices.Equal(pts[0].Val, pts[1].Val) {
		t.Fatalf("dense blocks: %d non-zero weights, expanded corpus %d, or other values", len(pts[0].Idx), len(pts[1].Idx))
	}
}
