package objective

// ObservedCounts writes into obs the observed count of each feature of idx
// (increasing) and into tot the sum of the observed counts of its block:
// the labels of its attribute for a state feature, every transition for a
// transition, the label pairs of its attribute for a pair feature (with
// sequence weights, weighted counts). With binary values tot is the number
// of places where the feature's block can fire, the N of the curvature
// bound E(N - E)/N (train's diagonal start). obs and tot must have
// len(idx) elements, and the set must belong to an objective (New).
func (fs *Features) ObservedCounts(idx []int32, obs, tot []float64) {
	if len(obs) != len(idx) || len(tot) != len(idx) {
		panic("objective: ObservedCounts: length mismatch")
	}
	lay := fs.m.Layout
	L := int32(lay.L)
	trans, pair := int32(lay.TransOffset()), int32(lay.PairOffset())
	cur, blk := fs.obs.cursor(), fs.obs.cursor()
	lo, hi, sum := int32(-1), int32(-1), 0.0
	for k, j := range idx {
		if j >= hi {
			switch {
			case j < trans:
				lo = j / L * L
				hi = lo + L
			case j < pair:
				lo, hi = trans, pair
			default:
				lo = pair + (j-pair)/(L*L)*(L*L)
				hi = lo + L*L
			}
			sum = 0
			for q := lo; q < hi; q++ {
				sum += blk.at(q)
			}
		}
		obs[k], tot[k] = cur.at(j), sum
	}
}
