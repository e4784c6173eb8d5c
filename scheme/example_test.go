package scheme_test

import (
	"fmt"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/scheme"
)

// A model's labels read in IOBES: the spans of a label sequence, and the
// constraints that make decoding honour the scheme.
func ExampleLabels() {
	labels := []string{"O", "B-PER", "I-PER", "E-PER", "S-LOC"}
	l, err := scheme.NewLabels(scheme.IOBES, labels)
	if err != nil {
		panic(err)
	}
	path := []int{1, 2, 3, 0, 4} // B-PER I-PER E-PER O S-LOC
	for _, sp := range l.Spans(nil, path) {
		fmt.Printf("[%d, %d) %s\n", sp.Start, sp.End, l.Types()[sp.Type])
	}
	fmt.Println(l.Valid(path), l.Valid([]int{1, 0})) // B-PER O leaves a chunk open
	c := chain.SchemeConstraints(l)
	fmt.Println(c.TransitionAllowed(1, 0), c.EndAllowed(1))
	// Output:
	// [0, 3) PER
	// [4, 5) LOC
	// true false
	// false false
}
