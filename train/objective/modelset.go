package objective

import "github.com/sparsetag/sparsetag/sparse"

// SetModelFeatures fixes the feature set to ModelFeatures(observedPairs)
// without listing it: the set's bits are written directly, where
// SetAll(ModelFeatures(...)) appends every index (7.4 M on CoNLL-2000,
// 30 MB) to a slice first.
func (o *Objective) SetModelFeatures(observedPairs bool) {
	m, fs := o.m, o.fs
	obs := o.obs.cursor()
	lo, hi := m.Layout.TransOffset(), m.Layout.PairOffset()
	in := sparse.NewBitset(len(m.W))
	n := 0
	for j := range len(m.W) {
		isTrans := j >= lo && j < hi
		switch {
		case isTrans && !m.Layout.Transitions:
		case isTrans || !observedPairs || obs.at(int32(j)) != 0:
			in.Set(j)
			n++
		}
	}
	fs.inSet, fs.size = in, n
}
