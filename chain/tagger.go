package chain

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/sparsetag/sparsetag/features"
	"github.com/sparsetag/sparsetag/inference"
	"github.com/sparsetag/sparsetag/internal/lattice"
	"github.com/sparsetag/sparsetag/sparse"
)

// Tagger labels sequences with a trained Model by Viterbi decoding. It has
// two operations over one Input type: Tag (the best label sequence) and
// Decode (scores, n-best lists, probabilities and marginals, constrained and
// forced decoding, as DecodeOptions asks), and Explain breaks a labeling's
// score down.
//
// NewTagger builds a Tagger over a Model, which keeps its dense weights;
// LoadTagger and ReadTagger read a model file into a tag-only Tagger that
// holds only the non-zero weights (see ReadTagger for its memory). Both
// give the same results, bit for bit. What callers need of the model is
// available from every Tagger: Labels, LabelID, Encoder, Layout,
// NonZero; Model returns the Model of NewTagger, and nil for a tag-only
// Tagger.
//
// tagging.Tagger serves a Tagger (and the models of other toolkits) under
// the same method names: Labels is the label set on both, Tag and Decode
// take the same options; it takes a *dataset.Example, the input of every
// toolkit's models, where a Tagger takes an Input, the input of this
// toolkit's encoders.
//
// A Tagger is immutable and safe for concurrent use by multiple goroutines:
// every call takes its scratch space (workspace, encoding buffers, lattice)
// from a pool. The Model it was built from must not be modified while the
// Tagger is in use.
type Tagger struct {
	m    *Model      // NewTagger; nil for a tag-only Tagger
	view *stateView  // nil: score from the dense weights
	lite *tagOnlyRef // tag-only: everything else (m is nil)
	pool sync.Pool   // *tagScratch
}

// tagOnlyRef is what a tag-only Tagger knows of its model.
type tagOnlyRef struct {
	labels []string
	enc    *features.Encoder
	w      *tagWeights
}

type tagScratch struct {
	enc *features.Encoder // a clone: encoders keep scratch buffers
	ws  *inference.Workspace
	lat lattice.Scratch
	seq sparse.Corpus
}

// NewTagger returns a Tagger for m.
func NewTagger(m *Model) *Tagger {
	t := &Tagger{m: m, view: newStateView(m)}
	t.pool.New = newScratch(len(m.Labels), m.Encoder)
	return t
}

// newTagOnly returns the tag-only Tagger of a model file's labels,
// weights and encoder (nil for a model of pre-encoded data).
func newTagOnly(labels []string, w *tagWeights, enc *features.Encoder) *Tagger {
	t := &Tagger{lite: &tagOnlyRef{labels: labels, enc: enc, w: w}}
	t.pool.New = newScratch(len(labels), enc)
	return t
}

// newScratch returns the pool constructor of a Tagger's scratch.
func newScratch(L int, enc *features.Encoder) func() any {
	return func() any {
		s := &tagScratch{ws: inference.NewWorkspace(16, L)}
		if enc != nil {
			s.enc = enc.Clone()
		}
		return s
	}
}

// Model returns the model of a Tagger made by NewTagger, which must not be
// modified, and nil for a tag-only Tagger (LoadTagger, ReadTagger), which
// has no dense weights to give: use Labels, Encoder, Layout and the
// other methods of Tagger, which every Tagger has.
func (t *Tagger) Model() *Model { return t.m }

// Labels returns the label names in id order: label ids index them. The
// slice is shared and must not be modified.
func (t *Tagger) Labels() []string {
	if t.m != nil {
		return t.m.Labels
	}
	return t.lite.labels
}

// NumLabels returns the number of labels.
func (t *Tagger) NumLabels() int { return len(t.Labels()) }

// LabelID returns the id of label name, or -1.
func (t *Tagger) LabelID(name string) int { return slices.Index(t.Labels(), name) }

// Encoder returns the model's feature encoder (frozen; shared, so encode
// with a Clone), or nil for a model of pre-encoded data.
func (t *Tagger) Encoder() *features.Encoder {
	if t.m != nil {
		return t.m.Encoder
	}
	return t.lite.enc
}

// Layout returns the layout of the model's weights (see Model): the number
// of unary and pair attributes, of labels, and whether there are
// label-bigram features.
func (t *Tagger) Layout() sparse.Layout {
	if t.m != nil {
		return t.m.Layout
	}
	return t.lite.w.layout
}

