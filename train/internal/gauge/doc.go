// Package gauge moves a linear-chain CRF's weights along the directions in
// which its average negative log-likelihood does not change, to the
// elastic-net penalty's minimum on each such line (docs/gauge.md).
//
// Two families of directions leave the likelihood unchanged: one constant
// added to the state weights of one attribute for every label (at each
// position every label's score moves by the same amount, which the
// normalizer absorbs), and one constant added to every transition weight
// (every labeling of a sequence of length T has T-1 transitions). Along
// them only the penalty sum_j (l2/2) w_j^2 + l1 |w_j| changes, with
// curvature l2 alone, which is why a quasi-Newton solver crawls there.
//
// Contract: Shift changes only complete groups (every label of an
// attribute, every transition) among the given active features, never
// raises the penalty, and needs no evaluation of the likelihood: the
// caller's loss, its gradient and m stay valid, and the smooth part's
// gradient moves by l2 times the shift (Shift adds it when given the
// gradient). It is serial and deterministic.
package gauge
