package chain_test

import (
	"bytes"
	"context"
	"fmt"
	"github.com/sparsetag/sparsetag/dataset"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/features"
	"github.com/sparsetag/sparsetag/sparse"
	"github.com/sparsetag/sparsetag/train"
)

// toyCorpus is a tiny chunking corpus in CoNLL form: word, POS, chunk tag.
const toyCorpus = `
the DT B-NP
dog NN I-NP
runs VBZ B-VP

a DT B-NP
cat NN I-NP
sleeps VBZ B-VP

the DT B-NP
big JJ I-NP
dog NN I-NP
sleeps VBZ B-VP

a DT B-NP
small JJ I-NP
cat NN I-NP
runs VBZ B-VP
fast RB B-ADVP

dogs NNS B-NP
run VBP B-VP

the DT B-NP
cat NN I-NP
sees VBZ B-VP
a DT B-NP
dog NN I-NP
`

// toyTemplate is a small CRF++ template: the word, its POS, the POS bigram
// ending at the current token, and label transitions.
const toyTemplate = `
U00:%x[0,0]
U01:%x[0,1]
U02:%x[-1,1]/%x[0,1]
B
`

// parseToy splits toyCorpus into token columns and label names. Real programs
// read files with corpora.NewCoNLLReader.
func parseToy() (tokens [][][]string, labels [][]string) {
	for _, block := range strings.Split(strings.TrimSpace(toyCorpus), "\n\n") {
		var toks [][]string
		var labs []string
		for _, line := range strings.Split(block, "\n") {
			f := strings.Fields(line)
			toks = append(toks, f[:len(f)-1])
			labs = append(labs, f[len(f)-1])
		}
		tokens = append(tokens, toks)
		labels = append(labels, labs)
	}
	return tokens, labels
}

// toyModel encodes the toy corpus with toyTemplate and trains a model on it.
func toyModel() (*chain.Model, error) {
	m, c, err := encodeToy()
	if err != nil {
		return nil, err
	}
	// beta = 0.01 beta_max: weak regularization for a corpus this small.
	_, err = train.Train(context.Background(), m, c, train.Options{Problem: train.Problem{BetaRatio: 0.01}})
	return m, err
}

// encodeToy encodes the toy corpus with toyTemplate and returns an
// untrained model for it and the corpus: dataset.NewTrainingModel interns
// the labels, grows the encoder's dictionaries, freezes them and sizes the
// model from them.
func encodeToy() (*chain.Model, *sparse.Corpus, error) {
	tokens, labels := parseToy()
	exs := make([]dataset.Example, len(tokens))
	for i := range tokens {
		exs[i] = dataset.Example{Tokens: tokens[i], Labels: labels[i]}
	}
	enc := features.NewTemplateEncoder(features.MustCompile(toyTemplate))
	return dataset.NewTrainingModel(enc, exs, 1)
}

// Train a chunker on six toy sentences and tag a sentence it has not seen.
func Example() {
	m, err := toyModel()
	if err != nil {
		log.Fatal(err)
	}
	tg := chain.NewTagger(m) // safe for concurrent use

	sentence := features.Columns{{"a", "DT"}, {"small", "JJ"}, {"dog", "NN"}, {"sees", "VBZ"}, {"the", "DT"}, {"cat", "NN"}}
	ids, err := tg.Tag(nil, sentence)
	if err != nil {
		log.Fatal(err)
	}
	for t, label := range tg.AppendLabels(nil, ids) {
		fmt.Printf("%-6s %-4s %s\n", sentence[t][0], sentence[t][1], label)
	}
	// Output:
	// a      DT   B-NP
	// small  JJ   I-NP
	// dog    NN   I-NP
	// sees   VBZ  B-VP
	// the    DT   B-NP
	// cat    NN   I-NP
}

// Tag with probabilities: the Viterbi path, its probability and the marginal
// probability of each token's label.
func ExampleTagger_Decode_probabilities() {
	m, err := toyModel()
	if err != nil {
		log.Fatal(err)
	}
	tg := chain.NewTagger(m)

	sentence := features.Columns{{"the", "DT"}, {"cat", "NN"}, {"runs", "VBZ"}}
	var d chain.Decoding
	if err := tg.Decode(&d, sentence, chain.DecodeOptions{Posterior: true}); err != nil {
		log.Fatal(err)
	}
	L := m.NumLabels()
	for t, y := range d.Best() {
		// Marginal is T×L, row-major.
		fmt.Printf("%-5s %-5s %.2f\n", sentence[t][0], m.Labels[y], d.Marginal[t*L+y])
	}
	fmt.Printf("P(path) = %.2f\n", d.Probs[0])
	// Output:
	// the   B-NP  0.98
	// cat   I-NP  0.99
	// runs  B-VP  0.97
	// P(path) = 0.95
}

// Save a model to bytes and load it back, as one would from a database or an
// embedded file: MarshalBinary, then ReadModel of a bytes.Reader (SaveFile and
// LoadFile do the same with a file,
// WriteTo and ReadModel with a stream). The loaded model carries its
// template and dictionaries, so it tags raw token columns. Saving compacts
// the model (see Model.Compact): attributes whose weights are all zero are
// left out, which changes no score.
func ExampleModel_MarshalBinary() {
	m, err := toyModel()
	if err != nil {
		log.Fatal(err)
	}
	b, err := m.MarshalBinary()
	if err != nil {
		log.Fatal(err)
	}
	loaded, err := chain.ReadModel(bytes.NewReader(b))
	if err != nil {
		log.Fatal(err)
	}

	sentence := features.Columns{{"dogs", "NNS"}, {"sleep", "VBP"}}
	before, _ := chain.NewTagger(m).Tag(nil, sentence)
	tg := chain.NewTagger(loaded)
	after, err := tg.Tag(nil, sentence)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("labels:", loaded.Labels)
	fmt.Println("same non-zero weights:", m.NonZero() == loaded.NonZero())
	fmt.Printf("attributes kept: %d of %d\n", loaded.Layout.NumUnary+loaded.Layout.NumPair, m.Layout.NumUnary+m.Layout.NumPair)
	fmt.Println(tg.AppendLabels(nil, before), tg.AppendLabels(nil, after))
	// Output:
	// labels: [B-NP I-NP B-VP B-ADVP]
	// same non-zero weights: true
	// attributes kept: 26 of 28
	// [B-NP B-VP] [B-NP B-VP]
}

// Save a model to a file and load it back. SaveFile is atomic: a failed
// save leaves an existing file untouched.
func ExampleModel_SaveFile() {
	m, err := toyModel()
	if err != nil {
		log.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "chain-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "toy.model")
	if err := m.SaveFile(path); err != nil {
		log.Fatal(err)
	}
	loaded, err := chain.LoadFile(path)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(loaded.Labels), "labels,", loaded.NonZero() == m.NonZero())
	// Output:
	// 4 labels, true
}
