// Package chain is the linear-chain CRF model and what uses a trained one:
// the label set, the feature encoder and the weights; the scoring of one
// encoded sequence into an inference lattice; the concurrency-safe Tagger
// (decoding) and the explanation of its predictions; the model file format;
// compaction; and the mapping of an old model's weights onto a new one
// (continued training, Model.WeightsFrom; the "warm start" is train's
// stochastic start). Training lives in package train and the evaluation metrics
// in package eval.
//
// Of this module, chain imports only inference, features, sparse and
// internal/atomicfile, never corpora, train, eval or cmd/tagger: callers read
// data with corpora, encode it with a features.Encoder into a sparse.Corpus,
// train a Model with train and tag with a Tagger.
//
// # Weights
//
// A Model holds one flat weight vector W: state features (attribute a, label
// y) at a*L+y, then the L×L label transitions (prev*L+cur), then the
// observation-conditioned transitions of pair attributes, as defined once by
// sparse.Layout (embedded in Model). State, Trans and PairW are sub-slices of
// W. The Encoder, when there is one, holds the attribute dictionaries and
// turns raw input into attribute ids; models of pre-encoded data have none.
//
// # Scoring one sequence
//
// The lattice of one sequence of an encoded corpus under a weight vector
// laid out as W comes from the module's one scoring kernel
// (internal/lattice): the state scores (sum of attribute value × state
// weight per position), then the label transitions and the pair scores,
// which the lattice gets as per-position transitions (TransAt) only when
// some are non-zero. The trainer scores with the same kernel, so training
// and tagging see the same lattices; the Tagger's sparse views of the
// weights (stateView, tagWeights) are held bit for bit against it by tests.
//
// # Tagging, decoding and explanation
//
// A Tagger is immutable and safe for concurrent use: each call takes its
// scratch space from a pool. Its input is raw input of the kind the model's
// encoder reads (attributes the model has never seen are skipped) or an
// Encoded sequence. Tag returns the Viterbi path (allocating nothing with a
// reused result and column input); Decode adds, as DecodeOptions asks, the n best paths, the
// posterior (log Z, path probabilities, node marginals), transition
// constraints (NewConstraints, BIOConstraints) and fixed labels; NBestMemory
// bounds what an n-best decoding allocates, and DecodeOptions.MaxBytes
// refuses a sequence beyond a limit before allocating. When few
// state weights are non-zero, the Tagger scores from a sparse view of them,
// with bit-identical scores. Model.Explain (and Tagger.Explain, on raw or
// encoded input) breaks a path's score down by position into state scores,
// attribute contributions, transition and pair weights.
//
// # Tag-only load
//
// LoadTagger (a path) and ReadTagger (an io.Reader) read a model file into a
// Tagger without building W: the weight section is streamed in chunks into
// the sparse layout the Tagger scores from (per unary attribute its
// non-zero labels and weights, contiguous; per pair attribute its non-zero
// label pairs and weights), next to the dense L×L transitions, the labels
// and the encoder (attribute dictionaries). For N non-zero weights, U
// unary and P pair attributes and L labels the weights take at most
// 12·N + 4·(U+P+2) + 8·L² bytes (a non-zero state weight 2+8 bytes, a pair
// weight 4+8), against 8·(U·L + L² + P·L²) for W; the dictionaries and
// labels come on top, as in the full load. A tag-only Tagger tags, decodes
// and explains exactly as NewTagger of the full model, and the reader
// refuses the files ReadModel refuses with the same errors. Its Model
// method returns nil: what callers need of the model, every Tagger gives
// (Labels, LabelID, Encoder, Layout, NonZero, StateWeights,
// TransWeight, PairWeights). Since version 2 files are compact, their
// dictionaries hold no attribute a tag-only Tagger could drop.
//
// # Model files, compaction and continued training
//
// Models are saved in a versioned little-endian format of checksummed
// sections (see file.go) that stores only the non-zero weights and the
// encoder, so that a loaded model can tag raw input. ReadModel checks every
// declared size before allocating and reports malformed input as a
// FormatError with its section and byte offset; a version 2 file that loads
// re-encodes to the same bytes. SaveFile writes atomically and validates the
// file before renaming it into place. Saving compacts the model
// (Model.Compact): attributes without a non-zero weight are dropped and the
// others renumbered in order, which changes no score. Model.WeightsFrom maps an
// existing model's weights onto a new model by label and attribute names, as
// the starting point of further training (train.Options.Init);
// CheckWeightsFrom refuses a model that shares no label or no attribute, and
// LabelChanges names the labels that start at zero or are dropped.
package chain
