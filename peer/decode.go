package peer

import (
	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/corpora"
)

// Decode decodes seq on the model's score lattice with chain.DecodeLattice,
// as this toolkit decodes its own models: constraints (label schemes),
// fixed labels, n-best lists, posterior (max-marginal) decoding and span
// confidences. Its Viterbi path is the tool's own up to ties of
// bit-identical scores; Tag, NBest and Marginals stay the tool's exact
// behaviour.
func (m *CRFPPModel) Decode(d *chain.Decoding, seq corpora.Sequence, opt chain.DecodeOptions) error {
	sc := getScratch()
	defer putScratch(sc)
	if err := m.lattice(sc, seq); err != nil {
		return err
	}
	return chain.DecodeLattice(sc.ws, &sc.lat, d, &opt)
}

// Decode decodes seq as (*CRFPPModel).Decode does.
func (m *CRFsuiteModel) Decode(d *chain.Decoding, seq corpora.Sequence, opt chain.DecodeOptions) error {
	sc := getScratch()
	defer putScratch(sc)
	if err := m.lattice(sc, seq); err != nil {
		return err
	}
	return chain.DecodeLattice(sc.ws, &sc.lat, d, &opt)
}

// Decode decodes seq as (*CRFPPModel).Decode does.
func (m *WapitiModel) Decode(d *chain.Decoding, seq corpora.Sequence, opt chain.DecodeOptions) error {
	s, err := m.scores(seq)
	if err != nil {
		return err
	}
	sc := getScratch()
	defer putScratch(sc)
	m.lattice(sc, s)
	return chain.DecodeLattice(sc.ws, &sc.lat, d, &opt)
}
