// Package eval scores predicted label sequences against gold ones: token
// and sequence accuracy, precision, recall and F1 per label, the most
// frequent confusions and, when the labels are chunk tags, chunk precision,
// recall and F1 as the CoNLL shared tasks' conlleval script computes them.
// It works on label strings only and knows nothing of models, features or
// tagging: dataset.EvaluateAll and tagger eval tag the data and hand it the
// labels.
//
// # Label schemes
//
// A chunk tag is "O" (outside any chunk) or one of the prefixes B, I, E,
// S, L and U, a hyphen and the chunk type, as in "B-NP". One set of rules
// reads five schemes [Tjong Kim Sang and Veenstra, "Representing text chunks",
// EACL 1999]:
//
//   - IOB1: I-X inside a chunk; B-X only on the first token of a chunk
//     that directly follows a chunk of the same type (CoNLL-2003).
//   - IOB2 (BIO): B-X on the first token of every chunk, I-X on the others
//     (CoNLL-2000).
//   - IOE (IOE1 and IOE2): I-X inside a chunk; E-X on the last token of a
//     chunk that directly precedes one of the same type (IOE1) or of every
//     chunk (IOE2).
//   - IOBES: B-X first, I-X inside, E-X last token of a chunk of two or more
//     tokens; S-X a chunk of one token.
//   - BILOU: IOBES with L-X (last) for E-X and U-X (unit) for S-X, read
//     as their IOBES equivalents.
//
// A chunk starts at B or S, at I or E after O, E or S, and where the type
// changes; it ends before B, S or O, after E or S, and where the type
// changes. Every sequence starts and ends outside any chunk, as at
// conlleval's sentence boundaries. A predicted chunk is correct when a gold
// chunk of the same type starts and ends on the same tokens.
//
// # Relation to conlleval
//
// For IOB1, IOB2 and IOE these are the rules of conlleval.pl (version
// 2004-01-26), so the counts, and the first lines of
// [Evaluation.WriteReport], equal conlleval's on the same labels.
// conlleval.pl does not understand IOBES: it knows E only as IOE uses it
// (E-X followed by B-X does not end a chunk) and S not at all ("S-NP S-NP"
// is one chunk to it, two here). On well-formed IOBES output the chunk scores here
// equal conlleval's on the same output converted to IOB2 (S-X to B-X, E-X to
// I-X).
//
// When a label is not a chunk tag (part-of-speech tags, OCR letters), chunk
// scores mean nothing: [Evaluation.ChunkTags] is false, the report leaves
// them out (conlleval prints them regardless) and [Evaluation.F1] is the
// token accuracy.
package eval
