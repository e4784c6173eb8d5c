// Package spanadd adds one row of numbers to, or gathers many rows into,
// a flat slice at a list of offsets: the two inner loops of the training
// objective over a token's attributes whose every label is active.
//
// [Gather] sums rows src[lo_k : lo_k+n] into dst[:n], for the spans
// (lo_k, hi_k) in order: a token's state scores from its attributes'
// weight rows. [Scatter] adds v[:n] to dst[lo_k : lo_k+n] for each span:
// the attributes' expected counts from the token's node marginals. A span
// list is the flat pairs lo_0, hi_0, lo_1, hi_1, ..., every hi_k - lo_k
// equal to the row length n: the caller's reference ranges, passed as they
// are. The functions read lo_k and n only.
//
// # Results
//
// Gather gives each element of dst the same IEEE additions, in the same
// order (span order), as the loop
//
//	for k := range len(spans)/2 {
//		for j := range dst { dst[j] += src[int(spans[2*k])+j] }
//	}
//
// and Scatter those of the loop that adds v at each span in turn, so the
// results are bit-identical to these loops and to gonum's floats.Add called
// once per span (a NaN stays a NaN, though its payload may differ), whether
// the AVX2 kernels run (amd64 with AVX2, without the purego tag) or the Go
// loops. No FMA, no reassociation: the kernels keep the row being summed
// (Gather) or added (Scatter) in registers across the spans, a block of
// columns at a time, which changes where the values live, not the
// operations. Two conditions make that hold: Gather's dst must not overlap
// src, and Scatter's spans must be disjoint or identical (an attribute
// repeated in a row); spans that overlap in part would take their
// additions to a shared element in another order.
//
// # Cost
//
// One call per run of spans instead of one per span; the row stays in
// registers while the spans stream by. Neither function allocates. Both
// check every offset before the row there is read or written (0 <= lo_k
// <= len - n: one compare per span and block of columns, inside the
// kernels' loops) and panic on a violation, Scatter possibly after adding
// at the spans before it: a span list is built by the caller's own code,
// never read from user data.
package spanadd
