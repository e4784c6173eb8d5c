// Package tagging serves every model the same way: one of this toolkit (a
// chain.Tagger) or one trained by CRFsuite, CRF++ or Wapiti (package peer)
// is a [Tagger], the one decoding interface of the toolkit. [Load] and
// [Read] read a model file of any of them, telling them apart by the
// peer formats' magic bytes.
//
// A Tagger says what it reads ([Reads]: token columns, name:value
// attributes or pixels, and for a peer model the one input format it reads)
// and what it supports ([Tagger.Supports], [Capability]: n-best lists,
// marginals and sequence probabilities, constrained and forced decoding,
// explanations); asking for what it does not support is an
// [UnsupportedError], never a nil check. [CheckInput] checks an input
// format against a model before any input is read. An input means the
// same to every model that reads it: the gold labels of labeled input are
// where its format puts them (a CRFsuite attribute file's first field,
// which tagging ignores, whichever model reads it).
//
// On top of the interface, the package streams tagged output in the
// formats of tagger tag ([Stream], one sequence at a time: [Writer]): CoNLL
// columns (CoNLL-U sentences written back whole, the label column set, for
// CoNLL-U input), word/TAG lines and JSON lines; evaluates ([Evaluate]);
// explains decisions ([Explain]); and bounds the memory of n-best decoding
// before it starts ([NBestBound]). [TagDocuments] tags running text:
// documents split into sentences and tokens by package rawtext, every
// token's offsets kept, and each document's chunks written as spans of its
// text with their confidences (package scheme).
//
// A whole model, every weight of it, is a [Weighted] ([LoadWeights]): what
// [Dump] lists and [Convert] rewrites (a CRFsuite model into one of this
// toolkit). Tagging never needs it.
//
// It is the glue between dataset, chain and peer that cmd/tagger wires to
// flags.
package tagging
