package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"math"
	"os"
	"strings"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/dataset"
	"github.com/sparsetag/sparsetag/features"
	"github.com/sparsetag/sparsetag/peer"
	"github.com/sparsetag/sparsetag/tagging"
)

// model is an opened or trained model: tg decodes (safe for concurrent
// use), cm holds the weights when they are a model of this toolkit (ours,
// or a CRFsuite model converted exactly; nil for CRF++ and Wapiti models,
// which tg reads as their own tools do).
type model struct {
	tg     tagging.Tagger
	cm     *chain.Model
	format string // the format of the file it came from: "CRFsuite", "sparsetag", "Wapiti", ...
}

func openModelFile(path string) (*model, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return openModelBytes(path, data)
}

// openModelBytes reads a model of any format the toolkit reads. A
// CRFsuite model becomes one of ours (tagging.Convert: the same labels
// on every input, as the peer tests check), so that every decoding
// (marginals, probabilities, n-best) is available.
func openModelBytes(name string, data []byte) (*model, error) {
	if len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b {
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if data, err = io.ReadAll(io.LimitReader(zr, peer.MaxModelBytes+1)); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	switch f := peer.Detect(data); f {
	case peer.FormatUnknown:
		cm, err := chain.ReadModel(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("%s: not a model file of CRFsuite, Wapiti, CRF++ or sparsetag: %w", name, err)
		}
		return fromChain(cm, tagging.FormatOurs), nil
	case peer.FormatCRFsuite:
		w, err := tagging.ReadWeights(name, bytes.NewReader(data))
		if err != nil {
			return nil, err
		}
		cm, err := tagging.Convert(w)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		return fromChain(cm, f.String()), nil
	default:
		tg, err := tagging.Read(name, bytes.NewReader(data))
		if err != nil {
			return nil, err
		}
		return &model{tg: tg, format: f.String()}, nil
	}
}

func fromChain(cm *chain.Model, format string) *model {
	return &model{tg: tagging.NewTagger(chain.NewTagger(cm)), cm: cm, format: format}
}

// checkKind refuses input of the other kind with a message.
func (m *model) checkKind(ex *dataset.Example) error {
	k := m.tg.Reads().Kind
	switch {
	case ex.Names != nil && k != features.KindAttributes && k != 0:
		return fmt.Errorf("this %s model reads token columns (lists of strings per token), not attribute dicts", m.format)
	case ex.Tokens != nil && k != features.KindTemplate:
		return fmt.Errorf("this %s model reads attributes (dicts or lists of attribute names), not token columns", m.format)
	}
	return nil
}

func (m *model) marginals(ex *dataset.Example) ([]float64, float64, error) {
	if ex.Len() == 0 {
		return nil, 0, nil
	}
	var d chain.Decoding
	if err := m.tg.Decode(&d, ex, chain.DecodeOptions{Posterior: true}); err != nil {
		return nil, 0, err
	}
	return d.Marginal, d.LogZ, nil
}

// probability returns P(path | x): exp(score(path) - log Z).
func (m *model) probability(ex *dataset.Example, path []int) (float64, error) {
	L := len(m.tg.Labels())
	if len(path) != ex.Len() {
		return 0, fmt.Errorf("%d labels for a sequence of %d items", len(path), ex.Len())
	}
	for t, y := range path {
		if y < 0 || y >= L {
			return 0, fmt.Errorf("label id %d at position %d out of range", y, t)
		}
	}
	if len(path) == 0 {
		return 1, nil
	}
	var d chain.Decoding
	if err := m.tg.Decode(&d, ex, chain.DecodeOptions{Fixed: path}); err != nil {
		return 0, err
	}
	score := d.Scores[0]
	if err := m.tg.Decode(&d, ex, chain.DecodeOptions{Posterior: true}); err != nil {
		return 0, err
	}
	return math.Exp(score - d.LogZ), nil
}

type nbestPath struct {
	Labels      []int   `json:"labels"`
	Score       float64 `json:"score"`
	Probability float64 `json:"probability"`
}

func (m *model) nbest(ex *dataset.Example, n int) ([]nbestPath, error) {
	if n < 1 {
		return nil, fmt.Errorf("n = %d, want at least 1", n)
	}
	if ex.Len() == 0 {
		return []nbestPath{{Labels: []int{}, Probability: 1}}, nil
	}
	var d chain.Decoding
	if err := m.tg.Decode(&d, ex, chain.DecodeOptions{N: n, Posterior: true, MaxBytes: 1 << 30}); err != nil {
		return nil, err
	}
	out := make([]nbestPath, len(d.Paths))
	for i := range d.Paths {
		out[i] = nbestPath{Labels: d.Paths[i], Score: d.Scores[i], Probability: d.Probs[i]}
	}
	return out, nil
}

type modelSummary struct {
	Format     string `json:"format"`
	Reads      string `json:"reads"`
	Labels     int    `json:"labels"`
	Attributes int    `json:"attributes"`
	NonZero    int    `json:"nonzero"`
	CRFsuite   string `json:"crfsuite"` // "" when writable as CRFsuite, else why not
}

func (m *model) summary() modelSummary {
	s := modelSummary{Format: m.format, Labels: len(m.tg.Labels())}
	switch m.tg.Reads().Kind {
	case features.KindAttributes:
		s.Reads = "attributes"
	case features.KindTemplate:
		s.Reads = "columns"
	case features.KindPixels:
		s.Reads = "pixels"
	}
	if m.cm != nil {
		s.Attributes, s.NonZero = m.cm.Layout.NumUnary, m.cm.NonZero()
		if err := peer.CheckCRFsuite(m.cm); err != nil {
			s.CRFsuite = err.Error()
		}
	} else {
		s.CRFsuite = m.format + " models are read as they are and cannot be written"
	}
	return s
}

func (m *model) weights() (*chain.Model, error) {
	if m.cm == nil {
		return nil, fmt.Errorf("a %s model is read as it is: its weights cannot be written or dumped in CRFsuite's form (tagger dump prints them)", m.format)
	}
	return m.cm, nil
}

func (m *model) bytes(format string) ([]byte, error) {
	cm, err := m.weights()
	if err != nil {
		return nil, err
	}
	switch format {
	case "crfsuite":
		return peer.MarshalCRFsuite(cm)
	case "ours", "sparsetag":
		return cm.MarshalBinary()
	}
	return nil, fmt.Errorf("unknown model format %q (want crfsuite or ours)", format)
}

func (m *model) save(path, format string) error {
	cm, err := m.weights()
	if err != nil {
		return err
	}
	switch format {
	case "crfsuite":
		return peer.SaveCRFsuite(path, cm)
	case "ours", "sparsetag":
		return cm.SaveFile(path)
	}
	return fmt.Errorf("unknown model format %q (want crfsuite or ours)", format)
}

// dump returns the text crfsuite dump (crf1dm_dump) prints for the
// CRFsuite model file MarshalCRFsuite writes of the model.
func (m *model) dump() (string, error) {
	cm, err := m.weights()
	if err != nil {
		return "", err
	}
	data, err := peer.MarshalCRFsuite(cm)
	if err != nil {
		return "", err
	}
	u32 := func(off int) uint32 {
		return uint32(data[off]) | uint32(data[off+1])<<8 | uint32(data[off+2])<<16 | uint32(data[off+3])<<24
	}
	var b strings.Builder
	fmt.Fprintf(&b, "FILEHEADER = {\n  magic: %s\n  size: %d\n  type: %s\n  version: %d\n  num_features: %d\n  num_labels: %d\n  num_attrs: %d\n",
		data[:4], u32(4), data[8:12], u32(12), u32(16), u32(20), u32(24))
	fmt.Fprintf(&b, "  off_features: 0x%X\n  off_labels: 0x%X\n  off_attrs: 0x%X\n  off_labelrefs: 0x%X\n  off_attrrefs: 0x%X\n}\n\n",
		u32(28), u32(32), u32(36), u32(40), u32(44))
	b.WriteString("LABELS = {\n")
	for i, l := range cm.Labels {
		fmt.Fprintf(&b, "  %5d: %s\n", i, l)
	}
	b.WriteString("}\n\nATTRIBUTES = {\n")
	L := len(cm.Labels)
	d := cm.Encoder.Unary()
	var kept []int
	for a := 0; a < cm.Layout.NumUnary; a++ {
		for _, w := range cm.State[a*L : a*L+L] {
			if w != 0 {
				kept = append(kept, a)
				break
			}
		}
	}
	for i, a := range kept {
		fmt.Fprintf(&b, "  %5d: %s\n", i, d.Name(int32(a)))
	}
	b.WriteString("}\n\nTRANSITIONS = {\n")
	if cm.Layout.Transitions {
		for p := 0; p < L; p++ {
			for y := 0; y < L; y++ {
				if w := cm.Trans[p*L+y]; w != 0 {
					fmt.Fprintf(&b, "  (1) %s --> %s: %f\n", cm.Labels[p], cm.Labels[y], w)
				}
			}
		}
	}
	b.WriteString("}\n\nSTATE_FEATURES = {\n")
	for _, a := range kept {
		for y, w := range cm.State[a*L : a*L+L] {
			if w != 0 {
				fmt.Fprintf(&b, "  (0) %s --> %s: %f\n", d.Name(int32(a)), cm.Labels[y], w)
			}
		}
	}
	b.WriteString("}\n\n")
	return b.String(), nil
}
