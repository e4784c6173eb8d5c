package gauge

import (
	"math"
	"slices"

	"github.com/sparsetag/sparsetag/sparse"
)

// Shift moves x, the weights of the features act (increasing) of layout
// lay, along the likelihood's symmetries to the minimum of the penalty
// l1 ||w||_1 + (l2/2) ||w||^2 on each line, and adds l2 times each move to
// g (the gradient of the smooth part) when g is not nil. A group moves only
// when all its features are in act. It returns the change of the L2 term
// and the number of groups moved.
func Shift(lay sparse.Layout, act []int32, x, g []float64, l1, l2 float64) (dL2 float64, moved int) {
	L := lay.L
	if L < 2 {
		return 0, 0 // one label: the penalty alone sets the weights
	}
	var scratch []float64
	shift := func(k0, n int) {
		var c float64
		c, scratch = BestShift(x[k0:k0+n], l1, l2, scratch)
		if c == 0 {
			return
		}
		for k := k0; k < k0+n; k++ {
			old := x[k]
			x[k] += c
			dL2 += 0.5 * l2 * (x[k]*x[k] - old*old)
			if g != nil {
				g[k] += l2 * c
			}
		}
		moved++
	}
	trans := int32(lay.TransOffset())
	k := 0
	for k < len(act) && act[k] < trans {
		// act[k] is the first state feature of an attribute whose L
		// features are all active: they are act[k .. k+L-1].
		if j := act[k]; int(j)%L == 0 && k+L <= len(act) && act[k+L-1] == j+int32(L-1) {
			shift(k, L)
			k += L
			continue
		}
		k++
	}
	if lay.Transitions && k+L*L <= len(act) && act[k] == trans && act[k+L*L-1] == trans+int32(L*L-1) {
		shift(k, L*L)
	}
	return dL2, moved
}

// BestShift returns the c that minimizes
//
//	phi(c) = sum_j (l2/2) (v_j + c)^2 + l1 |v_j + c|   (l2 > 0),
//
// a convex piecewise quadratic with kinks at c = -v_j, and the scratch
// (the sorted kinks) for reuse. Between two kinks the signs are fixed and
// phi'(c) = l2 (S + n c) + l1 (P - N) (S = sum v, P and N the numbers of
// positive and negative v_j + c) has one root; at a kink the
// subdifferential is that value +- l1 for each term at zero.
func BestShift(v []float64, l1, l2 float64, scratch []float64) (float64, []float64) {
	kinks := append(scratch[:0], v...)
	sum := 0.0
	for k, x := range kinks {
		sum += x
		kinks[k] = -x
	}
	slices.Sort(kinks)
	n := len(kinks)
	slope := func(c float64, pos, neg int) float64 {
		return l2*(sum+float64(n)*c) + l1*float64(pos-neg)
	}
	for i := 0; i <= n; i++ {
		// On (kinks[i-1], kinks[i]): i terms positive, n-i negative.
		lo, hi := math.Inf(-1), math.Inf(1)
		if i > 0 {
			lo = kinks[i-1]
		}
		if i < n {
			hi = kinks[i]
		}
		c := -(sum + l1*float64(2*i-n)/l2) / float64(n)
		if c > lo && c < hi {
			return c, kinks
		}
		if i == n {
			break
		}
		// At the kink hi: the z terms equal to hi are at zero.
		z := 1
		for i+z < n && kinks[i+z] == hi {
			z++
		}
		if s := slope(hi, i, n-i-z); s-l1*float64(z) <= 0 && s+l1*float64(z) >= 0 {
			return hi, kinks
		}
		i += z - 1
	}
	return 0, kinks // not reached for l2 > 0: no move
}
