package main

import (
	"fmt"
	"math"
	"strings"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/corpora"
	"github.com/sparsetag/sparsetag/features"
	"github.com/sparsetag/sparsetag/sparse"
)

// dataset is an encoded training set with the layout of its model: what
// chain.Path needs, whatever the source (synthetic, OCR or a file).
type dataset struct {
	name        string
	desc        string // sizes and model kind, for humans
	corpus      *sparse.Corpus
	labels      []string
	numUnary    int
	numPair     int
	transitions bool
	enc         *features.Encoder // nil for synthetic sets
}

// newModel returns a zero model with the data set's layout.
func (d *dataset) newModel() (*chain.Model, error) {
	return chain.NewModel(d.labels, d.numUnary, d.numPair, d.transitions, d.enc)
}

// builtinData lists the names accepted by --data.
var builtinData = []string{"syn1", "syn2", "syn3", "ocr", "ocr-letters"}

const ocrEmbedded = embeddedPrefix + "ocr/letter.data.gz"

// loadBuiltin returns a built-in data set: a synthetic set of the paper
// (syn1, syn2, syn3; T = 1, no transitions) with n and d multiplied by
// scale, or the embedded OCR words, as a chain over letters ("ocr") or
// letter by letter ("ocr-letters", T = 1 multiclass, no transitions), keeping
// an evenly spread fraction scale of the words.
func loadBuiltin(name string, scale float64, seed uint64) (*dataset, error) {
	if !(scale > 0 && scale <= 1) {
		return nil, fmt.Errorf("--scale %v: want 0 < scale <= 1", scale)
	}
	switch name {
	case "syn1", "syn2", "syn3":
		spec := map[string]corpora.SynSpec{"syn1": corpora.Syn1, "syn2": corpora.Syn2, "syn3": corpora.Syn3}[name]
		spec.Scale = scale
		return synthDataset(corpora.GenerateSynthetic(spec, seed)), nil
	case "ocr", "ocr-letters":
		return ocrDataset(name == "ocr-letters", scale)
	}
	return nil, fmt.Errorf("unknown data set %q (want %s)", name, strings.Join(builtinData, ", "))
}

// synthDataset wraps a synthetic set as a corpus of length-1 sequences. The
// slices are shared with s, not copied.
func synthDataset(s *corpora.Synthetic) *dataset {
	seq := make([]int32, s.N+1)
	for i := range seq {
		seq[i] = int32(i)
	}
	c := &sparse.Corpus{
		SeqPtr:   seq,
		Unary:    sparse.Matrix{RowPtr: s.RowPtr, Col: s.Col, Val: s.Val},
		Labels:   s.Labels,
		NumUnary: s.D,
	}
	labels := make([]string, s.C)
	for k := range labels {
		labels[k] = fmt.Sprintf("c%d", k)
	}
	return &dataset{
		name:   s.Name,
		desc:   fmt.Sprintf("n=%d d=%d C=%d, T=1 multiclass", s.N, s.D*s.C, s.C),
		corpus: c, labels: labels, numUnary: s.D,
	}
}

// keepFraction reports whether item i of an evenly spread fraction scale of
// the items is kept (every item for scale = 1).
func keepFraction(i int, scale float64) bool {
	return math.Floor(float64(i+1)*scale) > math.Floor(float64(i)*scale)
}

// ocrDataset reads the embedded OCR words and encodes one attribute per lit
// pixel: as chains over letters, or with every letter its own sequence.
func ocrDataset(letters bool, scale float64) (*dataset, error) {
	words, err := readExamples(ocrEmbedded, dataFlags{format: "ocr"}, true, nil)
	if err != nil {
		return nil, err
	}
	var exs []example
	nWords := 0
	for i := range words {
		if !keepFraction(i, scale) {
			continue
		}
		nWords++
		w := &words[i]
		if !letters {
			exs = append(exs, *w)
			continue
		}
		for t := range w.pixels {
			exs = append(exs, example{pixels: w.pixels[t : t+1], labels: w.labels[t : t+1], text: w.labels[t : t+1]})
		}
	}
	enc := features.NewPixelEncoder(0)
	c, labels, err := trainingSet(enc, exs, 1)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ocrEmbedded, err)
	}
	d := &dataset{
		corpus: c, labels: labels, numUnary: enc.Unary().Len(), numPair: enc.Pair().Len(), enc: enc,
	}
	L := len(labels)
	if letters {
		d.name = "ocr-letters"
		d.desc = fmt.Sprintf("%d letters of %d words, d=%d, L=%d, T=1 multiclass", c.Len(), nWords, d.numUnary*L, L)
	} else {
		d.name, d.transitions = "ocr", true
		d.desc = fmt.Sprintf("%d words, %d letters, d=%d, L=%d, chain", c.Len(), c.Positions(), d.numUnary*L+L*L, L)
	}
	return d, nil
}

// fileDataset reads and encodes a labeled file as train does.
func fileDataset(e *env, path string, df dataFlags, template string, minFreq int) (*dataset, error) {
	exs, err := readExamples(path, df, true, e.stdin)
	if err != nil {
		return nil, err
	}
	enc, err := newEncoder(df.format, template)
	if err != nil {
		return nil, err
	}
	c, labels, err := trainingSet(enc, exs, minFreq)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &dataset{
		name:   path,
		desc:   fmt.Sprintf("%d sequences, %d positions, %d labels, %d attributes", c.Len(), c.Positions(), len(labels), enc.Unary().Len()+enc.Pair().Len()),
		corpus: c, labels: labels, numUnary: enc.Unary().Len(), numPair: enc.Pair().Len(),
		transitions: enc.HasTransitions(), enc: enc,
	}, nil
}
