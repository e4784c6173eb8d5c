package screen

import (
	"fmt"

	"github.com/sparsetag/sparsetag/sparse"
)

// Layout describes the full feature vector of a linear-chain CRF as the
// trainer in package chain lays it out (all blocks row-major):
//
//	state        j = a*L + y                          a < NumAttrs (unary attributes)
//	transition   TransOffset() + prev*L + cur         L*L
//	start, end   StartOffset() + y, EndOffset() + y   L each, only if StartEnd
//	pair         PairOffset() + a*L*L + prev*L + cur  a < NumPair (pair attributes)
//
// State feature (a, y) is sum_t x_{t,a} [y_t = y] over the Unary matrix of a
// sparse.Corpus; pair feature (a, prev, cur) is sum_{t>=1} x_{t,a} [y_{t-1} =
// prev, y_t = cur] over its Pair matrix (row t conditions the transition into
// position t).
type Layout struct {
	NumAttrs int  // number of unary attributes
	L        int  // number of labels
	StartEnd bool // whether the start and end blocks exist
	NumPair  int  // number of pair attributes (0: no pair block)
}

// TransOffset returns the index of transition feature (0, 0).
func (l Layout) TransOffset() int { return l.NumAttrs * l.L }

// StartOffset returns the index of start feature 0, or -1 without StartEnd.
func (l Layout) StartOffset() int {
	if !l.StartEnd {
		return -1
	}
	return l.TransOffset() + l.L*l.L
}

// EndOffset returns the index of end feature 0, or -1 without StartEnd.
func (l Layout) EndOffset() int {
	if !l.StartEnd {
		return -1
	}
	return l.TransOffset() + l.L*l.L + l.L
}

// PairOffset returns the index of pair feature (0, 0, 0).
func (l Layout) PairOffset() int {
	o := l.TransOffset() + l.L*l.L
	if l.StartEnd {
		o += 2 * l.L
	}
	return o
}

// Dim returns the length of the full feature vector.
func (l Layout) Dim() int { return l.PairOffset() + l.NumPair*l.L*l.L }

// check returns an error if the corpus does not fit the layout.
func (l Layout) check(c *sparse.Corpus) error {
	if l.L < 1 || l.NumAttrs < 0 || l.NumPair < 0 {
		return fmt.Errorf("screen: invalid layout %+v", l)
	}
	if err := c.Validate(l.L); err != nil {
		return fmt.Errorf("screen: corpus does not fit the layout: %w", err)
	}
	if c.NumUnary > l.NumAttrs {
		return fmt.Errorf("screen: corpus has %d unary attributes, layout %d", c.NumUnary, l.NumAttrs)
	}
	if c.Pair.Rows() > 0 && c.NumPair > l.NumPair {
		return fmt.Errorf("screen: corpus has %d pair attributes, layout %d", c.NumPair, l.NumPair)
	}
	return nil
}

