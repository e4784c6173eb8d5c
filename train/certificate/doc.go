// Package certificate computes the mixture certificate of the
// working-set solver: an upper bound on P(w) - P(w*) at least as tight as
// the model's own duality gap, from a convex combination of the model
// distributions of the current full pass, of the last Passes full passes
// and of the gold labelings (see mixture.go and
// ../shared/docs/dual-certificate.md, section 4).
//
// # What it owns
//
//   - History: m over the unscreened features of the last Passes full
//     passes, stored in float32 with a rigorous error bound per value
//     (ErrorBound, f32.go), with L(w_k) and m_k . w_k; the pass just
//     priced stays pending in the caller's buffer until the next one.
//   - Mixture: the Frank-Wolfe search over the simplex of mixture weights
//     and the rigorous value of the certificate it returns (Gap), and the
//     worst case |M_j| of its dual point over the stored intervals
//     (WorstAbsM), which the caller's Pinsker screening needs.
//   - PureL1Gap: the certificate of the problem without an L2 term, at the
//     gold labelings mixed into the model's distributions (purel1.go), and
//     GradientTest, CRFsuite's stopping test without any penalty (no
//     certificate).
//
// # Contract
//
//   - Gap never returns more than the plain gap it is given, and what it
//     returns bounds P(w) - P(w*) whatever rounding the float32 history
//     took: every stored value is an interval that contains the exact m,
//     and the certificate is the supremum over those intervals.
//   - The caller owns the pass (Pass: m over u and the support of w) and
//     compacts the history with u when screening removes features
//     (History.Compact); Reset forgets every pass.
//   - A checkpoint holds a History exactly, without its pending pass
//     (Clone, Parts, FromParts): the resumed run prices the checkpointed
//     point again, which holds it as pending as the uninterrupted run did,
//     so that it certifies as the uninterrupted one.
//   - The package knows nothing of the objective, the optimizer or the
//     screening rule; it does not screen.
package certificate
