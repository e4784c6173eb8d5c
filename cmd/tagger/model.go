package main

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"runtime/debug"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/corpora"
	"github.com/sparsetag/sparsetag/dataset"
	"github.com/sparsetag/sparsetag/peer"
)

// anyModel is a model of this toolkit or one trained by a peer toolkit
// (CRFsuite, CRF++, Wapiti; package peer): exactly one of ours and peer is
// set.
type anyModel struct {
	ours *chain.Model
	tg   *chain.Tagger
	peer peer.Model
}

// labels returns the label names in id order.
func (m *anyModel) labels() []string {
	if m.peer != nil {
		return m.peer.Labels()
	}
	return m.ours.Labels
}

// loadModel reads a model file of this toolkit or of a peer, telling them
// apart by the peer formats' magic bytes (after gzip decompression).
func loadModel(path string) (*anyModel, error) {
	f, err := detectPeer(path)
	if err != nil {
		return nil, err
	}
	if f != peer.FormatUnknown {
		pm, err := peer.Open(path)
		if err != nil {
			return nil, err
		}
		return &anyModel{peer: pm}, nil
	}
	m, err := chain.LoadFile(path)
	if err != nil {
		return nil, err
	}
	return &anyModel{ours: m, tg: chain.NewTagger(m)}, nil
}

// detectPeer reports the peer format of the model file at path, or
// peer.FormatUnknown (for this toolkit's models among others).
func detectPeer(path string) (peer.Format, error) {
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

// gcHeadroom is the heap growth allowed between garbage collections while
// tag and eval stream their input (see boundHeap).
const gcHeadroom = 16 << 20

// boundHeap sets the garbage collector's headroom to about gcHeadroom bytes
// over the live heap, which after loading a model is mostly the model,
// instead of GOGC's default 100% of it. With the default, a 75 MB model lets
// the heap grow to about 150 MB before the first collection, so the peak RSS
// of a streamed run would grow with the input until that point; with a
// fixed headroom it is the model plus a few batches, whatever the input's
// size. It does nothing unless e.tuneGC, or when GOGC or GOMEMLIMIT is set.
func boundHeap(e *env) {
	if !e.tuneGC || os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	pct := 100 * gcHeadroom / max(ms.HeapAlloc, 1)
	debug.SetGCPercent(int(min(max(pct, 10), 100)))
}

// peerFormat returns the input format a peer model reads: CRFsuite
// attribute files for CRFsuite models, token columns (CoNLL style) for CRF++
// and Wapiti models.
func peerFormat(m peer.Model) dataset.Format {
	if m.Format() == peer.FormatCRFsuite {
		return dataset.CRFsuite
	}
	return dataset.CoNLL
}

// peerLabeled reports how a peer model's input is read: CRFsuite attribute
// files always start with a label field (as crfsuite tag reads them); CRF++
// and Wapiti templates see every column of unlabeled input, as crf_test and
// wapiti label do, and only evaluation strips the last column as the label.
func peerLabeled(m peer.Model, eval bool) bool {
	return eval || m.Format() == peer.FormatCRFsuite
}

// peerSequence converts an example back to the sequence the peer taggers
// read.
func peerSequence(ex *dataset.Example) corpora.Sequence {
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

// peerDecode decodes ex with a peer model into d as the peer's tagger does:
// its Viterbi labels, or with posterior or n > 1 its n-best list with path
// probabilities exp(score - log Z) and node marginals.
func peerDecode(m peer.Model, d *chain.Decoding, ex *dataset.Example, n int, posterior bool) error {
	seq := peerSequence(ex)
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