// Rnorm writes the Pinsker constant Rnorm_j of every feature of the layout into
// dst[:Dim()] and returns it (see StateRnorm, TransitionRnorm, StartEndRnorm,
// PairRnorm). Features with Rnorm_j == 0 can be dropped before training
// (ZeroRnorm). It returns an error if the corpus does not fit the layout.
func (l Layout) Rnorm(dst []float64, c *sparse.Corpus) ([]float64, error) {
	if err := l.check(c); err != nil {
		return dst, err
	}
	dst = resize(dst, l.Dim())
	L := l.L
	if len(c.SeqPtr) < 2 || L < 2 {
		clear(dst)
		return dst, nil
	}
	state := StateRnorm(nil, &c.Unary, c.SeqPtr, l.NumAttrs)
	for a, r := range state {
		row := dst[a*L : (a+1)*L]
		for y := range row {
			row[y] = r
		}
	}
	diag, off := TransitionRnorm(c.SeqPtr)
	fillPairBlock(dst[l.TransOffset():l.TransOffset()+L*L], L, diag, off)
	if l.StartEnd {
		n := 0
		for i := 0; i+1 < len(c.SeqPtr); i++ {
			if c.SeqPtr[i+1] > c.SeqPtr[i] {
				n++
			}
		}
		se := StartEndRnorm(n)
		blk := dst[l.StartOffset() : l.StartOffset()+2*L]
		for k := range blk {
			blk[k] = se
		}
	}
	po := l.PairOffset()
	if l.NumPair > 0 {
		if c.Pair.Rows() == 0 {
			clear(dst[po:])
		} else {
			pr := PairRnorm(nil, &c.Pair, c.SeqPtr, l.NumPair, L)
			for a := 0; a < l.NumPair; a++ {
				fillPairBlock(dst[po+a*L*L:po+(a+1)*L*L], L, pr[2*a], pr[2*a+1])
			}
		}
	}
	return dst, nil
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

// UniformGradient writes m(0) = -grad L(0) = (1/n) sum_i (F(x_i,y_i) -
// E_unif[F(x_i,Y)]) into dst[:Dim()] and returns it, using the closed-form
// uniform expectations of section 2 of the note (E[F_(a,l)] = (1/L) sum_t
// x_{t,a}, E[F_(l,l')] = (T-1)/L^2, E[start_l] = E[end_l] = 1/L, E[F_(a,l,l')] =
// (1/L^2) sum_{t>=1} x_{t,a}). BetaMax(UniformGradient(...)) is beta_max. It
// assumes no forbidden transitions (otherwise run forward-backward at w = 0). It
// returns an error if the corpus has no labels or does not fit the layout.
func (l Layout) UniformGradient(dst []float64, c *sparse.Corpus) ([]float64, error) {
	if err := l.check(c); err != nil {
		return dst, err
	}
	if c.Labels == nil {
		return dst, fmt.Errorf("screen: UniformGradient needs gold labels")
	}
	dst = resize(dst, l.Dim())
	clear(dst)
	n := c.Len()
	if n == 0 {
		return dst, nil
	}
	L := l.L
	invL := 1 / float64(L)
	invL2 := invL * invL
	to, po := l.TransOffset(), l.PairOffset()
	for i := 0; i < n; i++ {
		lo, hi := int(c.SeqPtr[i]), int(c.SeqPtr[i+1])
		if hi == lo {
			continue
		}
		for r := lo; r < hi; r++ {
			y := int(c.Labels[r])
			cols, vals := c.Unary.Row(r)
			for k, a := range cols {
				v := 1.0
				if vals != nil {
					v = vals[k]
				}
				row := dst[int(a)*L : (int(a)+1)*L]
				row[y] += v
				for q := range row {
					row[q] -= v * invL
				}
			}
			if r == lo {
				continue
			}
			prev := int(c.Labels[r-1])
			dst[to+prev*L+y]++
			if c.Pair.Rows() > 0 && l.NumPair > 0 {
				cols, vals := c.Pair.Row(r)
				for k, a := range cols {
					v := 1.0
					if vals != nil {
						v = vals[k]
					}
					blk := dst[po+int(a)*L*L : po+(int(a)+1)*L*L]
					blk[prev*L+y] += v
					for q := range blk {
						blk[q] -= v * invL2
					}
				}
			}
		}
		tr := dst[to : to+L*L]
		for q := range tr {
			tr[q] -= float64(hi-lo-1) * invL2
		}
		if l.StartEnd {
			so, eo := l.StartOffset(), l.EndOffset()
			dst[so+int(c.Labels[lo])]++
			dst[eo+int(c.Labels[hi-1])]++
			for q := 0; q < L; q++ {
				dst[so+q] -= invL
				dst[eo+q] -= invL
			}
		}
	}
	inv := 1 / float64(n)
	for j := range dst {
		dst[j] *= inv
	}
	return dst, nil
}
