package dataset

import (
	"errors"
	"fmt"

	"github.com/sparsetag/sparsetag/features"
	"github.com/sparsetag/sparsetag/sparse"
)

// Labels interns label names: ids are dense, in order of first appearance.
// The zero value is empty and ready to use. A Labels is not safe for
// concurrent use.
type Labels struct {
	names []string
	ids   map[string]int32
}

// NewLabels returns a label set holding names, with ids in that order; a
// repeated name keeps its first id.
func NewLabels(names []string) *Labels {
	l := &Labels{}
	for _, n := range names {
		l.ID(n)
	}
	return l
}

// ID returns the id of name, adding it if it is new.
func (l *Labels) ID(name string) int32 {
	if id, ok := l.ids[name]; ok {
		return id
	}
	if l.ids == nil {
		l.ids = make(map[string]int32)
	}
	id := int32(len(l.names))
	l.ids[name] = id
	l.names = append(l.names, name)
	return id
}

// Lookup returns the id of name and whether it is in the set.
func (l *Labels) Lookup(name string) (int32, bool) {
	id, ok := l.ids[name]
	return id, ok
}

// Names returns the label names in id order. The caller must not modify it.
func (l *Labels) Names() []string { return l.names }

// Len returns the number of labels.
func (l *Labels) Len() int { return len(l.names) }

// AppendIDs interns the labels of a sequence and appends their ids to dst.
func (l *Labels) AppendIDs(dst []int32, names []string) []int32 {
	for _, n := range names {
		dst = append(dst, l.ID(n))
	}
	return dst
}

// DefaultTemplate is the feature template for column formats when none is
// given: the words in a +-2 window, two word bigrams, and label bigrams.
const DefaultTemplate = `# default template: words in a +-2 window, all columns at 0, label bigrams
U00:%x[-2,0]
U01:%x[-1,0]
U02:%x[0,0]
U03:%x[1,0]
U04:%x[2,0]
U05:%x[-1,0]/%x[0,0]
U06:%x[0,0]/%x[1,0]
B
`

// NewEncoder returns a new, growing feature encoder for the format: a
// template encoder for column formats (tmpl, or DefaultTemplate when tmpl
// is nil; features.Compile makes a template from its text), an attribute
// encoder for crfsuite and a pixel encoder (lit pixels only) for ocr, which
// take no template.
func NewEncoder(format Format, tmpl *features.Template) (*features.Encoder, error) {
	switch format {
	case CoNLL, CoNLLU, Text:
		if tmpl == nil {
			tmpl = features.MustCompile(DefaultTemplate)
		}
		if tmpl.NumUnary() == 0 && tmpl.NumPair() == 0 && !tmpl.HasTransitions() {
			return nil, errors.New("the template has no feature rule, so a model would have no feature: write U lines " +
				"(state features over token columns, e.g. U00:%x[0,0]) and a B line (label bigrams), as CRF++ templates do " +
				"(an example: embedded:conll2000/chunking.template)")
		}
		return features.NewTemplateEncoder(tmpl), nil
	case CRFsuite, OCR:
		if tmpl != nil {
			return nil, fmt.Errorf("dataset: a template applies to column formats, not to %s", format)
		}
		if format == OCR {
			return features.NewPixelEncoder(0), nil
		}
		return features.NewAttributeEncoder(), nil
	}
	return nil, fmt.Errorf("unknown format %q", format)
}

// Encode appends ex to c with enc, using the input that fits enc's kind.
// labels holds the label ids of ex (nil for unlabeled data); grow selects
// whether unseen attributes are added to enc's dictionaries (training) or
// skipped (tagging, with a frozen encoder).
func Encode(enc *features.Encoder, c *sparse.Corpus, ex *Example, labels []int32, grow bool) error {
	return enc.Encode(c, ex.Input(), labels, grow)
}

// count adds the attributes of ex to enc's frequency counts.
func count(enc *features.Encoder, ex *Example) error {
	return enc.Count(ex.Input())
}

// EncodeTraining encodes labeled examples for training: it interns their
// labels (in order of first appearance) and grows enc's dictionaries, then
// freezes enc. With minFreq > 1 it first counts every attribute and keeps
// only those seen at least minFreq times. It returns the corpus and the label
// names in id order. An error names the sequence by its 1-based index.
func EncodeTraining(enc *features.Encoder, exs []Example, minFreq int) (*sparse.Corpus, []string, error) {
	var labels Labels
	ids := make([][]int32, len(exs))
	for i := range exs {
		ex := &exs[i]
		if ex.Labels == nil {
			return nil, nil, errNoLabels(ex, i, "training")
		}
		ids[i] = labels.AppendIDs(make([]int32, 0, len(ex.Labels)), ex.Labels)
	}
	grow := true
	if minFreq > 1 {
		for i := range exs {
			if err := count(enc, &exs[i]); err != nil {
				return nil, nil, fmt.Errorf("sequence %d: %w", i+1, err)
			}
		}
		enc.Freeze(minFreq)
		grow = false
	}
	c := &sparse.Corpus{}
	for i := range exs {
		if err := Encode(enc, c, &exs[i], ids[i], grow); err != nil {
			return nil, nil, fmt.Errorf("sequence %d: %w", i+1, err)
		}
	}
	if grow {
		enc.Freeze(0)
	}
	return c, labels.Names(), nil
}

// errNoLabels is the error of a use (training, evaluation) that needs
// labels for ex, sequence i (0-based), read without them.
func errNoLabels(ex *Example, i int, use string) error {
	return fmt.Errorf("%ssequence %d has no labels: %s reads labeled examples (dataset.Options{Labeled: true})", ex.at(), i+1, use)
}

// EncodeFrozen encodes examples for tagging with a frozen encoder: unseen
// attributes are skipped and labels are not encoded.
func EncodeFrozen(enc *features.Encoder, exs []Example) (*sparse.Corpus, error) {
	c := &sparse.Corpus{}
	for i := range exs {
		if err := Encode(enc, c, &exs[i], nil, false); err != nil {
			return nil, fmt.Errorf("sequence %d: %w", i+1, err)
		}
	}
	return c, nil
}

// FixedLabels turns the labels of exs into label ids of the model's label
// set (for chain.DecodeOptions.Fixed): "_" and "?" leave a position free
// (-1), as does a missing label. A label outside the set is an error naming
// name, the sequence and the token.
func FixedLabels(labels []string, exs []Example, name string) ([][]int, error) {
	f := NewLabelFixer(labels, name)
	out := make([][]int, len(exs))
	for i := range exs {
		var err error
		if out[i], err = f.Fixed(&exs[i], i); err != nil {
			return nil, err
		}
	}
	return out, nil
}
