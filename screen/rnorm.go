package screen

import (
	"fmt"
	"math"

	"github.com/sparsetag/sparsetag/sparse"
)

// The Rnorm constants of the Pinsker rule (section 4 of the note): for feature
// j, Rnorm_j = sqrt(sum_i R_ij^2) with R_ij = (max_y F_j(x_i,y) - min_y
// F_j(x_i,y))/2, the half-range of the feature over all label sequences of
// training sequence i. All closed forms assume L >= 2 labels and no forbidden
// transitions; over-estimating R is always safe, so they stay valid when
// transitions are constrained.

// Rnorm writes the Pinsker constant Rnorm_j of every feature j of the layout
// (see sparse.Layout) into dst[:lay.Dim()] and returns it. State features
// (a, y) get the Rnorm of attribute a (the same for every y), transition
// features the exact closed form for l == l' and l != l', pair features the
// exact per-attribute values; fewer than 2 labels or no sequences give zeros.
// The values do not depend on lay.Transitions: when the model has no
// transition features the caller ignores that block. Features with Rnorm_j ==
// 0 can be dropped before training (ZeroRnorm). dst is reused when its
// capacity suffices.
//
// It returns an error if the layout is invalid or the corpus does not fit it
// (labels outside [0, L), more attributes than the layout holds).
func Rnorm(dst []float64, lay sparse.Layout, c *sparse.Corpus) ([]float64, error) {
	return WeightedRnorm(dst, lay, c, nil)
}

// WeightedRnorm is Rnorm with sequence weights s (one per sequence, each
// finite and above 0; nil: unit weights, exactly Rnorm): Rnorm_s,j =
// sqrt(sum_i s_i R_ij^2), the constant of the Pinsker rule of the weighted
// objective (1/n) sum_i s_i NLL_i (docs/crfsuite-algorithms.md, "The
// weighted dual"). It returns an error if s has the wrong length.
func WeightedRnorm(dst []float64, lay sparse.Layout, c *sparse.Corpus, s []float64) ([]float64, error) {
	state, tail, err := WeightedRnormParts(lay, c, s)
	if err != nil {
		return dst, err
	}
	dst = resize(dst, lay.Dim())
	for a, r := range state {
		row := dst[lay.StateIndex(a, 0):lay.StateIndex(a+1, 0)]
		for y := range row {
			row[y] = r
		}
	}
	copy(dst[lay.StateLen():], tail)
	return dst, nil
}

// WeightedRnormParts is WeightedRnorm in O(U + L*L + P*L*L) memory instead
// of the model's size: state[a] is the Rnorm of every state feature (a, y)
// of attribute a, tail the transition and pair blocks (WeightedRnorm's
// vector after the state block), the same values.
func WeightedRnormParts(lay sparse.Layout, c *sparse.Corpus, s []float64) (state, tail []float64, err error) {
	if err := checkLayout(lay, c); err != nil {
		return nil, nil, err
	}
	if err := checkWeights(s, c); err != nil {
		return nil, nil, err
	}
	L := lay.L
	tail = make([]float64, lay.Dim()-lay.StateLen())
	if len(c.SeqPtr) < 2 || L < 2 {
		return make([]float64, lay.NumUnary), tail, nil
	}
	state = stateRnorm(nil, &c.Unary, c.SeqPtr, lay.NumUnary, s)
	diag, off := transitionRnorm(c.SeqPtr, s)
	fillPairBlock(tail[:L*L], L, diag, off)
	if lay.NumPair > 0 && c.Pair.Rows() > 0 {
		pr := pairRnorm(nil, &c.Pair, c.SeqPtr, lay.NumPair, L, s)
		po := lay.PairOffset() - lay.StateLen()
		for a := 0; a < lay.NumPair; a++ {
			fillPairBlock(tail[po+a*L*L:po+(a+1)*L*L], L, pr[2*a], pr[2*a+1])
		}
	}
	return state, tail, nil
}