// NonZero returns the number of non-zero weights of the model.
func (t *Tagger) NonZero() int {
	if t.m != nil {
		return t.m.NonZero()
	}
	return t.lite.w.nonZero()
}

// ErrNoEncoder is returned when raw input is tagged with a model that was
// trained on pre-encoded data and so has no feature encoder.
var ErrNoEncoder = errors.New("chain: model has no feature encoder (it was trained on pre-encoded data)")

func (t *Tagger) get() *tagScratch  { return t.pool.Get().(*tagScratch) }
func (t *Tagger) put(s *tagScratch) { t.pool.Put(s) }

// Input is one sequence for a Tagger: raw input of the kind the model's
// encoder reads ([features.Columns], [features.Attributes] or
// [features.Pixels], which the Tagger encodes with its frozen dictionaries,
// skipping attributes the model has never seen), or [Encoded], a sequence
// already encoded with the model's encoder. Other implementations are
// rejected with ErrInput.
type Input interface {
	// Len returns the number of positions.
	Len() int
}

// Encoded is sequence Seq of a corpus encoded with the model's encoder (or
// built by hand, for a model without encoder).
type Encoded struct {
	Corpus *sparse.Corpus
	Seq    int
}

// Len returns the length of the sequence.
func (e Encoded) Len() int {
	_, n := e.Corpus.Span(e.Seq)
	return n
}

// ErrInput is returned for an Input that is neither a features.Input nor
// an Encoded, and for an Encoded sequence out of range.
var ErrInput = errors.New("chain: input is not a features.Input or a valid chain.Encoded sequence")

// sequence returns in as sequence i of an encoded corpus, encoding raw
// input into s.seq. It uses type switches, not interface calls, so that in
// does not escape (Tag with a reused result allocates nothing).
func (t *Tagger) sequence(s *tagScratch, in Input) (*sparse.Corpus, int, error) {
	switch x := in.(type) {
	case Encoded:
		if x.Corpus == nil || x.Seq < 0 || x.Seq >= x.Corpus.Len() {
			return nil, 0, ErrInput
		}
		return x.Corpus, x.Seq, nil
	case features.Input:
		if t.Encoder() == nil {
			return nil, 0, ErrNoEncoder
		}
		s.seq.Reset()
		if err := s.enc.Encode(&s.seq, x, nil, false); err != nil {
			return nil, 0, err
		}
		return &s.seq, 0, nil
	}
	return nil, 0, ErrInput
}

// Tag writes the best (Viterbi) label sequence of in into dst, reusing its
// capacity, and returns it. Use Labels to turn ids into names, and Decode
// for scores, probabilities, n-best lists and constraints.
//
// With a reused dst and features.Columns input, Tag allocates nothing.
func (t *Tagger) Tag(dst []int, in Input) ([]int, error) {
	s := t.get()
	defer t.put(s)
	c, i, err := t.sequence(s, in)
	if err != nil {
		return dst, err
	}
	lat := t.score(s, c, i)
	dst = resizeInts(dst, lat.T)
	inference.Viterbi(s.ws, lat, dst)
	return dst, nil
}

// score returns the lattice of sequence i of c: from the sparse weights of
// a tag-only Tagger, else from the sparse view of the state weights when
// there is one, else from the dense weights.
func (t *Tagger) score(s *tagScratch, c *sparse.Corpus, i int) *inference.Lattice {
	if t.lite != nil {
		return t.lite.w.score(&s.lat, c, i)
	}
	if t.view != nil {
		return t.view.score(t.m, &s.lat, c, i)
	}
	return lattice.Score(&s.lat, t.m.Layout, t.m.W, c, i)
}

// AppendLabels appends the names of the label ids of path to dst and
// returns the extended slice.
func (t *Tagger) AppendLabels(dst []string, path []int) []string {
	names := t.Labels()
	for _, y := range path {
		dst = append(dst, names[y])
	}
	return dst
}

func resizeInts(dst []int, n int) []int {
	if cap(dst) < n {
		return make([]int, n)
	}
	return dst[:n]
}

// checkFinite reports the first non-finite value of w.
func checkFinite(w []float64) error {
	for j, v := range w {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("chain: weight %d is %v", j, v)
		}
	}
	return nil
}
