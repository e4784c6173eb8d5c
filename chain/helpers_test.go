package chain

import (
	"math/rand/v2"

	"github.com/sparsetag/sparsetag/internal/chaintest"
	"github.com/sparsetag/sparsetag/sparse"
)

// The shared test data (internal/chaintest).
var (
	randomCorpus = chaintest.RandomCorpus
	labelNames   = chaintest.LabelNames
	nextPath     = chaintest.NextPath
)

// randomTagger returns a Tagger over a model with random weights for c and
// the serial Viterbi paths of every sequence of c.
func randomTagger(rng *rand.Rand, c *sparse.Corpus, L int) (*Tagger, [][]int) {
	m, _ := NewModel(labelNames(L), c.NumUnary, c.NumPair, true, nil)
	for j := range m.W {
		m.W[j] = rng.NormFloat64()
	}
	tg := NewTagger(m)
	serial := make([][]int, c.Len())
	for i := range serial {
		serial[i], _ = tg.Tag(nil, Encoded{Corpus: c, Seq: i})
	}
	return tg, serial
}
