package chain_test

import (
	"fmt"
	"log"
	"strings"

	"github.com/sparsetag/sparsetag/features"

	"github.com/sparsetag/sparsetag/chain"
)

// The three best chunkings of a sentence under BIO constraints, with their
// probabilities, then the best chunking when the second word is forced to
// be B-VP (forced decoding of partially labeled input).
func ExampleTagger_Decode() {
	m, err := toyModel()
	if err != nil {
		log.Fatal(err)
	}
	tg := chain.NewTagger(m)
	sentence := features.Columns{{"the", "DT"}, {"dog", "NN"}, {"sees", "VBZ"}, {"a", "DT"}, {"cat", "NN"}}

	var d chain.Decoding
	opt := chain.DecodeOptions{N: 3, Constraints: chain.BIOConstraints(m.Labels)}
	if err := tg.Decode(&d, sentence, opt); err != nil {
		log.Fatal(err)
	}
	for k, path := range d.Paths {
		fmt.Printf("%.2f %s\n", d.Probs[k], strings.Join(tg.AppendLabels(nil, path), " "))
	}

	fixed := []int{-1, m.LabelID("B-VP"), -1, -1, -1}
	opt = chain.DecodeOptions{Constraints: chain.BIOConstraints(m.Labels), Fixed: fixed}
	if err := tg.Decode(&d, sentence, opt); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("forced: %s\n", strings.Join(tg.AppendLabels(nil, d.Best()), " "))
	// Output:
	// 0.93 B-NP I-NP B-VP B-NP I-NP
	// 0.02 B-NP I-NP B-VP B-NP B-VP
	// 0.01 B-NP I-NP B-VP B-NP B-ADVP
	// forced: B-NP B-VP B-VP B-NP I-NP
}
