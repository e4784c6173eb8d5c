// Package screen holds the safe screening rules for elastic-net CRFs as pure
// functions over flat vectors: beta_max, the per-feature range constants, the
// Fenchel-Young duality gap, the l1/Pinsker gap rule and the paper's
// Euclidean rule for enumerable (T = 1) problems. A rule returns which
// coordinates are provably zero at the optimum; it never touches an
// optimizer or a model.
//
// screen knows nothing of training loops, models, templates or corpora. It
// may import sparse (and inference for a type, if unavoidable; it does not).
// Feature vectors (rnorm, m, w) are laid out by sparse.Layout.
//
// # Problem and notation
//
// The primal is P(w) = L(w) + beta*((alpha/2)||w||^2 + ||w||_1) with L the
// average negative log-likelihood over n sequences, alpha > 0, beta > 0. The
// vector m = m(w) = -grad L(w) is what forward-backward gives the solver
// anyway. The reference for every formula is the design note
// docs/screening.md, which corrects the paper "Safe Screening for Sparse
// Conditional Random Fields" (Zhang and Qiu, arXiv:2111.13958); section
// numbers in comments ("section 4 of the design note") refer to that note.
//
// # Recommended use (the dynamic loop of section 5)
//
// Once per corpus, over all features of the layout, then at every
// full-gradient evaluation over the active (not yet screened) features only,
// with w, m = -grad L(w), rnorm and screened restricted to them and w and m
// from the same forward-backward pass:
//
//	rnorm, err := screen.Rnorm(nil, lay, corpus)  // lay is the model's sparse.Layout
//	screen.ZeroRnorm(screened, rnorm)             // features that never vary
//	// at every full-gradient evaluation:
//	g := screen.Gap(w, m, alpha, beta)
//	if g <= eps { stop }
//	if screen.Pinsker(screened, m, rnorm, g, n, beta, screen.DefaultTau) > 0 {
//	        // set w_j = 0 on the new entries, compact, reset the optimizer memory
//	}
//
// The trainer in package chain uses the sum form: M = -grad sum_i NLL_i,
// g = GapSum(w, M, lam1, lam2) and Pinsker(screened, M, rnorm, g, 1, lam1,
// DefaultTau); the starting point of a path is beta_max = BetaMax(m(0)).
//
// Re-screen from scratch at every beta of a path (never carry the screened
// set to a smaller beta). The Pinsker rule costs O(d) per check and does not
// depend on the number of label sequences. The paper's Euclidean rule
// (EuclideanT1, with DualResidual) is available only for T = 1 and is
// dominated by the Pinsker rule in practice; take the minimum of both bounds
// (PinskerBounds, MinInto, ScreenBounds) if you use it.
//
// # Invariants
//
//   - Every function is safe in floating point up to the margin tau (use
//     DefaultTau): gaps are sums of non-negative terms and never P + D, and
//     the closed forms round outward.
//   - NaN anywhere (a diverged iterate) screens nothing.
//   - Marks are only ever added to a screened mask, never removed.
//   - Functions with a dst argument reuse it when its capacity suffices and
//     return the resliced result.
//
// # Static range rule
//
// RangeBounds and RangeScreen screen before training, from the data alone.
// In the sum form (sum_i NLL_i + c1 ||w||_1 + c2 ||w||^2) the residual
// M_j(theta) = sum_i (F_j(x_i, y_i) - E_{theta_i}[F_j(x_i, Y)]) of every dual
// point theta satisfies |M_j| <= B_j = max(obs_j - Lo_j, Hi_j - obs_j), where
// obs_j is the gold total and Lo_j, Hi_j sum the per-sequence minimum and
// maximum of F_j over label sequences. For a state feature (a, l) on binary
// data this is max(obs, c_a - obs) with c_a the number of positions where a
// fires; transitions use Hi = sum_i (T_i - 1) (l = l') or sum_i floor(T_i/2)
// (l != l'); pair features use the max-sum/min-sum DP of PairRnorm. The bound
// is attained by a one-hot dual point, so it is the best bound that does not
// look at w. Since |M_j(w*)| < B_j strictly (every label sequence has positive
// probability at a finite w*), B_j <= c1 implies w*_j = 0 for c1 and every
// larger c1, whatever c2:
//
//	bound, _ := RangeBounds(nil, layout, corpus) // O(nnz), once per corpus
//	RangeScreen(screened, bound, c1)            // sum form (average form: c1 <= n*beta)
//
// Bounds are exact for integer data and rounded up for real values, so the
// test B_j <= c1 needs no margin. A trainer that has the gold state counts
// of a binary corpus already gets the same bounds from them without a scan
// of the corpus (CountedRangeBounds). On CoNLL-2000 with the CRF++ chunking
// template (7,448,606 features) c1 = 1 removes 4,860,194 (65.2%), every
// feature of an attribute seen once among them. See docs/static-rule.md.
package screen
