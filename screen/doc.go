// Package screen holds the safe screening rules for elastic-net CRFs as pure
// functions over flat vectors: beta_max, the per-feature range constants, the
// Fenchel-Young duality gap, the l1/Pinsker gap rule and the paper's
// Euclidean rule for enumerable (T = 1) problems. A rule returns which
// coordinates are provably zero at the optimum; it never touches an
// optimizer or a model.
//
// screen knows nothing of training loops, models, templates or corpora. It
// may import sparse (and inference for a type, if unavoidable).
package screen