// checkWeights returns an error unless s is nil or holds one finite
// weight above 0 per sequence of c.
func checkWeights(s []float64, c *sparse.Corpus) error {
	if s == nil {
		return nil
	}
	if len(s) != c.Len() {
		return fmt.Errorf("screen: %d sequence weights for %d sequences", len(s), c.Len())
	}
	for i, v := range s {
		if !(v > 0) || math.IsInf(v, 1) {
			return fmt.Errorf("screen: the weight of sequence %d is %v; want a finite number above 0", i+1, v)
		}
	}
	return nil
}

// weightOf returns s[i], or 1 when s is nil.
func weightOf(s []float64, i int) float64 {
	if s == nil {
		return 1
	}
	return s[i]
}

// checkLayout returns an error if the corpus does not fit the layout.
func checkLayout(lay sparse.Layout, c *sparse.Corpus) error {
	if err := lay.Check(); err != nil {
		return fmt.Errorf("screen: %w", err)
	}
	if err := c.Validate(lay.L); err != nil {
		return fmt.Errorf("screen: corpus does not fit the layout: %w", err)
	}
	if c.NumUnary > lay.NumUnary {
		return fmt.Errorf("screen: corpus has %d unary attributes, layout %d", c.NumUnary, lay.NumUnary)
	}
	if c.Pair.Rows() > 0 && c.NumPair > lay.NumPair {
		return fmt.Errorf("screen: corpus has %d pair attributes, layout %d", c.NumPair, lay.NumPair)
	}
	return nil
}

// fillPairBlock writes diag on the diagonal of the L*L block and off elsewhere.
func fillPairBlock(blk []float64, L int, diag, off float64) {
	for p := 0; p < L; p++ {
		for q := 0; q < L; q++ {
			if p == q {
				blk[p*L+q] = diag
			} else {
				blk[p*L+q] = off
			}
		}
	}
}

// stateRnorm writes into dst[a] the Rnorm of the state features (a, l) of
// attribute a, which is the same for every label l:
//
//	Rnorm_a = sqrt(sum_i R_ia^2),  R_ia = sum_{t in sequence i} |x_{t,a}| / 2,
//
// with each sequence's R_ia^2 scaled by its weight s[i] (s nil: unit),
// and returns dst[:numAttrs] (reallocated if too short). Sequence i covers the
// rows seqPtr[i] to seqPtr[i+1]-1 of x; values repeated within a row are
// summed first (x_{t,a} is their sum, as in the feature). It panics if x or seqPtr are inconsistent or an
// attribute id is outside [0, numAttrs).
func stateRnorm(dst []float64, x *sparse.Matrix, seqPtr []int32, numAttrs int, s []float64) []float64 {
	dst = resize(dst, numAttrs)
	clear(dst)
	if len(seqPtr) < 2 {
		return dst
	}
	checkRows(x, seqPtr, "stateRnorm")
	acc := make([]float64, numAttrs)    // sum_t |x_{t,a}| over the current sequence
	rowAcc := make([]float64, numAttrs) // x_{t,a} of the current row (repeats summed)
	touched := make([]int32, 0, 64)
	rowTouched := make([]int32, 0, 16)
	inSeq := make([]bool, numAttrs)
	inRow := make([]bool, numAttrs)
	for i := 0; i+1 < len(seqPtr); i++ {
		for r := int(seqPtr[i]); r < int(seqPtr[i+1]); r++ {
			cols, vals := x.Row(r)
			if increasing(cols) {
				// No attribute twice in the row (the encoders' rows):
				// x_{t,a} is the entry itself, with no staging (the same
				// additions in the same order).
				for k, a := range cols {
					v := 1.0
					if vals != nil {
						v = vals[k]
					}
					if !inSeq[a] {
						inSeq[a] = true
						touched = append(touched, a)
					}
					acc[a] += math.Abs(v)
				}
				continue
			}
			for k, a := range cols {
				v := 1.0
				if vals != nil {
					v = vals[k]
				}
				if !inRow[a] {
					inRow[a] = true
					rowTouched = append(rowTouched, a)
				}
				rowAcc[a] += v
			}
			for _, a := range rowTouched {
				if !inSeq[a] {
					inSeq[a] = true
					touched = append(touched, a)
				}
				acc[a] += math.Abs(rowAcc[a])
				rowAcc[a], inRow[a] = 0, false
			}
			rowTouched = rowTouched[:0]
		}
		sw := weightOf(s, i)
		for _, a := range touched {
			h := acc[a] / 2
			if s == nil {
				dst[a] += h * h
			} else {
				dst[a] += sw * h * h
			}
			acc[a], inSeq[a] = 0, false
		}
		touched = touched[:0]
	}
	for a, v := range dst {
		dst[a] = math.Sqrt(v)
	}
	return dst
}

