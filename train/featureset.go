package train

import (
	"math/bits"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/sparse"
)

// featureSet is the one owner of which features a training run works on.
//
//   - inSet: the model's feature set (every feature, or the observed pairs)
//     as a bit set, fixed for the run; all iterates it.
//   - screened: the features proven zero at the optimum for the current
//     penalty (static rule, Rnorm 0, Pinsker), a bit set over full indices;
//     counts are derived from it.
//   - active: the features the optimizer and the objective currently work
//     on (increasing full indices, disjoint from screened): every
//     unscreened feature for the full solver, the working set for the
//     working-set solver.
//   - attribute -> feature references (as CRFsuite's feature_refs_t): the
//     active labels of each unary attribute, labs[refPtr[a]:refPtr[a+1]],
//     and whether an attribute has any active state feature.
//
// Restrict and SetActive change the active set; the trainer then adapts
// the objective (objective.follow) and the optimizer (Compact or a new one)
// in the same place (trainer.setActive, dropScreenedActive).
type featureSet struct {
	m        *chain.Model
	inSet    sparse.Bitset
	size     int // number of features in the set
	screened sparse.Bitset
	active   []int32

	refPtr   []int32 // len U+1
	refLab   []int32 // active labels of each attribute
	attrLive []bool  // attribute has at least one active state feature
	live     int     // number of live attributes
}

func newFeatureSet(m *chain.Model, all []int32) *featureSet {
	fs := &featureSet{m: m, screened: sparse.NewBitset(len(m.W)), attrLive: make([]bool, m.NumUnary)}
	fs.setAll(all)
	return fs
}

// setAll fixes the model's feature set (increasing full indices).
func (fs *featureSet) setAll(all []int32) {
	fs.inSet = sparse.NewBitset(len(fs.m.W))
	for _, j := range all {
		fs.inSet.Set(int(j))
	}
	fs.size = len(all)
}

// all iterates the model's feature set in increasing order.
func (fs *featureSet) all(yield func(int32) bool) {
	for w, word := range fs.inSet {
		for word != 0 {
			b := bits.TrailingZeros64(word)
			if !yield(int32(w<<6 + b)) {
				return
			}
			word &= word - 1
		}
	}
}

// allSlice returns the model's feature set as a slice.
func (fs *featureSet) allSlice() []int32 {
	out := make([]int32, 0, fs.size)
	for j := range fs.all {
		out = append(out, j)
	}
	return out
}

// Screened returns the number of screened features.
func (fs *featureSet) Screened() int { return fs.screened.Count() }

// unscreened returns the features of the set that are not screened.
func (fs *featureSet) unscreened(dst []int32) []int32 {
	dst = dst[:0]
	for j := range fs.all {
		if !fs.screened.Has(int(j)) {
			dst = append(dst, j)
		}
	}
	return dst
}

// screen marks feature j as proven zero.
func (fs *featureSet) screen(j int32) { fs.screened.Set(int(j)) }

// resetScreening forgets every screening decision (a new penalty).
func (fs *featureSet) resetScreening() { clear(fs.screened) }

// SetActive installs a new active set (increasing full indices, none
// screened).
func (fs *featureSet) SetActive(active []int32) {
	fs.active = active
	fs.buildRefs()
}

// Restrict keeps the active features at positions keep (increasing).
func (fs *featureSet) Restrict(keep []int32) {
	act := make([]int32, len(keep))
	for k, q := range keep {
		act[k] = fs.active[q]
	}
	fs.active = act
	fs.buildRefs()
}

// buildRefs rebuilds the attribute -> active label references.
func (fs *featureSet) buildRefs() {
	L := fs.m.NumLabels()
	U := fs.m.NumUnary
	clear(fs.attrLive)
	if cap(fs.refPtr) < U+1 {
		fs.refPtr = make([]int32, U+1)
	}
	fs.refPtr = fs.refPtr[:U+1]
	if cap(fs.refLab) > 2*len(fs.active)+1024 {
		fs.refLab = nil // sized for a much larger set: let it go
	}
	fs.refLab = fs.refLab[:0]
	fs.live = 0
	k := 0
	for a := 0; a < U; a++ {
		fs.refPtr[a] = int32(len(fs.refLab))
		for k < len(fs.active) && int(fs.active[k]) < (a+1)*L {
			fs.refLab = append(fs.refLab, fs.active[k]-int32(a*L))
			k++
		}
		if int(fs.refPtr[a]) < len(fs.refLab) {
			fs.attrLive[a] = true
			fs.live++
		}
	}
	fs.refPtr[U] = int32(len(fs.refLab))
}

// numState returns the number of active state features.
func (fs *featureSet) numState() int { return len(fs.refLab) }

// labels returns the active labels of attribute a.
func (fs *featureSet) labels(a int32) []int32 { return fs.refLab[fs.refPtr[a]:fs.refPtr[a+1]] }
