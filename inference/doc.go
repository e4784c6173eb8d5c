// Package inference is the exact lattice engine of a linear-chain CRF: given
// the scores of one sequence (state scores T×L, transition scores L×L and
// optional start and end scores) it computes log Z, node and edge marginals,
// the entropy and expected score of the chain distribution, the Viterbi path,
// and the max and min of one additive feature over all label sequences.
//
// inference knows nothing of features, attributes, corpora, screening or
// training: its only input is a score lattice. It imports no other package of
// this module.
//
// # Overview
//
// A [Lattice] holds flat row-major score slices (Unary[t*L+y],
// Trans[prev*L+cur], TransAt[t*L*L+prev*L+cur]). A [Workspace] holds the
// scratch memory and the results of the last [ForwardBackward]; it grows by
// capacity and never shrinks, so with a warm workspace no function of this
// package allocates. Use one Workspace per goroutine.
//
//	ws := inference.NewWorkspace(maxT, L)
//	logZ := inference.ForwardBackward(ws, lat) // then ws.Node(), ws.EdgeSum(), ws.EdgeAt(...)
//	h := inference.Entropy(ws, lat)
//	best := inference.Viterbi(ws, lat, path)   // independent of ForwardBackward
//
// # Numerics
//
// ForwardBackward uses the scaled exp-space recursion of CRFsuite
// (crf1d_context.c, crf1dc_alpha_score) with each row's maximum subtracted
// before exp, and falls back to a normalised log-space recursion when a
// cheap guard says exp-space could underflow (see ForwardBackward). Both are
// checked against brute-force enumeration (package inference/inferencetest).
// When every position shares the transition matrix, the L×L products of the
// exp-space recursion run on gonum's BLAS kernels (SIMD assembly on amd64,
// plain Go elsewhere): the forward product is the plain loop's sum in the
// same order, the backward one accumulates α̃_{t-1} w_tᵀ and multiplies by
// exp(Trans) once.
// Scores may be -Inf (forbidden labels or transitions); results contain no
// NaN as long as one label sequence has a finite score.
//
// # Invariants
//
//   - Slice sizes that do not match T and L are programmer errors: the
//     functions panic with an "inference: ..." message.
//   - T = 0 is a lattice with one empty sequence: log Z = 0, no node
//     marginals, Viterbi score 0. T = 1 is plain multiclass.
//   - Viterbi ties go to the lowest label index (strict comparisons, as in
//     CRFsuite's crf1dc_viterbi).
//   - Slices returned by Node and EdgeSum alias the Workspace and are
//     overwritten by the next ForwardBackward; Viterbi and MaxMin do not
//     disturb them.
package inference