// transitionRnorm returns the Rnorm of the transition features (l, l'):
// diag for l == l' (R_i = (T_i - 1)/2) and offDiag for l != l' (R_i =
// floor(T_i/2)/2), where T_i = seqPtr[i+1] - seqPtr[i]. These are the exact
// half-ranges (the l -> l' count of an alternating path is floor(T/2); summing
// per-position half-ranges would give the 2x looser (T-1)/2). Each
// sequence's square is scaled by its weight s[i] (s nil: unit).
func transitionRnorm(seqPtr []int32, s []float64) (diag, offDiag float64) {
	for i := 0; i+1 < len(seqPtr); i++ {
		T := int(seqPtr[i+1] - seqPtr[i])
		if T < 2 {
			continue
		}
		d := float64(T-1) / 2
		o := float64(T/2) / 2
		if s == nil {
			diag += d * d
			offDiag += o * o
		} else {
			diag += s[i] * d * d
			offDiag += s[i] * o * o
		}
	}
	return math.Sqrt(diag), math.Sqrt(offDiag)
}

// pairRnorm writes the Rnorm of the observation-conditioned bigram ("pair")
// features F_(a,l,l')(x,y) = sum_{t>=1} x_{t,a} [y_{t-1} = l, y_t = l'] into
// dst[2a] (l == l') and dst[2a+1] (l != l', the same for every such pair by
// symmetry), and returns dst[:2*numAttrs]. Row t of a sequence conditions the
// transition into position t; the first row of each sequence has no incoming
// transition and is ignored (the convention of inference.Lattice.TransAt).
//
// The half-ranges are exact for any real values, including mixed signs: each
// (sequence, attribute) runs a max-sum and a min-sum DP over the positions
// where the attribute fires, with 2 label classes (l, other) for l == l' and 3
// (l, l', other; 2 when L == 2) for l != l'. Runs of consecutive positions are
// independent, since a position where the attribute does not fire leaves its
// label free. The cost is O(nnz). L < 2 gives zeros. It panics on
// inconsistent x or seqPtr. Each sequence's squares are scaled by its
// weight s[i] (s nil: unit).
func pairRnorm(dst []float64, x *sparse.Matrix, seqPtr []int32, numAttrs, L int, sw []float64) []float64 {
	dst = resize(dst, 2*numAttrs)
	clear(dst)
	if len(seqPtr) < 2 || L < 2 {
		return dst
	}
	checkRows(x, seqPtr, "pairRnorm")
	st := make([]pairDP, numAttrs)
	for a := range st {
		st[a].lastT = -2
		st[a].pendT = -2
	}
	touched := make([]int32, 0, 64)
	third := L >= 3
	for i := 0; i+1 < len(seqPtr); i++ {
		lo, hi := int(seqPtr[i]), int(seqPtr[i+1])
		for r := lo + 1; r < hi; r++ {
			t := r - lo
			cols, vals := x.Row(r)
			for k, a := range cols {
				v := 1.0
				if vals != nil {
					v = vals[k]
				}
				s := &st[a]
				if s.pendT == t {
					s.pendV += v
					continue
				}
				if s.pendT < 0 {
					touched = append(touched, a)
					s.reset()
				} else {
					s.step(third)
				}
				s.pendT, s.pendV = t, v
			}
		}
		for _, a := range touched {
			s := &st[a]
			s.step(third)
			dMax, dMin, oMax, oMin := s.result(third)
			hd := (dMax - dMin) / 2
			ho := (oMax - oMin) / 2
			if sw == nil {
				dst[2*a] += hd * hd
				dst[2*a+1] += ho * ho
			} else {
				dst[2*a] += sw[i] * hd * hd
				dst[2*a+1] += sw[i] * ho * ho
			}
			s.lastT, s.pendT = -2, -2
		}
		touched = touched[:0]
	}
	for k, s := range dst {
		dst[k] = math.Sqrt(s)
	}
	return dst
}

