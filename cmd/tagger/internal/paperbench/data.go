package paperbench

import (
	"fmt"
	"github.com/sparsetag/sparsetag/cmd/tagger/internal/clifile"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/corpora"
	"github.com/sparsetag/sparsetag/dataset"
	"github.com/sparsetag/sparsetag/features"
	"github.com/sparsetag/sparsetag/sparse"
)

// Data is an encoded training set with the layout of its model: what
// train.Path needs, whatever the source (synthetic, OCR or a file).
type Data struct {
	Name        string
	Desc        string // sizes and model kind, for humans
	Corpus      *sparse.Corpus
	Labels      []string
	NumUnary    int
	NumPair     int
	Transitions bool
	Encoder     *features.Encoder // nil for synthetic sets
}

// NewModel returns a zero model with the data set's layout.
func (d *Data) NewModel() (*chain.Model, error) {
	return chain.NewModel(d.Labels, d.NumUnary, d.NumPair, d.Transitions, d.Encoder)
}

// Builtin lists the names of the built-in data sets (--data).
var Builtin = []string{"syn1", "syn2", "syn3", "ocr", "ocr-letters"}

// OCREmbedded is the embedded OCR file.
const OCREmbedded = clifile.EmbeddedPrefix + "ocr/letter.data.gz"

// LoadBuiltin returns a built-in data set: a synthetic set of the paper
// (syn1, syn2, syn3; T = 1, no transitions) with n and d multiplied by
// scale, or the embedded OCR words, as a chain over letters ("ocr") or
// letter by letter ("ocr-letters", T = 1 multiclass, no transitions), keeping
// an evenly spread fraction scale of the words.
func LoadBuiltin(name string, scale float64, seed uint64) (*Data, error) {
	if !(scale > 0 && scale <= 1) {
		return nil, fmt.Errorf("--scale %v: want 0 < scale <= 1", scale)
	}
	switch name {
	case "syn1", "syn2", "syn3":
		spec := map[string]corpora.SynSpec{"syn1": corpora.Syn1, "syn2": corpora.Syn2, "syn3": corpora.Syn3}[name]
		spec.Scale = scale
		return Synthetic(corpora.GenerateSynthetic(spec, seed)), nil
	case "ocr", "ocr-letters":
		return OCRData(name == "ocr-letters", scale)
	}
	return nil, fmt.Errorf("unknown data set %q (want %s)", name, strings.Join(Builtin, ", "))
}

// Synthetic wraps a synthetic set as a corpus of length-1 sequences. The
// slices are shared with s, not copied.
func Synthetic(s *corpora.Synthetic) *Data {
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
	return &Data{
		Name:   s.Name,
		Desc:   fmt.Sprintf("n=%d d=%d C=%d, T=1 multiclass", s.N, s.D*s.C, s.C),
		Corpus: c, Labels: labels, NumUnary: s.D,
	}
}

// keepFraction reports whether item i of an evenly spread fraction scale of
// the items is kept (every item for scale = 1).
func keepFraction(i int, scale float64) bool {
	return math.Floor(float64(i+1)*scale) > math.Floor(float64(i)*scale)
}

// OCRData reads the embedded OCR words and encodes one attribute per lit
// pixel: as chains over letters, or with every letter its own sequence.
func OCRData(letters bool, scale float64) (*Data, error) {
	words, err := clifile.ReadExamples(OCREmbedded, nil, dataset.Options{Format: dataset.OCR, Labeled: true})
	if err != nil {
		return nil, err
	}
	var exs []dataset.Example
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
		for t := range w.Pixels {
			exs = append(exs, dataset.Example{Pixels: w.Pixels[t : t+1], Labels: w.Labels[t : t+1], Text: w.Labels[t : t+1], File: w.File, Line: w.Line})
		}
	}
	enc := features.NewPixelEncoder(0)
	c, labels, err := dataset.EncodeTraining(enc, exs, 1)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", OCREmbedded, err)
	}
	d := &Data{
		Corpus: c, Labels: labels, NumUnary: enc.Unary().Len(), NumPair: enc.Pair().Len(), Encoder: enc,
	}
	L := len(labels)
	if letters {
		d.Name = "ocr-letters"
		d.Desc = fmt.Sprintf("%d letters of %d words, d=%d, L=%d, T=1 multiclass", c.Len(), nWords, d.NumUnary*L, L)
	} else {
		d.Name, d.Transitions = "ocr", true
		d.Desc = fmt.Sprintf("%d words, %d letters, d=%d, L=%d, chain", c.Len(), c.Positions(), d.NumUnary*L+L*L, L)
	}
	return d, nil
}

// FromFile reads and encodes a labeled file as tagger train does (see
// clifile.ReadExamples, clifile.NewEncoder and dataset.EncodeTraining).
func FromFile(path string, stdin io.Reader, opts dataset.Options, template string, minFreq int) (*Data, error) {
	opts.Labeled = true
	exs, err := clifile.ReadExamples(path, stdin, opts)
	if err != nil {
		return nil, err
	}
	enc, err := clifile.NewEncoder(opts.Format, template)
	if err != nil {
		return nil, err
	}
	c, labels, err := dataset.EncodeTraining(enc, exs, minFreq)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &Data{
		Name:   path,
		Desc:   fmt.Sprintf("%d sequences, %d positions, %d labels, %d attributes", c.Len(), c.Positions(), len(labels), enc.Unary().Len()+enc.Pair().Len()),
		Corpus: c, Labels: labels, NumUnary: enc.Unary().Len(), NumPair: enc.Pair().Len(),
		Transitions: enc.HasTransitions(), Encoder: enc,
	}, nil
}

// LoadBenchData returns a built-in data set (scale as in LoadBuiltin, seed
// 1), or "conll": the embedded CoNLL-2000 training set with the CRF++
// chunking template.
func LoadBenchData(name string, scale float64) (*Data, error) {
	if name != "conll" {
		if !slices.Contains(Builtin, name) {
			return nil, fmt.Errorf("unknown data set %q (want %s or conll)", name, strings.Join(Builtin, ", "))
		}
		return LoadBuiltin(name, scale, 1)
	}
	d, err := FromFile(clifile.EmbeddedPrefix+"conll2000/train.txt.gz", nil, dataset.Options{Format: dataset.CoNLL},
		clifile.EmbeddedPrefix+"conll2000/chunking.template", 1)
	if err != nil {
		return nil, err
	}
	d.Name = "conll"
	return d, nil
}
