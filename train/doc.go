// Package train fits the weights of a chain.Model by elastic-net penalized
// maximum likelihood with safe screening, along a regularization path, and
// chooses a model along a path by a development set (cross-validation and
// early stopping are package train/selection's).
//
// train owns everything a tagger does not need. Its parts, each a package
// with its own contract (layered: none imports train or a part above it):
//
//   - train/objective: L and m = -∇L over an active set (forward-backward
//     over the encoded corpus, expected counts), and the feature set of a
//     run (which features exist, which are screened, which are active);
//     only it changes the active set, and it chooses its own accumulation.
//   - train/warmstart: the stochastic warm start (SGD with the cumulative
//     L1 penalty), a starting point and nothing else.
//   - train/certificate: the mixture certificate of the working-set policy
//     and its float32 history with rigorous error bounds.
//   - train/selection: model selection by cross-validation (folds, a
//     shared grid, the refit) and early stopping, on the patience rule
//     of paths (train/internal/peak).
//   - train/internal/owlqn: OWL-QN in reverse communication (the caller
//     owns every evaluation, as in gonum's optimize).
//
// What stays here is the solver loop (run, solve.go) and its policies
// (full, working set: workingset.go), screening in one place
// (screening.go: the static range rule, the safe rule of every full pass
// and how its decisions reach the active set), options, results,
// checkpoints, the memory estimate (which asks each part for its terms),
// and paths. What one solve hands to the next along a path is a value
// (solveInput, solveOutput), never a field of the trainer.
// chain owns the model, the scoring of one sequence, the Tagger and the
// file format; train uses them and chain imports nothing of train.
//
// # Objective
//
// Train minimizes P(w) = (1/n) sum_i NLL_i(w) + beta (alpha/2 ||w||^2 +
// ||w||_1) (or the sum form with C1 and C2: beta = C1/n, alpha = 2 C2/C1)
// by OWL-QN [Andrew and Gao, "Scalable training of L1-regularized
// log-linear models", ICML 2007], stopping on the Fenchel-Young duality gap
// (by default when it is at most 0.1% of the objective, DefaultRelEpsilon).
// With sequence weights s_i (Options.Weights) the loss is (1/n) sum_i
// s_i NLL_i, and the gap, the certificate and the screening rules stay
// safe (docs/crfsuite-algorithms.md, "The weighted dual"). The sum form
// with C2 = 0 is pure L1, certified by its own gap (nol2.go), and C1 = C2
// = 0 no penalty, uncertified: both run the full solver without screening.
// The zero Options and tagger train train the same way (DefaultOptions);
// Options.Validate checks options before any data is read, and
// Options.Interrupt ends a run gracefully at the point it reached.
//
// # The solver loop
//
// One loop (solve.go) owns every evaluation of the objective; m, the gap
// and the optimizer are its variables. Train's starting point, unless
// Options.Init or Resume gives one, is the stochastic warm start
// (train/warmstart): DefaultWarmEpochs epochs of SGD with the cumulative L1 penalty,
// which only chooses where the loop begins. The loop starts by evaluating
// the starting point, then repeats a full pass and an inner solve:
//
//   - full pass: m over every unscreened feature at the current point and
//     the gap of the whole problem (with the working set, at the best
//     convex combination of the model distributions of this and the last
//     four full passes and of the gold labelings: train/certificate), or P minus
//     the best dual bound of the earlier passes if smaller; unless that
//     certifies the point, screening with the pass's own gap
//     (screen.Pinsker, or the paper's rule for T = 1) removes features
//     proven zero at the optimum (if that zeroed a weight, the
//     point moved: the loop evaluates it and the log line says so); the log
//     line, the stopping rules, the checkpoint and the monitor;
//   - inner solve: OWL-QN on the working set; the optimizer hands out trial
//     points, the loop evaluates each and hands the value back, and learns
//     when an iteration is accepted (a log line).
//
// Two policies choose the working set. The full policy (the paper's
// Algorithm 1) takes every unscreened feature and one iteration per pass.
// The working-set policy (the default) takes the support, the transitions
// and the features of smallest priority (beta - |m_j|)/Rnorm_j, twice the
// support, and iterates until the restricted gap falls below a fraction of
// the full one (workingset.go); a feature left out is only postponed, as
// the loop stops on the full gap. When the set would hold half the
// unscreened features, it saves nothing and the full policy takes over;
// with another rule than Pinsker or without an L1 term the full policy runs
// from the start. Result.Solver and Result.SolverReason say which ran and
// why. Before the first pass the static range rule (screen.RangeBounds)
// removes every feature whose residual can never exceed the L1 penalty.
//
// # Regularization paths and model selection
//
// Path solves a decreasing sequence of betas at a fixed alpha, each
// warm-started from the previous solution, with screening from its first
// pass. With the working set each beta starts from the secant predictor of
// the last two solutions, from the strong rule's set and from the previous
// beta's L-BFGS pairs. With PathOptions.Score (a Scorer, e.g. F1 on a
// development set, see selection.TaggerScorer) it keeps the best model and
// stops once the score has been below its best for Patience betas,
// counting only after the score rose above its value at beta_max (the
// trivial model).
// selection.CrossValidate runs the path on K folds (selection.Fold) over
// one beta grid and Refit trains the chosen beta on all data;
// selection.EarlyStop is an Options.Monitor that keeps the best weights on
// a validation set.
//
// # Determinism and memory
//
// CheckpointFile keeps a run's checkpoints in a file (atomically; a failed
// write is reported, not fatal) and resumes from it when it exists.
//
// Training is deterministic: sequences are split into a fixed number of
// shards whatever Options.Threads is, and every reduction runs in a fixed
// order, so the model is bit-identical for any number of threads.
// EstimateMemory bounds a run's memory before it allocates (see
// Options.MemoryLimit). CheckpointFile keeps a run's checkpoints in a file,
// written atomically, to resume from.
package train
