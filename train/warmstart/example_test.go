package warmstart_test

import (
	"context"
	"fmt"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/sparse"
	"github.com/sparsetag/sparsetag/train/warmstart"
)

// Two epochs of SGD on a toy corpus where attribute 0 marks label A and
// attribute 1 label B: the point gives each attribute's own label the
// larger weight.
func ExampleRun() {
	m, err := chain.NewModel([]string{"A", "B"}, 2, 0, true, nil)
	if err != nil {
		panic(err)
	}
	c := &sparse.Corpus{NumUnary: 2}
	for range 20 {
		c.AppendSequence([][]int32{{0}, {1}, {1}}, nil, nil, nil, []int32{0, 1, 1})
		c.AppendSequence([][]int32{{1}, {0}}, nil, nil, nil, []int32{1, 0})
	}
	free := make([]int32, len(m.W)) // every feature may move
	for j := range free {
		free[j] = int32(j)
	}
	p := warmstart.Problem{Model: m, Corpus: c, L1: 0.01, L2: 0.01, Free: free}
	pt, info, err := warmstart.Run(context.Background(), p, warmstart.Settings{Epochs: 2})
	if err != nil {
		panic(err)
	}
	w := make([]float64, len(m.W))
	sparse.Scatter(w, pt.Val, pt.Idx)
	fmt.Println("epochs:", info.Epochs)
	fmt.Println("attribute 0 prefers A:", w[m.Layout.StateIndex(0, 0)] > w[m.Layout.StateIndex(0, 1)])
	fmt.Println("attribute 1 prefers B:", w[m.Layout.StateIndex(1, 1)] > w[m.Layout.StateIndex(1, 0)])
	// Output:
	// epochs: 2
	// attribute 0 prefers A: true
	// attribute 1 prefers B: true
}
