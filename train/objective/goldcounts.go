package objective

import "iter"

// GoldStateCounts returns o's observed counts of the state block, the
// gold F(x, y) summed over the corpus for every feature j = a*L + l, as
// the features with a non-zero count in increasing order, and true; or
// false when the objective's counts are not the gold ones (sequence
// weights scale them, partial labels replace them). They are what the
// objective computed in New: the static range rule reads them
// (screen.CountedRangeBounds) instead of scanning the corpus again.
// (A function, not a method: Objective has methods enough.)
func GoldStateCounts(o *Objective) (iter.Seq2[int32, float64], bool) {
	if o.weights != nil || o.partial != nil {
		return nil, false
	}
	c := &o.obs
	return func(yield func(int32, float64) bool) {
		if c.dense != nil {
			for j, v := range c.dense[:o.m.Layout.StateLen()] {
				if v != 0 && !yield(int32(j), v) {
					return
				}
			}
			return
		}
		for k, j := range c.stIdx {
			if !yield(j, c.stVal[k]) {
				return
			}
		}
	}, true
}
