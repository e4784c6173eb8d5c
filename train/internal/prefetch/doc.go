// Package prefetch asks the processor to bring blocks of two parallel
// float64 arrays into its caches ahead of their use, without waiting for
// them: the stochastic warm start (train/warmstart) prefetches the
// weight and penalty-record blocks of the next step's attributes while
// the current step scores its sequence.
//
// [BlocksAt] issues one PREFETCHT0 per cache line of x[o:o+n] and of
// y[o:o+n] for every offset o of a list (amd64, without the purego tag;
// elsewhere it issues nothing). A prefetch has no visible
// effect: it neither reads nor writes a value, never faults, and does not
// hold up the instructions after it, so a program's results are the same
// with or without it. BlocksAt returns the number of lines it covered (the
// same count on every architecture), which is what its tests check.
package prefetch
