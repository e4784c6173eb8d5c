// Package warmstart computes a starting point for the solver loop of
// package train: a few epochs of stochastic gradient descent with the
// cumulative L1 penalty of Tsuruoka, Tsujii and Ananiadou ["Stochastic
// gradient descent training for L1-regularized log-linear models with
// cumulative penalty", ACL 2009] from w = 0, its step size calibrated as
// CRFsuite's l2sgd does.
//
// # Contract
//
//   - Run takes a Problem (the model layout, the labeled corpus, the
//     average-form penalty, the frozen features) and Settings (epochs,
//     interrupt, a per-epoch callback) and returns a sparse Point and an
//     Info; it never touches the caller's model or feature set.
//   - It is deterministic: a fixed seed and one goroutine, whatever the
//     caller's number of threads.
//   - It only chooses where the solve begins: the solver loop evaluates
//     the point and certifies its own result by the duality gap, so no
//     property of the optimum depends on it. A point that is not finite is
//     discarded (Info.Discarded).
//   - Memory: 16 B per unfrozen state feature (an eighth more at most for
//     the cache-line alignment of the blocks) and per feature after the
//     state block, the sequences' attribute lists (4 B per row entry, 8 B
//     per distinct attribute of a sequence, 4 B per pair attribute, at most
//     MaxListed entries;
//     ListMemory bounds them), O(attributes) slots and O(longest sequence
//     x L^2) scratch; no allocation per step.
//
// Sequences are scored over the warm start's own compact layout of the
// weights (w = a v, lazily scaled; see sgd.go), the lattice's transitions
// and pair scores by chain.
package warmstart
