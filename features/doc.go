// Package features turns raw observations into sparse attribute ids: the
// CRF++ template language over token columns, real-valued name:value
// attributes, OCR pixel attributes, the string→id attribute dictionary and
// the encoding of whole corpora into flat CSR arrays (package sparse).
//
// features knows nothing of inference, screening, training or file formats
// of corpora: it takes plain [][]string columns, attribute names and values,
// or pixel bitmaps. It may import sparse only.
//
// # Overview
//
// An Encoder of one of three kinds appends sequences to a sparse.Corpus with
// one method, Encode (Count to count attributes only), whose input is an
// [Input] of the encoder's kind:
//
//   - KindTemplate (NewTemplateEncoder) reads [Columns]: token columns
//     expanded by a CRF++ template (Compile; see Template for the
//     language). Existing CRF++ template files work unchanged; the
//     derived macros %l, %w, %p and %s (lower case, shape, prefix and
//     suffix of a cell) are this toolkit's own, and so are valued
//     columns of name:value items and word vectors read by %v
//     ([WithValued], [Valued], [Embeddings]).
//   - KindAttributes (NewAttributeEncoder) reads [Attributes]: name:value
//     attributes per position, as in CRFsuite's item format; or, through
//     [Encoder.EncodeBytes], [AttributeBytes]: the same names as bytes (a
//     reader's buffers), looked up without a string for each.
//   - KindPixels (NewPixelEncoder) reads [Pixels]: 16×8 binary OCR images
//     (see PixelOptions).
//
// Input of another kind is an error (*KindError), never a panic: the kind
// of a loaded model is only known at run time.
//
// Attribute strings are mapped to dense int32 ids by two Dictionaries, Unary
// (attributes of state features, attribute × label) and Pair (attributes of
// observation-conditioned transition features, attribute × previous label ×
// label, from B template lines with macros). The encoder keeps
// Corpus.NumUnary and Corpus.NumPair equal to the dictionary sizes.
//
// # Training and tagging
//
// At training time encode with grow=true: unseen attributes get the next id.
// For a minimum-frequency cutoff, first call Count over the
// whole corpus, then Freeze(minFreq), then encode with grow=false. At
// tagging time the dictionaries are frozen (Freeze, or NewEncoderFrom when
// loading a model) and unknown attributes are skipped, never added.
//
// A model file stores the encoder as its Kind, its template's Source(), its
// PixelOptions and the names of both dictionaries in id order; NewEncoderFrom
// rebuilds it from these parts.
//
// # Which features get weights
//
// Which (attribute, label) pairs become weights is part of the model
// definition, and screening is safe relative to that set. Two conventions
// exist: every label for every attribute (CRF++, Wapiti, and the paper's
// F(x,y) = x ⊗ e_y), giving NumUnary·L state weights; or only the pairs seen
// in the training data (CRFsuite's default, feature.possible_states=0),
// which ObservedPairs computes (ObservedTriples for pair attributes). With
// the CRF++ chunking template on CoNLL-2000 the first gives 338,551 × 22
// state weights, the second 456,323.
//
// # Invariants
//
// Every row of an encoded corpus lists each attribute id at most once, in
// increasing order. Pair rows exist only when the template has B lines with
// macros; then there is one per position and row 0 of every sequence is
// empty. Binary inputs (templates without Valued, pixels, attributes without values) give
// a binary matrix (nil Val).
//
// # Allocation
//
// Encoding allocates nothing per token in steady state: while training,
// attribute strings are built in a reused byte buffer and looked up with
// m[string(b)], which does not allocate; at tagging time (frozen
// dictionaries) template attributes are found without strings, from the
// cells' value ids, through tables built once on the first frozen encode
// (a one-off cost of about 0.1 s and 18 bytes per attribute for a
// 340,000-attribute dictionary). Only new attributes (grow=true), that
// first build and corpus growth allocate, and the derived macros %l and %w
// (a lower-cased cell or a shape that differs from the cell is a new
// string; %p and %s are substrings). Templates and frozen dictionaries are safe for concurrent use;
// an Encoder is not (use Clone for one per goroutine).
package features
