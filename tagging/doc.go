// Package tagging loads a model of this toolkit or of a peer toolkit
// (CRFsuite, CRF++, Wapiti; package peer), telling them apart by their magic
// bytes, dispatches decoding to the right tagger, and streams tagged output
// in the formats of tagger tag: CoNLL columns (CoNLL-U sentences written
// back whole, the label column set, for CoNLL-U input), word/TAG lines and
// JSON lines. It also converts a CRFsuite model into one of this toolkit
// ([Convert], [ConvertFile]), explains decisions ([Explain]), and bounds the
// memory of n-best decoding before it starts ([NBestBound]). It is the glue
// between dataset, chain and peer that cmd/tagger wires to flags.
//
// An input means the same to every model that reads it: a CRFsuite
// attribute file starts with its label field, which tagging ignores,
// whether a CRFsuite model or a converted one reads it ([PeerLabeled]).
package tagging
