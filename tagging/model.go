package tagging

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/corpora"
	"github.com/sparsetag/sparsetag/dataset"
	"github.com/sparsetag/sparsetag/peer"
)

// Model is a model of this toolkit or one trained by a peer toolkit
// (CRFsuite, CRF++, Wapiti; package peer): either Ours and Tagger are set,
// or Peer.
type Model struct {
	Ours   *chain.Model
	Tagger *chain.Tagger
	Peer   peer.Model
}

// Labels returns the label names in id order.
func (m *Model) Labels() []string {
	if m.Peer != nil {
		return m.Peer.Labels()
	}
	return m.Ours.Labels
}

// Load reads a model file of this toolkit or of a peer, telling them
// apart by the peer formats' magic bytes (after gzip decompression).
func Load(path string) (*Model, error) {
	f, err := DetectPeer(path)
	if err != nil {
		return nil, err
	}
	if f != peer.FormatUnknown {
		pm, err := peer.Open(path)
		if err != nil {
			return nil, err
		}
		return &Model{Peer: pm}, nil
	}
	m, err := chain.LoadFile(path)
	if err != nil {
		return nil, err
	}
	return &Model{Ours: m, Tagger: chain.NewTagger(m)}, nil
}

// LoadBytes is Load from the bytes of a model file (gzip-compressed or
// not): for models that arrive over the network or as a pipeline's side
// input. name is the model's name in error messages.
func LoadBytes(name string, data []byte) (*Model, error) {
	plain := data
	if len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b {
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("%s: gzip: %w", name, err)
		}
		if plain, err = io.ReadAll(io.LimitReader(zr, peer.MaxModelBytes+1)); err != nil {
			return nil, fmt.Errorf("%s: gzip: %w", name, err)
		}
	}
	if peer.Detect(plain) != peer.FormatUnknown {
		pm, err := peer.Parse(plain)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		return &Model{Peer: pm}, nil
	}
	m, err := chain.UnmarshalModel(plain)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &Model{Ours: m, Tagger: chain.NewTagger(m)}, nil
}

// DetectPeer reports the peer format of the model file at path, or
// peer.FormatUnknown (for this toolkit's models among others).
func DetectPeer(path string) (peer.Format, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	var r io.Reader = f
	br := bufio.NewReader(f)
	r = br
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return peer.FormatUnknown, nil // let the real loader report it
		}
		r = zr
	}
	head := make([]byte, 16)
	n, _ := io.ReadFull(r, head)
	return peer.Detect(head[:n]), nil
}

// PeerFormat returns the input format a peer model reads: CRFsuite
// attribute files for CRFsuite models, token columns (CoNLL style) for CRF++
// and Wapiti models.
func PeerFormat(m peer.Model) dataset.Format {
	if m.Format() == peer.FormatCRFsuite {
		return dataset.CRFsuite
	}
	return dataset.CoNLL
}

// PeerLabeled reports how a peer model's input is read: labeled only for
// evaluation. CRF++ and Wapiti templates see every column of unlabeled
// input, as crf_test and wapiti label do, and only evaluation strips the
// last column as the label; CRFsuite attribute files always start with a
// label field, which unlabeled reading skips whatever it holds (empty
// included), as crfsuite tag does and as for models of this toolkit.
func PeerLabeled(m peer.Model, eval bool) bool {
	return eval
}

// PeerSequence converts an example back to the sequence the peer taggers
// read.
func PeerSequence(ex *dataset.Example) corpora.Sequence {
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

// PeerDecode decodes ex with a peer model into d as the peer's tagger does:
// its Viterbi labels, or with posterior or n > 1 its n-best list with path
// probabilities exp(score - log Z) and node marginals.
func PeerDecode(m peer.Model, d *chain.Decoding, ex *dataset.Example, n int, posterior bool) error {
	seq := PeerSequence(ex)
	d.Probs, d.Marginal, d.Scores = d.Probs[:0], d.Marginal[:0], d.Scores[:0]
	if n <= 1 && !posterior {
		if cap(d.Paths) < 1 {
			d.Paths = make([][]int, 1)
		}
		d.Paths = d.Paths[:1]
		var err error
		d.Paths[0], err = m.Tag(d.Paths[0], seq)
		return err
	}
	paths, err := m.NBest(seq, max(n, 1))
	if err != nil {
		return err
	}
	if len(paths) == 0 {
		return fmt.Errorf("%s model found no label sequence", m.Format())
	}
	if n <= 1 {
		// The tool's own Viterbi labels, with the probability of the best
		// path (the same path up to ties of bit-identical scores).
		if paths[0].Labels, err = m.Tag(paths[0].Labels, seq); err != nil {
			return err
		}
	}
	d.Paths = d.Paths[:0]
	for _, p := range paths {
		d.Paths = append(d.Paths, p.Labels)
		d.Scores = append(d.Scores, p.Score)
	}
	d.Marginal, d.LogZ, err = m.Marginals(d.Marginal, seq)
	if err != nil {
		return err
	}
	for _, s := range d.Scores {
		d.Probs = append(d.Probs, math.Exp(s-d.LogZ))
	}
	return nil
}

// TagFunc returns the function that tags one example on worker w of at most
// workers for dataset.EvaluateStream: the chain.Tagger's labels, or the peer
// tagger's Viterbi labels.
func (m *Model) TagFunc(workers int) func(w int, dst []string, ex *dataset.Example) ([]string, error) {
	if m.Peer == nil {
		return dataset.TagFunc(m.Tagger, workers)
	}
	paths := make([][]int, workers)
	labels := m.Peer.Labels()
	return func(w int, dst []string, ex *dataset.Example) ([]string, error) {
		var err error
		if paths[w], err = m.Peer.Tag(paths[w], PeerSequence(ex)); err != nil {
			return dst, err
		}
		for _, y := range paths[w] {
			dst = append(dst, labels[y])
		}
		return dst, nil
	}
}
