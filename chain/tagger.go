package chain

import (
	"errors"
	"fmt"
	"math"
	"sync"

	"github.com/sparsetag/sparsetag/features"
	"github.com/sparsetag/sparsetag/inference"
	"github.com/sparsetag/sparsetag/sparse"
)

// Tagger labels sequences with a trained Model by Viterbi decoding.
//
// A Tagger is immutable and safe for concurrent use by multiple goroutines:
// every call takes its scratch space (workspace, encoding buffers, lattice)
// from a pool. The Model it was built from must not be modified while the
// Tagger is in use.
type Tagger struct {
	m    *Model
	pool sync.Pool // *tagScratch
}

type tagScratch struct {
	enc  *features.Encoder // a clone: encoders keep scratch buffers
	ws   *inference.Workspace
	lat  lattice
	seq  sparse.Corpus
	path []int
}

// NewTagger returns a Tagger for m.
func NewTagger(m *Model) *Tagger {
	t := &Tagger{m: m}
	t.pool.New = func() any {
		s := &tagScratch{ws: inference.NewWorkspace(16, len(m.Labels))}
		if m.Encoder != nil {
			s.enc = m.Encoder.Clone()
		}
		return s
	}
	return t
}

// Model returns the model the Tagger uses. It must not be modified.
func (t *Tagger) Model() *Model { return t.m }

// ErrNoEncoder is returned when raw input is tagged with a model that was
// trained on pre-encoded data and so has no feature encoder.
var ErrNoEncoder = errors.New("chain: model has no feature encoder (it was trained on pre-encoded data)")

func (t *Tagger) get() *tagScratch  { return t.pool.Get().(*tagScratch) }
func (t *Tagger) put(s *tagScratch) { t.pool.Put(s) }

// rawInput is one sequence of raw input of any kind the encoders read:
// token columns, name:value attributes, or OCR images.
type rawInput struct {
	cols   [][]string
	names  [][]string
	values [][]float64
	images [][]byte
}

// encode encodes in into s.seq (one sequence, frozen dictionaries).
func (t *Tagger) encode(s *tagScratch, in *rawInput) error {
	if t.m.Encoder == nil {
		return ErrNoEncoder
	}
	s.seq.Reset()
	switch {
	case in.names != nil:
		return s.enc.EncodeAttributes(&s.seq, in.names, in.values, nil, false)
	case in.images != nil:
		return s.enc.EncodePixels(&s.seq, in.images, nil, false)
	}
	return s.enc.EncodeColumns(&s.seq, in.cols, nil, false)
}

// tagRaw is Tag for any kind of raw input.
func (t *Tagger) tagRaw(dst []int, in *rawInput) ([]int, error) {
	s := t.get()
	defer t.put(s)
	if err := t.encode(s, in); err != nil {
		return dst, err
	}
	lat := t.m.score(&s.lat, t.m.W, &s.seq, 0)
	dst = resizeInts(dst, lat.T)
	inference.Viterbi(s.ws, lat, dst)
	return dst, nil
}

// TagEncoded writes the best label sequence of sequence i of c into dst
// (reusing its capacity) and returns it with its score.
func (t *Tagger) TagEncoded(dst []int, c *sparse.Corpus, i int) ([]int, float64) {
	s := t.get()
	defer t.put(s)
	lat := t.m.score(&s.lat, t.m.W, c, i)
	dst = resizeInts(dst, lat.T)
	score := inference.Viterbi(s.ws, lat, dst)
	return dst, score
}

// Tag labels one sequence of token columns (cols[t][c], the label column
// excluded) and writes the label ids into dst, reusing its capacity.
// Attributes that the model has never seen are skipped. Use Labels to turn
// ids into names.
func (t *Tagger) Tag(dst []int, cols [][]string) ([]int, error) {
	return t.tagRaw(dst, &rawInput{cols: cols})
}

// TagAttributes is Tag for name:value attribute input (CRFsuite style).
func (t *Tagger) TagAttributes(dst []int, names [][]string, values [][]float64) ([]int, error) {
	return t.tagRaw(dst, &rawInput{names: names, values: values})
}

// TagPixels is Tag for OCR input: one 16x8 binary image per letter.
func (t *Tagger) TagPixels(dst []int, images [][]byte) ([]int, error) {
	return t.tagRaw(dst, &rawInput{images: images})
}

// Labels converts label ids into names, appending to dst.
func (t *Tagger) Labels(dst []string, ids []int) []string {
	for _, y := range ids {
		dst = append(dst, t.m.Labels[y])
	}
	return dst
}

// Posterior is the result of TagProb for one sequence.
type Posterior struct {
	Path     []int     // Viterbi path
	Prob     float64   // probability of Path under the model
	Marginal []float64 // T*L node marginals P(y_t = y | x), row-major
	LogZ     float64   // log partition function
}

// TagEncodedProb decodes sequence i of c and also returns the sequence
// probability and the per-token marginals. The slices of p are reused when
// large enough.
func (t *Tagger) TagEncodedProb(p *Posterior, c *sparse.Corpus, i int) {
	s := t.get()
	defer t.put(s)
	t.posterior(s, p, c, i)
}

// TagProb is Tag with probabilities: see TagEncodedProb.
func (t *Tagger) TagProb(p *Posterior, cols [][]string) error {
	s := t.get()
	defer t.put(s)
	if err := t.encode(s, &rawInput{cols: cols}); err != nil {
		return err
	}
	t.posterior(s, p, &s.seq, 0)
	return nil
}

func (t *Tagger) posterior(s *tagScratch, p *Posterior, c *sparse.Corpus, i int) {
	lat := t.m.score(&s.lat, t.m.W, c, i)
	p.Path = resizeInts(p.Path, lat.T)
	best := inference.Viterbi(s.ws, lat, p.Path)
	p.LogZ = inference.ForwardBackward(s.ws, lat)
	p.Prob = math.Exp(best - p.LogZ)
	node := s.ws.Node()
	if cap(p.Marginal) < len(node) {
		p.Marginal = make([]float64, len(node))
	}
	p.Marginal = p.Marginal[:len(node)]
	copy(p.Marginal, node)
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
