// Package chain is the linear-chain CRF model: label set, attribute
// dictionary, state and transition weights in flat slices, scoring of encoded
// sequences into inference lattices, the concurrency-safe Tagger, the model
// file format, and the elastic-net trainer that orchestrates inference,
// features, sparse and screen.
//
// chain never imports corpora or cmd/tagger: callers read data with corpora,
// encode it with a features.Encoder into a sparse.Corpus, and hand that to
// Train or Path.
//
// # Weights
//
// A Model holds one flat weight vector W: state features (attribute a, label
// y) at a*L+y, then the L×L label transitions (prev*L+cur), then the
// observation-conditioned transitions of pair attributes, as defined once by
// sparse.Layout (embedded in Model). State, Trans and PairW are sub-slices of
// W. The feature set is part of the model definition: every (attribute,
// label) pair by default (CRF++, Wapiti and the paper), or only the pairs seen
// in training (Options.ObservedPairs, CRFsuite's default); screening is safe
// relative to that set.
//
// # Training
//
// Train minimizes P(w) = (1/n) sum_i NLL_i(w) + beta (alpha/2 ||w||^2 +
// ||w||_1) (or the sum form with C1 and C2: beta = C1/n, alpha = 2 C2/C1) by
// OWL-QN [Andrew and Gao, "Scalable training of L1-regularized log-linear
// models", ICML 2007], stopping on the Fenchel-Young duality gap. At every
// full gradient evaluation the safe screening rule of package screen (the
// l1/Pinsker gap rule by default; the paper's rule, "Safe Screening for
// Sparse Conditional Random Fields", for T = 1 problems) proves some weights
// zero at the optimum; they are removed from the weight vector, the gradient,
// the optimizer's memory and the encoded data, and the returned model has
// exact zeros there. Path solves a sequence of betas with warm starts.
//
// Training is deterministic: sequences are split into a fixed number of
// shards whatever Options.Threads is, and every reduction runs in a fixed
// order, so the model is bit-identical for any number of threads.
//
// # Tagging and model files
//
// A Tagger is immutable and safe for concurrent use. Models are saved in a
// versioned, checksummed little-endian format (see file.go) that stores only
// non-zero weights and the feature encoder, so that a loaded model can tag raw
// input. Saving compacts the model (Model.Compact): attributes without a
// non-zero weight are dropped, which changes no score.
package chain
