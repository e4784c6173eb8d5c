package objective

import (
	"math/bits"
	"slices"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/sparse"
)

// Features is the one owner of which features a training run works on.
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
// Only the Objective changes the active set (Objective.SetActive and
// Objective.Restrict), so that the references and the objective's buffers
// always follow it; the caller adapts its optimizer in the same place.
type Features struct {
	m        *chain.Model
	obs      *counts // the objective's observed counts (SetModel)
	inSet    sparse.Bitset
	size     int // number of features in the set
	screened sparse.Bitset
	active   []int32

	refPtr   []int32 // len U+1
	refLab   []int32 // active labels of each attribute
	attrLive []bool  // attribute has at least one active state feature
	live     int     // number of live attributes
}

func newFeatures(m *chain.Model) *Features {
	fs := &Features{m: m, screened: sparse.NewBitset(len(m.W)), attrLive: make([]bool, m.Layout.NumUnary)}
	fs.SetAll(nil)
	return fs
}

// SetAll fixes the model's feature set (increasing full indices).
func (fs *Features) SetAll(all []int32) {
	fs.inSet = sparse.NewBitset(len(fs.m.W))
	for _, j := range all {
		fs.inSet.Set(int(j))
	}
	fs.size = len(all)
}

// SetModel fixes the model's feature set: every feature, or with
// observedPairs the state and pair features seen in the training data
// only (a non-zero observed count, weighted as the objective's), and
// always the transitions when the model has them. The set's bits are
// written directly (SetAll of a list of every feature would take 7.4 M
// indices, 30 MB, on CoNLL-2000).
func (fs *Features) SetModel(observedPairs bool) {
	m := fs.m
	obs := fs.obs.cursor()
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

// All iterates the model's feature set in increasing order.
func (fs *Features) All(yield func(int32) bool) {
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

// AllSlice returns the model's feature set as a slice.
func (fs *Features) AllSlice() []int32 {
	out := make([]int32, 0, fs.size)
	for j := range fs.All {
		out = append(out, j)
	}
	return out
}

// Size returns the number of features in the set.
func (fs *Features) Size() int { return fs.size }

// InSet reports whether feature j is in the model's feature set.
func (fs *Features) InSet(j int32) bool { return fs.inSet.Has(int(j)) }

// IsScreened reports whether feature j is screened.
func (fs *Features) IsScreened(j int32) bool { return fs.screened.Has(int(j)) }

// ScreenedSet returns the screened features as a bit set over full
// indices (the set's own: clone what you keep).
func (fs *Features) ScreenedSet() sparse.Bitset { return fs.screened }

// SetScreened replaces the screened features (a bit set of the model's
// size, e.g. a checkpoint's).
func (fs *Features) SetScreened(b sparse.Bitset) { copy(fs.screened, b) }

// Active returns the active features (increasing full indices; the set's
// own: clone what you keep).
func (fs *Features) Active() []int32 { return fs.active }

// Screened returns the number of screened features.
func (fs *Features) Screened() int { return fs.screened.Count() }

// Unscreened returns the features of the set that are not screened
// (increasing), in dst's storage when it has room for them: a word of the
// two bit sets at a time, counted first so that the result is allocated
// once (2.6 M features on CoNLL-2000, grown by appending before).
func (fs *Features) Unscreened(dst []int32) []int32 {
	n := 0
	for k, w := range fs.inSet {
		n += bits.OnesCount64(w &^ fs.screened[k])
	}
	dst = slices.Grow(dst[:0], n)
	for k, w := range fs.inSet {
		for w &^= fs.screened[k]; w != 0; w &= w - 1 {
			dst = append(dst, int32(k<<6+bits.TrailingZeros64(w)))
		}
	}
	return dst
}

// Screen marks feature j as proven zero.
func (fs *Features) Screen(j int32) { fs.screened.Set(int(j)) }

// ResetScreening forgets every screening decision (a new penalty).
func (fs *Features) ResetScreening() { clear(fs.screened) }

// setActive installs a new active set (increasing full indices, none
// screened).
func (fs *Features) setActive(active []int32) {
	fs.active = active
	fs.buildRefs()
}

// restrict keeps the active features at positions keep (increasing).
func (fs *Features) restrict(keep []int32) {
	act := make([]int32, len(keep))
	for k, q := range keep {
		act[k] = fs.active[q]
	}
	fs.active = act
	fs.buildRefs()
}

// buildRefs rebuilds the attribute -> active label references.
func (fs *Features) buildRefs() {
	L := fs.m.NumLabels()
	U := fs.m.Layout.NumUnary
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
func (fs *Features) numState() int { return len(fs.refLab) }

// labels returns the active labels of attribute a.
func (fs *Features) labels(a int32) []int32 { return fs.refLab[fs.refPtr[a]:fs.refPtr[a+1]] }
