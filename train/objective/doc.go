// Package objective computes the smooth part of the training objective of
// a linear-chain CRF: the average negative log-likelihood L(w) of an
// encoded, labeled corpus and m = -∇L(w), over an active set of features.
//
// # What it owns
//
//   - Features: which features exist (the model's feature set), which are
//     screened (proven zero at the optimum for the current penalty), and
//     which are active (the features the optimizer works on), with the
//     attribute -> active label references that scoring follows.
//   - Objective: one evaluation = scatter the active weights, forward-
//     backward per shard, reduce the shards in shard order, and the
//     expected state counts attribute by attribute; m over the active set
//     (Evaluate, Loss, M), and over any other features from the same
//     marginals (Residuals, MaxAbsResidual: a full pass); beta_max =
//     max |m_j(0)| from counts alone where the model at w = 0 is uniform
//     (UniformBetaMax: no prior, no partial labels).
//   - Its share of a run's memory estimate (Memory, ActiveMemory).
//
// # Contract
//
//   - Only the Objective changes the active set: SetActive installs a new
//     one, Restrict keeps a subset of it (m keeps the kept values); the
//     feature set's references and the objective's buffers follow in the
//     same call. The caller adapts its optimizer's vectors in the same
//     place. Screening decisions (Features.Screen, ResetScreening) are the
//     caller's; the objective never screens.
//   - How the expected counts are accumulated (per shard during
//     forward-backward, per reference for a working set, or by a scatter
//     pass over the marginals; dense rows or label lists for scoring) is
//     the objective's own choice, from the sizes of the model and of the
//     active set and from whether SetActive was told the set is a working
//     set. Every choice gives the same numbers up to the last bits, and the
//     same bits whatever Settings.Threads is: sequences are split into a
//     fixed number of shards and every reduction runs in a fixed order.
//   - m (M, and the slice Evaluate and Loss return) is the objective's
//     buffer: valid until the next evaluation or change of the active set.
//   - No allocation per token: the buffers grow with the active set and
//     are reused across evaluations; Release drops them at the end of a run.
//
// The objective knows nothing of the optimizer, the penalty's L1 term,
// screening rules or stopping rules: those are package train's.
package objective