// pairDP is the running max-sum / min-sum DP of one attribute within one
// sequence. Diagonal feature (l,l): states 0 = l, 1 = other. Off-diagonal
// feature (l,l'): states 0 = l, 1 = l', 2 = other (only when L >= 3). The
// values are the best total over label prefixes ending in that state.
type pairDP struct {
	dMax, dMin [2]float64
	oMax, oMin [3]float64
	lastT      int     // position of the last applied step
	pendT      int     // position of the pending (not yet applied) step, -2 if none
	pendV      float64 // its summed value
}

func (s *pairDP) reset() {
	s.dMax, s.dMin = [2]float64{}, [2]float64{}
	s.oMax, s.oMin = [3]float64{}, [3]float64{}
	s.lastT = -2
}

// step applies the pending value pendV at position pendT.
func (s *pairDP) step(third bool) {
	t, v := s.pendT, s.pendV
	if t != s.lastT+1 {
		// The previous label is free: every state starts from the best
		// total so far.
		dMax, dMin, oMax, oMin := s.result(third)
		s.dMax = [2]float64{dMax, dMax}
		s.dMin = [2]float64{dMin, dMin}
		s.oMax = [3]float64{oMax, oMax, oMax}
		s.oMin = [3]float64{oMin, oMin, oMin}
	}
	// Diagonal: the feature fires on l -> l.
	d := s.dMax
	s.dMax = [2]float64{max(d[0]+v, d[1]), max(d[0], d[1])}
	d = s.dMin
	s.dMin = [2]float64{min(d[0]+v, d[1]), min(d[0], d[1])}
	// Off-diagonal: the feature fires on l -> l'.
	o := s.oMax
	if third {
		all := max(o[0], o[1], o[2])
		s.oMax = [3]float64{all, max(o[0]+v, o[1], o[2]), all}
	} else {
		s.oMax = [3]float64{max(o[0], o[1]), max(o[0]+v, o[1]), math.Inf(-1)}
	}
	o = s.oMin
	if third {
		all := min(o[0], o[1], o[2])
		s.oMin = [3]float64{all, min(o[0]+v, o[1], o[2]), all}
	} else {
		s.oMin = [3]float64{min(o[0], o[1]), min(o[0]+v, o[1]), math.Inf(1)}
	}
	s.lastT = t
}

// result returns the best totals over all states.
func (s *pairDP) result(third bool) (dMax, dMin, oMax, oMin float64) {
	dMax = max(s.dMax[0], s.dMax[1])
	dMin = min(s.dMin[0], s.dMin[1])
	oMax = max(s.oMax[0], s.oMax[1])
	oMin = min(s.oMin[0], s.oMin[1])
	if third {
		oMax = max(oMax, s.oMax[2])
		oMin = min(oMin, s.oMin[2])
	}
	return dMax, dMin, oMax, oMin
}

// checkRows panics if seqPtr does not describe the rows of x.
func checkRows(x *sparse.Matrix, seqPtr []int32, fn string) {
	if seqPtr[0] != 0 || int(seqPtr[len(seqPtr)-1]) != x.Rows() {
		panic("screen: " + fn + ": seqPtr does not cover the rows of x")
	}
}

// increasing reports whether ids are strictly increasing (so none repeats).
func increasing(ids []int32) bool {
	for k := 1; k < len(ids); k++ {
		if ids[k] <= ids[k-1] {
			return false
		}
	}
	return true
}
