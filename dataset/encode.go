package dataset

import (
	"errors"
	"fmt"
	"slices"
	"sync"

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

// idBytes is ID for the bytes of a name: only a new name becomes a string.
func (l *Labels) idBytes(name []byte) int32 {
	if id, ok := l.ids[string(name)]; ok {
		return id
	}
	return l.ID(string(name))
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
	return EncodeTrainingThreads(enc, exs, minFreq, 1)
}

// EncodeTrainingThreads is EncodeTraining on up to threads goroutines: a
// template encoder without valued columns, at minFreq <= 1, encodes
// consecutive parts of exs with dictionaries of their own and merges them
// in order (features.Encoder.Part), which gives the ids, rows and counts
// of the serial encoding whatever the number of parts; other encoders
// encode serially.
func EncodeTrainingThreads(enc *features.Encoder, exs []Example, minFreq, threads int) (*sparse.Corpus, []string, error) {
	var labels Labels
	ids := make([][]int32, len(exs))
	for i := range exs {
		ex := &exs[i]
		if ex.Labels == nil {
			return nil, nil, errNoLabels(ex, i, "training")
		}
		ids[i] = labels.AppendIDs(make([]int32, 0, len(ex.Labels)), ex.Labels)
	}
	if parts := min(threads, len(exs)/minPartSeqs); parts > 1 && minFreq <= 1 {
		if _, ok := enc.Part(); ok {
			c, err := encodeParts(enc, exs, ids, parts)
			if err != nil {
				return nil, nil, err
			}
			enc.Freeze(0)
			return c, labels.Names(), nil
		}
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
	reserve(c, enc, exs)
	if err := encodeRange(enc, c, exs, ids, 0, grow); err != nil {
		return nil, nil, err
	}
	if grow {
		enc.Freeze(0)
	}
	return c, labels.Names(), nil
}

// reserve sizes c for the labeled examples exs as enc encodes them
// (features.EntryBound), so that its rows are appended into storage
// allocated once instead of grown by doubling and copied again and again;
// without a bound it leaves c as it is. The encoding is the same.
func reserve(c *sparse.Corpus, enc *features.Encoder, exs []Example) {
	var positions, unary, pair int
	for i := range exs {
		in := exs[i].Input()
		u, p, ok := features.EntryBound(enc, in)
		if !ok {
			return
		}
		positions += in.Len()
		unary += u
		pair += p
	}
	pairRows := enc.Template() != nil && enc.Template().NumPair() > 0
	c.Grow(len(exs), positions, unary, pair, pairRows, true)
}

// minPartSeqs is the fewest sequences of a part of a parallel encoding.
const minPartSeqs = 256

// encodeRange appends exs (their label ids ids; the first is sequence
// first+1 of the data) to c with enc.
func encodeRange(enc *features.Encoder, c *sparse.Corpus, exs []Example, ids [][]int32, first int, grow bool) error {
	for i := range exs {
		if err := Encode(enc, c, &exs[i], ids[i], grow); err != nil {
			return fmt.Errorf("sequence %d: %w", first+i+1, err)
		}
	}
	return nil
}

// encodeParts encodes exs in parts consecutive parts on as many
// goroutines, the first with enc, the others with encoders of their own
// (enc.Part), and appends the others to the first in order, their ids
// mapped to enc's. An error is that of the first sequence that fails, as
// in the serial encoding.
func encodeParts(enc *features.Encoder, exs []Example, ids [][]int32, parts int) (*sparse.Corpus, error) {
	encs := make([]*features.Encoder, parts)
	cs := make([]*sparse.Corpus, parts)
	errs := make([]error, parts)
	var wg sync.WaitGroup
	for k := range parts {
		lo, hi := k*len(exs)/parts, (k+1)*len(exs)/parts
		encs[k], cs[k] = enc, &sparse.Corpus{}
		if k > 0 {
			encs[k], _ = enc.Part()
			reserve(cs[k], encs[k], exs[lo:hi])
		} else {
			reserve(cs[k], enc, exs) // the others are appended to it
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[k] = encodeRange(encs[k], cs[k], exs[lo:hi], ids[lo:hi], lo, true)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	c := cs[0]
	for k := 1; k < parts; k++ {
		ru, rp, err := enc.MergePart(encs[k])
		if err != nil {
			return nil, err
		}
		appendRemapped(c, cs[k], ru, rp)
	}
	c.NumUnary, c.NumPair = enc.Unary().Len(), enc.Pair().Len()
	return c, nil
}

// appendRemapped appends the sequences of src to dst, src's unary and pair
// ids mapped by ru and rp (each row sorted again; binary rows).
func appendRemapped(dst, src *sparse.Corpus, ru, rp []int32) {
	if len(dst.SeqPtr) == 0 {
		dst.SeqPtr = append(dst.SeqPtr, 0)
	}
	base := dst.SeqPtr[len(dst.SeqPtr)-1]
	for _, p := range src.SeqPtr[1:] {
		dst.SeqPtr = append(dst.SeqPtr, base+p)
	}
	dst.Labels = append(dst.Labels, src.Labels...)
	appendRows(&dst.Unary, &src.Unary, ru)
	if src.Pair.Rows() > 0 {
		appendRows(&dst.Pair, &src.Pair, rp)
	}
}

// appendRows appends the rows of src to dst with their ids mapped by
// remap and sorted.
func appendRows(dst, src *sparse.Matrix, remap []int32) {
	var row []int32
	for r := range src.Rows() {
		cols, _ := src.Row(r)
		row = row[:0]
		for _, a := range cols {
			row = append(row, remap[a])
		}
		slices.Sort(row)
		dst.AppendRow(row, nil)
	}
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
