package train_test

import (
	"context"
	"fmt"
	"log"
	"strings"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/dataset"
	"github.com/sparsetag/sparsetag/features"
	"github.com/sparsetag/sparsetag/sparse"
	"github.com/sparsetag/sparsetag/train"
)

// tinyChunks is a small CoNLL corpus (word, POS, chunk tag).
const tinyChunks = `the DT B-NP
dog NN I-NP
runs VBZ B-VP

a DT B-NP
small JJ I-NP
cat NN I-NP
sleeps VBZ B-VP

dogs NNS B-NP
see VBP B-VP
the DT B-NP
cat NN I-NP
`

// tinyModel reads tinyChunks and returns an untrained model (with its
// encoder: the word and the POS) and the encoded corpus.
func tinyModel() (*chain.Model, *sparse.Corpus) {
	exs, err := dataset.Read("tiny.txt", strings.NewReader(tinyChunks), dataset.Options{Format: dataset.CoNLL, Labeled: true})
	if err != nil {
		log.Fatal(err)
	}
	enc := features.NewTemplateEncoder(features.MustCompile("U00:%x[0,0]\nU01:%x[0,1]\nB\n"))
	m, c, err := dataset.NewTrainingModel(enc, exs, 1)
	if err != nil {
		log.Fatal(err)
	}
	return m, c
}

// Train with the defaults (the working-set policy, a certified gap of 0.1%
// of the objective) at beta = 0.05 beta_max, then tag an unseen sentence.
func ExampleTrain() {
	m, c := tinyModel()
	res, err := train.Train(context.Background(), m, c, train.Options{Problem: train.Problem{BetaRatio: 0.05}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("stopped:", res.StopReason, res.Converged, res.Gap <= 1e-3*res.Primal)
	tg := chain.NewTagger(m)
	ids, err := tg.Tag(nil, features.Columns{{"a", "DT"}, {"dog", "NN"}, {"sleeps", "VBZ"}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(tg.AppendLabels(nil, ids))
	// Output:
	// stopped: gap true true
	// [B-NP I-NP B-VP]
}

// A regularization path from beta_max down to 0.01 beta_max: the number of
// non-zero weights grows as the penalty falls. Every solution is certified
// to an absolute gap of 1e-10, so the counts are those of the optima.
func ExamplePath() {
	m, c := tinyModel()
	res, err := train.Path(context.Background(), m, c, train.Options{Stopping: train.Stopping{Epsilon: 1e-10}}, train.PathOptions{K: 4, MinRatio: 0.01}, nil)
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range res {
		fmt.Printf("beta/beta_max %.2f: %d non-zero, stop %s\n", r.Beta/r.BetaMax, r.NonZero, r.StopReason)
	}
	// Output:
	// beta/beta_max 1.00: 0 non-zero, stop gap
	// beta/beta_max 0.22: 20 non-zero, stop gap
	// beta/beta_max 0.05: 34 non-zero, stop gap
	// beta/beta_max 0.01: 35 non-zero, stop gap
}
