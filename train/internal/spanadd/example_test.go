package spanadd_test

import (
	"fmt"

	"github.com/sparsetag/sparsetag/train/internal/spanadd"
)

// A token's scores over 3 labels from the weight rows of its two
// attributes, stored at offsets 0 and 6 of one flat weight slice.
func ExampleGather() {
	weights := []float64{
		1, 2, 3, // attribute A
		0, 0, 0, // attribute B (not on this token)
		10, 20, 30, // attribute C
	}
	scores := make([]float64, 3)
	spanadd.Gather(scores, weights, []int32{0, 3, 6, 9})
	fmt.Println(scores)
	// Output: [11 22 33]
}

// The expected counts of the same two attributes from the token's label
// marginals.
func ExampleScatter() {
	counts := make([]float64, 9)
	marginals := []float64{0.5, 0.25, 0.25}
	spanadd.Scatter(counts, marginals, []int32{0, 3, 6, 9})
	fmt.Println(counts)
	// Output: [0.5 0.25 0.25 0 0 0 0.5 0.25 0.25]
}
