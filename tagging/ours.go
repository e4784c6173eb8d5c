package tagging

import (
	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/dataset"
)

// FormatOurs is the Format of this toolkit's models.
const FormatOurs = "sparsetag"

// ours is a Tagger of this toolkit's models: it only uses a chain.Tagger
// (its methods, labels and encoder), never the model's dense weights.
type ours struct {
	tg *chain.Tagger
}

// NewTagger returns the Tagger of a chain.Tagger (a model of this toolkit).
func NewTagger(tg *chain.Tagger) Tagger { return ours{tg} }

func (m ours) Format() string             { return FormatOurs }
func (m ours) Labels() []string           { return m.tg.Labels() }
func (m ours) Supports(c Capability) bool { return true }

func (m ours) Reads() Reads {
	enc := m.tg.Encoder()
	if enc == nil {
		return Reads{}
	}
	return Reads{Kind: enc.Kind(), Template: enc.Template()}
}

func (m ours) Tag(dst []int, ex *dataset.Example) ([]int, error) {
	return m.tg.Tag(dst, ex.Input())
}

func (m ours) Decode(d *chain.Decoding, ex *dataset.Example, opt chain.DecodeOptions) error {
	return m.tg.Decode(d, ex.Input(), opt)
}

func (m ours) Explain(ex *dataset.Example, path []int) ([]chain.TokenExplanation, error) {
	return m.tg.Explain(ex.Input(), path)
}
