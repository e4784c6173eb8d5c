// Package chain is the linear-chain CRF model: label set, attribute
// dictionary, state and transition weights in flat slices, scoring of encoded
// sequences into inference lattices, the concurrency-safe Tagger, the model
// file format, and the elastic-net trainer that orchestrates inference,
// features, sparse and screen.
//
// chain never imports corpora or cmd/tagger: callers read data with corpora,
// encode it with a features.Encoder into a sparse.Corpus, and hand that to
// Train or Path.
//
// # Weights
//
// A Model holds one flat weight vector W: state features (attribute a, label
// y) at a*L+y, then the L×L label transitions (prev*L+cur), then the
// observation-conditioned transitions of pair attributes, as defined once by
// sparse.Layout (embedded in Model). State, Trans and PairW are sub-slices of
// W. The feature set is part of the model definition: every (attribute,
// label) pair by default (CRF++, Wapiti and the paper), or only the pairs seen
// in training (Options.ObservedPairs, CRFsuite's default); screening is safe
// relative to that set.
//
// # Training
//
// Train minimizes P(w) = (1/n) sum_i NLL_i(w) + beta (alpha/2 ||w||^2 +
// ||w||_1) (or the sum form with C1 and C2: beta = C1/n, alpha = 2 C2/C1) by
// OWL-QN [Andrew and Gao, "Scalable training of L1-regularized log-linear
// models", ICML 2007], stopping on the Fenchel-Young duality gap (by
// default when it is at most 0.1% of the objective).
//
// One featureSet owns which features a run works on: the model's feature
// set, the screened features (a bit set) and the active ones, with the
// attribute -> label references the objective scores with; Restrict and
// SetActive change it and every dependent (the objective's buffers and m,
// the optimizer's memory) follows. The objective evaluates, per shard,
// forward-backward (loss, marginals, edge and pair expectations), reduces
// the shards in order, sums the expected state counts per attribute and
// forms m = -grad L over the active set. Before the first pass the static
// range rule (screen.RangeBounds) removes every feature whose residual can
// never exceed the L1 penalty, and features whose Rnorm is 0.
//
// The working-set solver (the default of tagger train) loops: full pass
// (m over every unscreened feature from the marginals of the last
// evaluation, and the gap of the whole problem); stop if the gap is small
// enough; screen.Pinsker with that m and gap; choose the working set (the
// support, the transitions and the features of smallest priority
// (beta - |m_j|)/Rnorm_j, twice the support); OWL-QN on the working set
// only, starting from the full pass's value and gradient with the
// curvature of the last set, until the restricted gap falls below 0.3 of
// the smaller of the full gap and its own start. A feature outside the
// working set is only postponed, never decided: the loop stops on the full
// gap, so the result is the optimum of the whole problem. The full solver
// (the paper's Algorithm 1) is a plain loop: gap and Pinsker screening at
// the current point (the screened features are dropped from the feature
// set), the log line and the stopping rules, then one OWL-QN step.
//
// # Regularization paths and model selection
//
// Path solves a decreasing sequence of betas (beta_max down to a floor, or
// PathOptions.Betas) at a fixed alpha, each warm-started from the
// previous solution. With the working-set solver each beta starts from the
// secant predictor of the last two solutions (sign flips set to zero),
// from the strong rule's working set (the support, the transitions and
// every feature with |m_j| >= 2 beta_k - beta_{k-1} at the start; the full
// passes check it) and from the previous beta's L-BFGS pairs, whose y is
// corrected for the new L2 term. Its first full pass is the sequential
// screening step: the gap at the new beta from the warm point. With
// PathOptions.Score (e.g. F1 on a development set) it stops once the
// score has been below its best for Patience betas and leaves the best
// model in place (Selected); tagger train --select is this.
//
// Training is deterministic: sequences are split into a fixed number of
// shards whatever Options.Threads is, and every reduction runs in a fixed
// order, so the model is bit-identical for any number of threads.
//
// # Tagging and model files
//
// A Tagger is immutable and safe for concurrent use. Models are saved in a
// versioned, checksummed little-endian format (see file.go) that stores only
// non-zero weights and the feature encoder, so that a loaded model can tag raw
// input. Saving compacts the model (Model.Compact): attributes without a
// non-zero weight are dropped, which changes no score.
package chain
