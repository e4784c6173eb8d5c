// Package scheme reads chunk labels in the four label schemes of chunking
// and named-entity recognition (IOB1, IOB2, IOBES, BILOU): which label
// sequences are valid (transitions, first and last labels), the spans
// (chunks) a label sequence marks, and the exact marginal probability of a
// span under a chain distribution, from the node and edge marginals of
// package inference.
//
// scheme knows nothing of models or features: chain turns a [Labels] into
// decoding constraints, tagging writes the spans. It imports only
// inference.
//
// # Schemes
//
// [Tjong Kim Sang and Veenstra, "Representing text chunks", EACL 1999;
// Ratinov and Roth, CoNLL 2009 for BILOU]. O is outside every chunk; X is
// a chunk type.
//
//   - IOB1: I-X inside a chunk; B-X on the first token of a chunk that
//     directly follows a chunk of type X. Valid: B-X only after B-X or
//     I-X, never first.
//   - IOB2 (BIO): B-X first token of every chunk, I-X the others. Valid:
//     I-X only after B-X or I-X, never first.
//   - IOBES: B-X first, I-X inside, E-X last token of a chunk of two or
//     more; S-X a chunk of one token. Valid: after B-X or I-X only I-X or
//     E-X; after O, E-Y or S-Y only O, B-Z or S-Z; first O, B or S; last
//     O, E or S.
//   - BILOU: IOBES with L for E (last) and U for S (unit).
//
// A label of another prefix (E-X in IOB2) does not fit the scheme:
// [NewLabels] refuses it.
package scheme
