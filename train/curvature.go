package train

import (
	"github.com/sparsetag/sparsetag/train/internal/owlqn"
)

// The diagonal start of a working-set solve (docs/gauge.md section 9).
// Its first inner solve begins with an empty L-BFGS memory, whose scalar
// scaling gives every feature the same step per unit of gradient, while
// the curvature of a feature grows with how often it fires: from about l2
// for an attribute seen twice to about 30 for `O`'s frequent attributes
// and the transitions on the NER data. Until the memory has learnt that
// spread the steps are too short for the rare features (NER: iterations 2
// to 13 gain 1e-2 to 3e-2 each, with unit steps accepted at once). The
// first diagonalIters iterations therefore take H0 = γ diag(1/(h_j + l2))
// (owlqn.SetDiagonal), h_j a bound on the diagonal of the Hessian of the
// loss from the counts.

// diagonalIters is the number of iterations that start from the diagonal.
// Two on both corpora measured; the whole solve run with it (one inner
// solve, or every first one) ends later (docs/gauge.md section 9).
const diagonalIters = 2

// diagonalStart gives the optimizer of a working-set inner solve that
// starts without memory (the first of a solve, and any after one that
// ended with none) the diagonal start over the working set ws, with m
// over it (mw). The diagonal is a heuristic: where it cannot be formed
// (a count or m not finite) the solve keeps the plain start.
func diagonalStart(tr *trainer, opt *owlqn.Optimizer, ws []int32, mw []float64) {
	obs, tot := make([]float64, len(ws)), make([]float64, len(ws))
	tr.fs.ObservedCounts(ws, obs, tot)
	n := float64(tr.c.Len()) // m is per sequence
	for k := range obs {
		obs[k], tot[k] = obs[k]/n, tot[k]/n
	}
	// SetDiagonal refuses a diagonal that is not finite and above 0 and
	// then leaves the optimizer as it was.
	_ = opt.SetDiagonal(curvatureInverse(obs, tot, mw, tr.pen.l2), diagonalIters, firstDiagonalStep(tr))
}

// curvatureInverse returns 1/(h_j + l2), overwriting obs, with
// h_j = E_j (N_j - E_j) / N_j: E_j = obs_j - m_j is the model's expected
// count of feature j (m = observed - expected; clamped to [0, N_j]) and
// N_j = tot_j the number of places its block (its attribute's labels, or
// every transition) can fire. For binary values the per-place part of the
// diagonal of the loss's Hessian (without the covariances between places
// of one sequence) is sum_t mu_t (1 - mu_t) over those places, mu_t the
// feature's marginal, and since x(1 - x) is concave that sum is at most
// N x(1 - x) at the mean marginal E/N: h_j bounds it, with equality where
// the marginal is the same at every place (at w = 0). l2 must be above 0.
func curvatureInverse(obs, tot, m []float64, l2 float64) []float64 {
	for k, n := range tot {
		h := 0.0
		if n > 0 {
			e := min(max(obs[k]-m[k], 0), n)
			h = e * (n - e) / n
		}
		obs[k] = 1 / (h + l2)
	}
	return obs
}

// firstDiagonalStep is the first trial step along the diagonal direction:
// 1/K, K the mean number of features that fire at a position (its sparse
// unary attributes and a transition; pair features and the entries of
// dense blocks are not counted, so K is low on such corpora and the first
// trial longer). The diagonal ignores that they fire
// together, so along a direction that moves them alike the step is about
// K times too long; 1/K is the line search's first trial instead of a
// sequence of halvings (NER: 1, 0.5 and 0.25 rejected, 3 evaluations).
func firstDiagonalStep(tr *trainer) float64 {
	c := tr.c
	k := 1.0
	if p := c.Positions(); p > 0 {
		k += float64(c.Unary.NNZ()) / float64(p)
	}
	return 1 / k
}
