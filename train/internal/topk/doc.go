// Package topk picks the k smallest of a stream of priorities in O(k)
// memory: the working-set policy's choice of features (train). Smallest
// keeps the k smallest (priority, position) entries in a max-heap, and
// Pick returns the positions of priority -Inf (which must enter) and then
// the smallest finite priorities in increasing order, ties by position.
//
// # Contract
//
//   - Deterministic: ties break by position, a NaN priority counts as
//     +Inf, so the chosen set depends only on the priorities.
//   - Memory O(initial + must) entries, not O(n); a Smallest is reused
//     from one Pick to the next (no allocation once warm).
package topk
