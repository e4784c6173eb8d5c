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
//
// # Kernels
//
// The inner loops run on a few kernels (kernels.go): a vector exp for the
// exp of each unary row and transition block, the L×L products of the
// exp-space recursion (gemvT: Σ_p x[p]·A[p, c] over blocks of up to 32
// columns held in registers), the max/min scan and the
// multiply-sum-normalise of a row, and Viterbi's max-plus step with its
// argmax. On amd64 they are AVX2 assembly (kernels_amd64.s, 4 doubles per
// register), chosen at run time when the CPU and OS support AVX2
// (golang.org/x/sys/cpu); elsewhere, without AVX2, or with the purego build
// tag, Go versions run. The Go versions perform the same IEEE operations in
// the same order as the assembly, lane by lane (no FMA: products are
// rounded before each add; row sums in 4 lanes), so every result is the
// same bits on every machine, and a model trained anywhere is the same.
// Tests compare both, kernel by kernel and on whole lattices.
//
// The exp (expKernel) is a Cody-Waite reduction by ln 2, a degree-13 Taylor
// polynomial by Horner and 2^k built in the exponent bits: its error is at
// most 1 ulp (relative 2.22e-16) where exp is normal, within 4e-16 of
// math.Exp; below e^-708.4 it gives the subnormal rounded once, and 0 below
// -745.2 and for -Inf. The exp-space path uses it only on arguments above
// -300 (its guards), so its factors are all normal.
//
// When every position shares the transition matrix, the backward product
// runs on the cached transpose of exp(Trans), and the edge sums
// Σ_t α̃_{t-1} w_tᵀ are one product over all positions, multiplied by
// exp(Trans) once at the end. Viterbi's max-plus step is exact (max of
// sums), so it gives the same results as a plain loop.
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
