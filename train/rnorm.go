package train

import (
	"math"

	"github.com/sparsetag/sparsetag/train/objective"
)

// rnormTable holds the Pinsker constants Rnorm_j of a model layout in
// O(U + L*L + P*L*L) memory: the Rnorm of a state feature (a, y) depends on
// the attribute a only (the range of its count over label sequences), so
// the state block keeps one value per attribute (attr, filled from
// screen.WeightedRnormParts). A table with attr nil holds the whole vector
// in full: only the tests build one (newRnormTable), to compare the two.
type rnormTable struct {
	L, stateLen int
	attr        []float64 // per attribute (nil: full holds the state block)
	full        []float64 // the whole vector, or only the blocks after the state block
}

// at returns Rnorm_j.
func (t *rnormTable) at(j int32) float64 {
	switch {
	case t.attr == nil:
		return t.full[j]
	case int(j) < t.stateLen:
		return t.attr[int(j)/t.L]
	default:
		return t.full[int(j)-t.stateLen]
	}
}

// min returns the smallest Rnorm over the features of fs's set (+Inf for
// an empty set): with one value per attribute, one feature of an attribute
// in the set is enough to take its value.
func (t *rnormTable) min(fs *objective.Features) float64 {
	lo, j, end := math.Inf(1), 0, len(t.full)
	if t.attr != nil {
		for a, r := range t.attr {
			if anyInSet(fs, a*t.L, (a+1)*t.L) {
				lo = math.Min(lo, r)
			}
		}
		j, end = t.stateLen, t.stateLen+len(t.full)
	}
	for ; j < end; j++ {
		if fs.InSet(int32(j)) {
			lo = math.Min(lo, t.at(int32(j)))
		}
	}
	return lo
}

// anyInSet reports whether a feature of [lo, hi) is in fs's set.
func anyInSet(fs *objective.Features, lo, hi int) bool {
	for j := lo; j < hi; j++ {
		if fs.InSet(int32(j)) {
			return true
		}
	}
	return false
}
