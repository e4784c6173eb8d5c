// Package online holds CRFsuite's online and stochastic trainers of a
// linear-chain CRF: l2sgd (SGD with L2 regularization and a calibrated
// learning rate), ap (averaged perceptron), pa (passive-aggressive, types
// 0, 1 and 2) and arow (adaptive regularization of weights), each written
// from CRFsuite's lib/crf/src/train_*.c with its parameters under
// CRFsuite's names, defaults and meaning (Params, Help;
// docs/crfsuite-algorithms.md).
//
// They share the toolkit's kernels: the state scores of a sequence are
// summed attribute by attribute as internal/lattice.Score does (over the
// compact weights of the feature set), the transitions and pair scores
// come from internal/lattice.FinishTail, and Viterbi and forward-backward
// from package inference. Every feature source works (template features
// with label-bigram pair features, CRFsuite attributes with values, OCR
// pixels).
//
// The feature set is CRFsuite's default (FeatureSet's zero value: the
// attribute-label pairs and transitions observed in training) or the dense
// one (FeatureSet.Dense). Weights live in a compact vector over the
// features of the set, so memory is that of CRFsuite: three or four
// vectors over the features (ap: w, the sum of updates and the averaged
// model; pa and arow add the difference vector).
//
// A run is deterministic for a given input, parameters and seed. By
// default (Settings.Seed 0) the sequences are visited in CRFsuite's own
// order (glibc's unseeded rand() driving CRFsuite's shuffle), so that the
// run is CRFsuite's up to rounding, l2sgd's stopping epoch included; a
// non-zero Settings.Seed draws a fresh permutation every epoch from it
// instead. It runs on one goroutine: the updates of
// perceptron-like trainers and of SGD are sequential by nature, and a
// parallel variant (mini-batches, parallel decoding with a merge) would
// be another algorithm with other models, not CRFsuite's.
//
// Per-sequence weights (CRFsuite's instance weight, @weight:w in its
// data files) enter every algorithm as CRFsuite's do: they scale the
// perceptron, PA and AROW updates and their losses, and the gradient and
// loss of each sequence in l2sgd.
package online
