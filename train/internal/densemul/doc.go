// Package densemul holds the one kernel of the dense blocks of word
// vectors (sparse.Dense) in training: AddMul, a row of a small dense
// matrix product, dst[j] += sum_k x[k] w[k*stride+j], with an AVX2/FMA
// assembly version and a pure-Go twin that gives the same bits (each step
// one fused multiply-add, math.FMA, in the same order).
//
// The objective scores a sequence's block as X W (one AddMul per position:
// x the position's vector, w the block's D x L weights) and counts it as
// X^T mu (one AddMul per dimension: x the dimension's values over the
// sequence's positions, w the T x L node marginals).
package densemul
