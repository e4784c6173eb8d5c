// Package l1clip applies the cumulative L1 penalty of Tsuruoka, Tsujii and
// Ananiadou (ACL 2009) to a block of weights: the two inner loops of the
// stochastic warm start (train/warmstart), its catch-up and its descent.
//
// [Clip] is ApplyPenalty on every weight v_k of a block with its penalty
// record q_k and the total penalty u (all in the units of v):
//
//	v_k > 0: v_k <- max(0, v_k - (u + q_k));  v_k < 0: v_k <- min(0, v_k + (u - q_k));
//	q_k <- q_k + (new v_k - old v_k)
//
// written without branches: with s = copysign(1, v_k),
// v_k <- s max(0, |v_k| - (u + s q_k)). For v_k = 0 it leaves v_k at
// (signed) zero and q_k unchanged when |q_k| <= u. [Descend] first moves
// each weight by its gradient, v_k <- v_k - step g_k, then clips it.
//
// # Results
//
// Each element goes through the same IEEE operations in the same order as
// the Go loops clipGo and descendGo (a multiplication, an addition, a
// subtraction, the maximum with +0, a multiplication, a subtraction and
// an addition; Descend a multiplication and a subtraction before them),
// whether the AVX2 kernels run (amd64 with AVX2, without the purego tag)
// or the Go loops, so the results are bit-identical (a NaN stays a NaN,
// though its payload may differ). No FMA: the Go loops convert each
// product to float64, which forbids the compiler to fuse it with the sum
// that follows, and the kernels multiply and add in two instructions.
// The maximum: Go's max(0, x) is +0 for x = -0, VMAXPD would return -0;
// x = |v_k| - (...) is never -0 (a difference is -0 only when its first
// term is -0, and |v_k| is not), so the two agree.
//
// # Cost
//
// The kernels take four weights per instruction (the block's tail one at
// a time) and neither function allocates. On CoNLL-2000 the warm start
// clips about 157 M weights in its catch-up and as many in its descent
// (docs/setup.md).
package l1clip
