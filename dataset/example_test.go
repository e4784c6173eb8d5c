package dataset_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/dataset"
	"github.com/sparsetag/sparsetag/train"
)

// Example reads a labeled CoNLL corpus, encodes it for training with the
// default template (dataset.NewTrainingModel), trains a chain CRF, and tags unlabeled sentences.
func Example() {
	const trainData = `The DT B-NP
dog NN I-NP
barks VBZ B-VP

A DT B-NP
cat NN I-NP
sleeps VBZ B-VP
`
	exs, err := dataset.Read("train.txt", strings.NewReader(trainData), dataset.Options{Format: dataset.CoNLL, Labeled: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	enc, err := dataset.NewEncoder(dataset.CoNLL, nil) // nil: dataset.DefaultTemplate; features.Compile makes another
	if err != nil {
		fmt.Println(err)
		return
	}
	m, c, err := dataset.NewTrainingModel(enc, exs, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d sequences, %d positions, labels %v\n", c.Len(), c.Positions(), m.Labels)

	if _, err := train.Train(context.Background(), m, c, train.Options{Problem: train.Problem{BetaRatio: 0.05}}); err != nil {
		fmt.Println(err)
		return
	}
	test, err := dataset.Read("test.txt", strings.NewReader("The DT\ncat NN\nbarks VBZ\n"), dataset.Options{Format: dataset.CoNLL})
	if err != nil {
		fmt.Println(err)
		return
	}
	pred, err := dataset.TagAll(chain.NewTagger(m), test, 2)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(test[0].Text, pred[0])
	// Output:
	// 2 sequences, 6 positions, labels [B-NP I-NP B-VP]
	// [The cat barks] [B-NP I-NP B-VP]
}
