// Package inference is the exact lattice engine of a linear-chain CRF: given
// the scores of one sequence (state scores T×L, transition scores L×L and
// optional start and end scores) it computes log Z, node and edge marginals,
// the entropy and expected score of the chain distribution, the Viterbi path,
// and the max and min of one additive feature over all label sequences.
//
// inference knows nothing of features, attributes, corpora, screening or
// training: its only input is a score lattice. It imports no other package of
// this module.
package inference
