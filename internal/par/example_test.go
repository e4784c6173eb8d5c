package par_test

import (
	"fmt"

	"github.com/sparsetag/sparsetag/internal/par"
)

// A sum that is bit-identical for any number of threads: the chunk
// boundaries depend only on the length, each chunk is summed serially into
// its own slot, and the slots are added in chunk order.
func Example() {
	x := make([]float64, 1000)
	for i := range x {
		x[i] = 1 / float64(i+1)
	}
	const chunkLen = 128
	nchunks := (len(x) + chunkLen - 1) / chunkLen
	sum := func(threads int) float64 {
		part := make([]float64, nchunks)
		par.For(threads, nchunks, func(c int) {
			for _, v := range x[c*chunkLen : min(len(x), (c+1)*chunkLen)] {
				part[c] += v
			}
		})
		var s float64
		for _, p := range part {
			s += p
		}
		return s
	}
	fmt.Printf("%.17g\n", sum(1))
	fmt.Println(sum(1) == sum(2), sum(1) == sum(8))
	// Output:
	// 7.4854708605503451
	// true true
}
