// Package blocks runs the solver's element-wise loops over fixed blocks of
// indices on several goroutines, with the serial loop's bits.
//
// [For] calls a function once per block; the blocks' boundaries depend only
// on the length, never on the number of goroutines, so a loop whose block
// writes only its own elements (and seeds whatever the serial loop carried
// from earlier elements, such as a merge cursor, by a search) gives the
// same result on any number of them.
//
// [Sum] is the one reduction: the sum of per-element terms in index order.
// A serial loop s = 0; s += t_q adds every term; Sum adds only the non-zero
// ones, in the same order, which changes no bit (s + ±0 = s for every s
// but -0, and a sum that starts at +0 is never -0). The solver's sums over
// every unscreened feature (the duality gap's terms) are zero for all but
// a few thousand of millions of features, so the blocks compute the terms
// in parallel and keep the non-zero ones, and the serial part adds only
// those.
package blocks
