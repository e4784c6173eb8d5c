package tagging_test

import (
	"fmt"
	"log"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/dataset"
	"github.com/sparsetag/sparsetag/tagging"
)

// Every model, ours or a peer's, is a tagging.Tagger: load it, ask what it
// reads and supports, and decode.
func Example() {
	m, err := tagging.Load("../peer/testdata/conll.wapiti.gz") // or a model of this toolkit, CRFsuite, CRF++
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(m.Format(), "reads", m.Reads().DefaultFormat(), "input")
	ex := &dataset.Example{Tokens: [][]string{{"He", "PRP"}, {"reckons", "VBZ"}, {"the", "DT"}, {"deficit", "NN"}}}
	var d chain.Decoding
	if err := m.Decode(&d, ex, chain.DecodeOptions{N: 2, Posterior: true}); err != nil {
		log.Fatal(err)
	}
	for k, path := range d.Paths {
		fmt.Printf("%d:", k+1)
		for _, y := range path {
			fmt.Print(" ", m.Labels()[y])
		}
		fmt.Printf(" (p %.2f)\n", d.Probs[k])
	}
	// Posterior decoding under the BIO constraints, which every model
	// supports (on its score lattice).
	err = m.Decode(&d, ex, chain.DecodeOptions{MaxMarginal: true, Constraints: chain.BIOConstraints(m.Labels())})
	fmt.Println(err, m.Supports(tagging.Forced|tagging.Constrained))
	// Output:
	// Wapiti reads conll input
	// 1: B-NP B-VP B-NP I-NP (p 1.00)
	// 2: B-NP I-NP B-NP I-NP (p 0.00)
	// <nil> true
}
