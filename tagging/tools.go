package tagging

import (
	"fmt"
	"math"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/corpora"
	"github.com/sparsetag/sparsetag/dataset"
	"github.com/sparsetag/sparsetag/features"
	"github.com/sparsetag/sparsetag/peer"
)

// tool is the Tagger (and the Weighted) of a model trained by CRFsuite,
// CRF++ or Wapiti: it decodes as the tool's own tagger does (package
// peer); constrained and forced decoding, posterior (max-marginal)
// decoding and span confidences run on the model's score lattice as for
// this toolkit's models (peer's Decode, chain.DecodeLattice).
type tool struct {
	m peer.Model
}

const toolCapabilities = NBest | Posterior | Constrained | Forced | Explanation

func (m tool) Format() string             { return m.m.Format().String() }
func (m tool) Labels() []string           { return m.m.Labels() }
func (m tool) Supports(c Capability) bool { return c&^toolCapabilities == 0 }

// Reads: CRFsuite models read CRFsuite attribute files (label first, as
// crfsuite tag reads them); CRF++ and Wapiti models read token columns,
// every column passed to their templates, as crf_test and wapiti label do.
func (m tool) Reads() Reads {
	if m.m.Format() == peer.FormatCRFsuite {
		return Reads{Kind: features.KindAttributes, Format: dataset.CRFsuite}
	}
	return Reads{Kind: features.KindTemplate, Format: dataset.CoNLL}
}

func (m tool) Tag(dst []int, ex *dataset.Example) ([]int, error) {
	return m.m.Tag(dst, sequence(ex))
}

// Weights lists the weights of the model file (Weighted).
func (m tool) Weights(fn func(peer.Weight) error) error { return m.m.Weights(fn) }

func (m tool) Explain(ex *dataset.Example, path []int) ([]chain.TokenExplanation, error) {
	return m.m.Explain(sequence(ex), path)
}

// Decode decodes ex as the tool's tagger does: its Viterbi labels, or with
// opt.Posterior or opt.N > 1 its n-best list with path probabilities
// exp(score - log Z) and node marginals.
func (m tool) Decode(d *chain.Decoding, ex *dataset.Example, opt chain.DecodeOptions) error {
	if err := Require(m, needs(&opt)); err != nil {
		return err
	}
	seq := sequence(ex)
	if opt.Constraints != nil || opt.Fixed != nil || opt.MaxMarginal || opt.Spans != nil {
		return m.m.Decode(d, seq, opt)
	}
	d.Probs, d.Marginal, d.Scores, d.Spans = d.Probs[:0], d.Marginal[:0], d.Scores[:0], d.Spans[:0]
	if opt.N <= 1 && !opt.Posterior {
		if cap(d.Paths) < 1 {
			d.Paths = make([][]int, 1)
		}
		d.Paths = d.Paths[:1]
		var err error
		d.Paths[0], err = m.m.Tag(d.Paths[0], seq)
		return err
	}
	return m.posterior(d, seq, max(opt.N, 1))
}

// posterior decodes the n best paths of seq with their probabilities and
// the node marginals into d.
func (m tool) posterior(d *chain.Decoding, seq corpora.Sequence, n int) error {
	paths, err := m.m.NBest(seq, n)
	if err != nil {
		return err
	}
	if len(paths) == 0 {
		return fmt.Errorf("%s model found no label sequence", m.m.Format())
	}
	if n == 1 {
		// The tool's own Viterbi labels, with the probability of the best
		// path (the same path up to ties of bit-identical scores).
		if paths[0].Labels, err = m.m.Tag(paths[0].Labels, seq); err != nil {
			return err
		}
	}
	d.Paths = d.Paths[:0]
	for _, p := range paths {
		d.Paths = append(d.Paths, p.Labels)
		d.Scores = append(d.Scores, p.Score)
	}
	if d.Marginal, d.LogZ, err = m.m.Marginals(d.Marginal, seq); err != nil {
		return err
	}
	for _, s := range d.Scores {
		d.Probs = append(d.Probs, math.Exp(s-d.LogZ))
	}
	return nil
}

// sequence converts an example back to the sequence the peer taggers
// read: its token columns, or its attributes with their values.
func sequence(ex *dataset.Example) corpora.Sequence {
	if ex.Names == nil {
		return corpora.Sequence{Tokens: ex.Tokens, Line: ex.Line}
	}
	s := corpora.Sequence{Attrs: make([][]corpora.Attr, len(ex.Names)), Line: ex.Line}
	for t, names := range ex.Names {
		s.Attrs[t] = make([]corpora.Attr, len(names))
		for j, n := range names {
			v := 1.0
			if ex.Values != nil && ex.Values[t] != nil {
				v = ex.Values[t][j]
			}
			s.Attrs[t][j] = corpora.Attr{Name: n, Value: v}
		}
	}
	return s
}
