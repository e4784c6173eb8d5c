package peer_test

import (
	"fmt"
	"log"
	"math"
	"strings"

	"github.com/sparsetag/sparsetag/corpora"
	"github.com/sparsetag/sparsetag/peer"
)

// Tag two sentences with a model trained by CRF++ (crf_learn on CoNLL-2000
// chunking); peer.Open detects the format and decompresses the file.
func Example() {
	m, err := peer.Open("testdata/conll.crfpp.gz")
	if err != nil {
		log.Fatal(err)
	}
	input := "He PRP\nreckons VBZ\nthe DT\ncurrent JJ\naccount NN\ndeficit NN\n\nRockwell NNP\nsaid VBD\n"
	seqs, err := corpora.ReadCoNLL("input", strings.NewReader(input), corpora.CoNLLOptions{Unlabeled: true})
	if err != nil {
		log.Fatal(err)
	}
	labels := m.Labels()
	var path []int
	for _, seq := range seqs {
		path, err = m.Tag(path, seq)
		if err != nil {
			log.Fatal(err)
		}
		best, _ := m.NBest(seq, 1)
		_, logZ, _ := m.Marginals(nil, seq)
		fmt.Printf("%v p=%.3f:", m.Format(), math.Exp(best[0].Score-logZ))
		for t, y := range path {
			fmt.Printf(" %s/%s", seq.Tokens[t][0], labels[y])
		}
		fmt.Println()
	}
	// Output:
	// CRF++ binary p=0.972: He/B-NP reckons/B-VP the/B-NP current/I-NP account/I-NP deficit/I-NP
	// CRF++ binary p=0.946: Rockwell/B-NP said/B-VP
}
