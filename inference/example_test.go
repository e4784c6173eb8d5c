package inference_test

import (
	"fmt"
	"strings"

	"github.com/sparsetag/sparsetag/inference"
)

// ExampleViterbi decodes a 3×2 lattice. By hand: the path N V N scores
// Unary 2+1+1 plus transitions N→V = 1 and V→N = 1, i.e. 6, and every other
// of the 8 paths scores at most 3.
func ExampleViterbi() {
	labels := []string{"N", "V"}
	lat := &inference.Lattice{
		T: 3, L: 2,
		Unary: []float64{
			2, 0, // t = 0
			0, 1, // t = 1
			1, 0, // t = 2
		},
		Trans: []float64{
			0, 1, // N→N, N→V
			1, -2, // V→N, V→V
		},
	}
	ws := inference.NewWorkspace(lat.T, lat.L)
	path := make([]int, lat.T)
	score := inference.Viterbi(ws, lat, path)
	var names []string
	for _, y := range path {
		names = append(names, labels[y])
	}
	fmt.Println(strings.Join(names, " "), score)
	// Output: N V N 6
}

// ExampleForwardBackward: with all scores zero the 4 label sequences of a
// 2×2 lattice are equally likely, so log Z = log 4 and every marginal is 1/2.
func ExampleForwardBackward() {
	lat := &inference.Lattice{T: 2, L: 2, Unary: make([]float64, 4)}
	ws := inference.NewWorkspace(lat.T, lat.L)
	logZ := inference.ForwardBackward(ws, lat)
	fmt.Printf("log Z = %.4f\n", logZ)
	fmt.Println("node:", ws.Node())
	fmt.Println("edge at t=1:", ws.EdgeAt(nil, lat, 1))
	fmt.Printf("entropy = %.4f\n", inference.Entropy(ws, lat))
	// Output:
	// log Z = 1.3863
	// node: [0.5 0.5 0.5 0.5]
	// edge at t=1: [0.25 0.25 0.25 0.25]
	// entropy = 1.3863
}
