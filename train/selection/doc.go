// Package selection chooses a model of a regularization path: by K-fold
// cross-validation (Fold, CrossValidate, Refit), or by early stopping on a
// validation set (EarlyStop); TaggerScorer rates weights by tagging with
// them. Selection on one development set is train.Path with
// train.PathOptions.Score.
//
// # Contract
//
//   - selection never reads data: a train.Scorer rates a weight vector
//     (higher is better, never NaN), and the caller tags and evaluates,
//     e.g. with package dataset. Neither a Scorer from TaggerScorer nor
//     EarlyStop writes the model being trained: each keeps its own copy.
//   - Every rule stops on the same patience rule as train.Path: a score
//     counts as worse than the best only once the score has risen above
//     its first value (see train.PathOptions.Patience).
//   - CrossValidate solves one grid of beta/beta_max for every fold: fold
//     0's path sets where the grid ends (it stops once its score has
//     peaked, or extends below MinRatio with Extend), the other folds solve
//     exactly those points. Folds run one after the other, in order, so the
//     outcome is deterministic as train's solves are.
//   - Refit trains the final model on all data by a path down to the
//     chosen ratio, warm starts and screening as in train.Path.
//
// selection imports train; train imports nothing of it.
package selection
