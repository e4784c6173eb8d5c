package main

import (
	"context"
	"embed"
	"fmt"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/corpora"
	"github.com/sparsetag/sparsetag/dataset"
	"github.com/sparsetag/sparsetag/features"
	"github.com/sparsetag/sparsetag/train"
)

// The embedded models are trained by the recipes below with this toolkit
// and committed under models/ as compacted, gzip-compressed model files.
// TestModelsCurrent retrains them and compares: after a change to a recipe
// or to training, `go test ./examples/web -run TestModelsCurrent -update`
// rewrites them.
//
//go:embed models/*.model.gz
var modelFiles embed.FS

// A recipe trains one embedded model.
type recipe struct {
	File  string `json:"file"`  // under models/
	Title string `json:"title"` // what the page's model list shows
	Panel string `json:"panel"` // "ocr" or "text": the panel that uses it
	train func(context.Context) (*chain.Model, *train.Result, error)
}

var recipes = []recipe{
	{File: "ocr.model.gz", Title: "Letters: pixels, pixel pairs, row and column counts (OCR folds 1-3)", Panel: "ocr",
		train: func(ctx context.Context) (*chain.Model, *train.Result, error) {
			return trainOCR(ctx, features.PixelPairs|features.PixelCounts|features.PixelBias)
		}},
	{File: "ocr-pixels.model.gz", Title: "Letters: lit pixels only (OCR folds 1-3)", Panel: "ocr",
		train: func(ctx context.Context) (*chain.Model, *train.Result, error) { return trainOCR(ctx, 0) }},
	{File: "chunk-words.model.gz", Title: "CoNLL-2000 chunks over words (2,000 sentences)", Panel: "text", train: trainWords},
}

// ocrTrainFolds are the OCR folds the letter models are trained on; fold 0
// is left for testing (the e2e test draws words of fold 0).
var ocrTrainFolds = []int{1, 2, 3}

// wordsSentences is the number of CoNLL-2000 training sentences (the first
// ones) the chunker over words is trained on.
const wordsSentences = 2000

// trainOCR trains a letter model with the pixel attributes of po on the
// embedded OCR folds ocrTrainFolds, with the settings of examples/ocr.
func trainOCR(ctx context.Context, po features.PixelOptions) (*chain.Model, *train.Result, error) {
	words, err := corpora.EmbeddedOCR(corpora.OCROptions{Folds: ocrTrainFolds})
	if err != nil {
		return nil, nil, err
	}
	exs := make([]dataset.Example, len(words))
	for i, w := range words {
		exs[i] = dataset.FromWord("embedded:ocr/letter.data.gz", w)
	}
	return trainModel(ctx, features.NewPixelEncoder(po), exs, train.Options{Problem: train.Problem{BetaRatio: 0.01}, Stopping: train.Stopping{Epsilon: 1e-4, MaxIter: 500}})
}

// trainWords trains the chunker over words on the first wordsSentences
// sentences of the embedded CoNLL-2000 training split, with the settings of
// examples/chunking and a looser gap.
func trainWords(ctx context.Context) (*chain.Model, *train.Result, error) {
	// The default template reads the words alone (column 0), so that the
	// model tags typed text after tokenization.
	tmpl, err := features.Compile(dataset.DefaultTemplate)
	if err != nil {
		return nil, nil, err
	}
	seqs, err := corpora.EmbeddedCoNLL2000("train")
	if err != nil {
		return nil, nil, err
	}
	seqs = seqs[:wordsSentences]
	exs := make([]dataset.Example, len(seqs))
	for i, s := range seqs {
		s.Tokens = wordsOnly(s.Tokens)
		exs[i] = dataset.FromSequence("embedded:conll2000/train.txt.gz", s)
	}
	return trainModel(ctx, features.NewTemplateEncoder(tmpl), exs,
		train.Options{Problem: train.Problem{SumForm: true, C1: 1, C2: 1}, Stopping: train.Stopping{Epsilon: 1e-4, Delta: 1e-5, MaxIter: 300}})
}

// wordsOnly keeps column 0 of every token, so that the model's encoder
// checks one column, as text input gives.
func wordsOnly(tokens [][]string) [][]string {
	out := make([][]string, len(tokens))
	for t, cols := range tokens {
		out[t] = cols[:1]
	}
	return out
}

func trainModel(ctx context.Context, enc *features.Encoder, exs []dataset.Example, opts train.Options) (*chain.Model, *train.Result, error) {
	m, c, err := dataset.NewTrainingModel(enc, exs, 1)
	if err != nil {
		return nil, nil, err
	}
	res, err := train.Train(ctx, m, c, opts)
	if err != nil {
		return nil, nil, fmt.Errorf("training: %w", err)
	}
	return m, res, nil
}
