// Package lattice builds the score lattice of one sequence of an encoded
// corpus (package inference's input) from weights laid out as
// sparse.Layout says: the one unary scoring kernel that tagging (chain),
// the training objective and the warm start (train/...) share, and the
// label-transition and pair scores that finish every lattice.
//
// # Contract
//
//   - Score is the reference: the state scores of every position are the
//     sums, attribute by attribute in row order, of the attribute's L
//     weights (times its value for real-valued rows), then Finish adds the
//     transitions and pair scores. A specialised scorer elsewhere (label
//     lists, a sparse view, a lazily scaled layout) is held against Score by
//     a test on random models.
//   - Finish and FinishTail take the caller's unary scores (a Scratch's
//     ZeroUnary buffer plus its own state scores) and add what follows the
//     state block; TransAt is set only when some pair score is non-zero.
//   - A Scratch holds one lattice and its buffers, reused from one sequence
//     to the next (no allocation per token once warm); the returned lattice
//     aliases it. The caller owns one per goroutine.
//
// The package knows nothing of models, features, training or tagging:
// only layouts, corpora and lattices.
package lattice
