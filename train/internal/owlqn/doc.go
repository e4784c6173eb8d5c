// Package owlqn implements OWL-QN, the orthant-wise limited-memory
// quasi-Newton method of Andrew and Gao, in reverse communication (as
// gonum's optimize.Method): the optimizer never calls the objective. The
// caller (the CRF trainer) starts it from a point it evaluated (New), asks
// it for the next trial point (Next), evaluates f and ∇f there and hands
// the value back (Tell), which reports whether the trial was accepted, that
// is whether an iteration ended. The caller owns every evaluation and the
// stopping rule, so that it can compute a duality gap and run safe
// screening between iterations, with the quantities of each evaluation in
// its own variables.
//
// owlqn knows nothing of CRFs, features, screening rules or training; it
// imports no other package of this module. It sees only flat []float64
// vectors.
//
// # Problem
//
// Optimizer minimizes
//
//	F(x) = f(x) + l1 * ||x||_1
//
// where f is smooth (the trainer puts its L2 term inside f) and l1 >= 0.
// With l1 = 0 the method is plain L-BFGS with a backtracking Armijo line
// search: no pseudo-gradient, no projection.
//
// # One iteration
//
// An iteration (Next starts it when no line search is in progress) is, in
// order:
//
//  1. the pseudo-gradient ◇F(x) [3, sec. 3, p. 35] (pseudoGradient);
//  2. the L-BFGS two-loop recursion on ◇F(x) [1, p. 779], with the initial
//     scaling H0 = (s·y / y·y) I of [2, p. 515] (twoLoop), or, for the
//     iterations SetDiagonal asks, γ diag(h) with γ = s·y / (y·diag(h) y)
//     (twoLoopDiag; with an empty memory d = -diag(h) ◇F);
//  3. the direction projection p = π(d; -◇F(x)) [3, p. 35]
//     (projectDirection), zeroing d_j wherever d_j*◇F_j >= 0;
//  4. a backtracking line search along the orthant-projected path
//     x' = π(x + αp; ξ) [3, p. 35] with ξ_j = sign(x_j), or -sign(◇F_j)
//     where x_j = 0 (orthant, projectOrthant), accepting the first α with
//     F(x') <= F(x) + c * ◇F(x)·(x' - x) [3, p. 36], or, once F(x') - F(x)
//     is lost in rounding near the optimum, the same condition on the
//     trapezoid estimate of F(x') - F(x) from the gradients [4] (lineSearch);
//  5. the memory update s = x' - x, y = ∇f(x') - ∇f(x), skipped when
//     s·y <= 0 (curvature condition; the pair would make the implicit
//     inverse Hessian indefinite).
//
// Steps 4 and 5 happen across calls: Next hands out the trial point x'
// and a buffer for ∇f(x'), Tell takes f(x') and applies the acceptance test;
// after a rejection the next Next backtracks.
//
// # Invariants
//
// When Tell reports an accepted trial, the caller's last evaluation was at
// the new X, so quantities it keeps per evaluation (for example the
// marginals for a duality gap) are those of X. When Next fails
// (ErrLineSearch) the optimizer keeps its last accepted point, but the
// caller's last evaluation was at a rejected trial: it evaluates X again
// if it needs those quantities.
//
// X() and Grad() alias internal storage. They are valid until the next call
// to Tell, Rebase or Compact, and the caller must not modify them. The
// caller must not modify or retain the x that Next returns, and must
// overwrite every element of its grad before Tell.
//
// # Compaction
//
// Compact removes coordinates (for example features a safe screening rule
// proved to be zero at the optimum) from the point, the gradient and, unless
// asked to reset it, the L-BFGS memory, in place and without allocation.
// Dropped coordinates are fixed at zero from then on; the caller evaluates
// the restricted problem on the shorter vector. If a dropped coordinate was
// not zero, X moved: the caller evaluates it and hands the result over with
// Rebase.
//
// # Threads and determinism
//
// Settings.Threads spreads the optimizer's own vector work (the steps above,
// the memory update and Compact's curvature recomputation) over that many
// goroutines; the caller's evaluation parallelizes itself. Every reduction (dot products,
// norms, s·y) is summed over fixed chunks of 8192 coordinates, in a fixed
// order within each chunk, and the chunk sums are added in chunk order, so
// the iterates are bit-identical for any number of threads, including the
// serial path (see kernels.go). Each kernel starts its goroutines with
// internal/par and waits for them, so none outlives a call. Below 65536
// coordinates everything runs on the calling goroutine. The sign-dependent
// steps run branch-free (branchfree.go), with the same results as their
// readable definitions in steps.go.
//
// # References
//
//	[1] J. Nocedal, Updating quasi-Newton matrices with limited storage,
//	    Mathematics of Computation 35(151):773-782, 1980.
//	[2] D. C. Liu and J. Nocedal, On the limited memory BFGS method for large
//	    scale optimization, Mathematical Programming 45(1):503-528, 1989.
//	[3] G. Andrew and J. Gao, Scalable training of L1-regularized log-linear
//	    models, ICML 2007, pp. 33-40.
//	[4] W. W. Hager and H. Zhang, A new conjugate gradient method with
//	    guaranteed descent and an efficient line search, SIAM J. Optim.
//	    16(1):170-192, 2005 (approximate Wolfe conditions, sec. 4).
//
// Page numbers are those of the ICML proceedings, as cited in the comments of
// Wapiti's src/lbfgs.c (trn_lbfgs), whose mathematics this package follows,
// split into small functions (Algorithm 1 of [3] lists the whole loop).
package owlqn
