package train

import (
	"math"
	"slices"
)

// The gauge step (docs/gauge.md). The average negative log-likelihood of a
// linear-chain CRF does not change along two kinds of directions:
//
//   - one constant c added to the state weights of one attribute a for
//     every label: at each position the scores of all labels move by
//     c x_{t,a}, which the normalizer absorbs;
//   - one constant c added to every transition weight: every labeling of a
//     sequence of length T has T-1 transitions.
//
// Along them only the penalty changes, with curvature l2 alone (2/n in the
// sum form at c2 = 1), so L-BFGS crawls along them: on CoNLL-2002 Spanish
// NER, where such directions carry most of the distance to the optimum
// late in the solve, the certified stop took twice the iterations without
// this step. gaugeShift moves a point to the penalty's minimum along each
// of these lines, exactly and without an evaluation: the loss, its
// gradient and m are unchanged, the penalty (and so the objective) can
// only fall. A group moves only when all its features are in the active
// set (the others are screened or outside the working set, fixed at 0).

// gaugeShift moves x (the weights of the features act, increasing) along
// the likelihood's symmetries to the penalty's minimum and adds l2 times
// each move to g (the gradient of the smooth part, l2 x - m, when not
// nil). It returns the change of the L2 term (l2/2)||x||^2 and the number
// of groups moved.
func (tr *trainer) gaugeShift(act []int32, x, g []float64) (dL2 float64, moved int) {
	L := tr.m.NumLabels()
	trans := int32(tr.m.Layout.TransOffset())
	var scratch []float64
	shift := func(k0, n int) {
		var c float64
		c, scratch = bestShift(x[k0:k0+n], tr.pen.l1, tr.pen.l2, scratch)
		if c == 0 {
			return
		}
		for k := k0; k < k0+n; k++ {
			old := x[k]
			x[k] += c
			dL2 += 0.5 * tr.pen.l2 * (x[k]*x[k] - old*old)
			if g != nil {
				g[k] += tr.pen.l2 * c
			}
		}
		moved++
	}
	if L < 2 {
		return 0, 0 // one label: nothing to trade, the penalty alone sets w
	}
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
	if tr.m.Layout.Transitions && k+L*L <= len(act) && act[k] == trans && act[k+L*L-1] == trans+int32(L*L-1) {
		shift(k, L*L)
	}
	return dL2, moved
}

// bestShift returns the c that minimizes
//
//	phi(c) = sum_j (l2/2) (v_j + c)^2 + l1 |v_j + c|,
//
// a convex piecewise quadratic with kinks at c = -v_j, and the scratch
// (sorted kinks) for reuse. Between two kinks the signs are fixed and
// phi'(c) = l2 (S + n c) + l1 (P - N) (S = sum v, P and N the numbers of
// positive and negative v_j + c) has one root; at a kink the
// subdifferential is that value +- l1 for each term at zero.
func bestShift(v []float64, l1, l2 float64, scratch []float64) (float64, []float64) {
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
		// At the kink hi: the terms equal to hi are at zero.
		z := 1
		for i+z < n && kinks[i+z] == hi {
			z++
		}
		if slope(hi, i, n-i-z)-l1*float64(z) <= 0 && slope(hi, i, n-i-z)+l1*float64(z) >= 0 {
			return hi, kinks
		}
		i += z - 1
	}
	return 0, kinks // not reached for l2 > 0; no move
}

// gaugeStep moves X along the likelihood's symmetries (gaugeShift) and
// hands the optimizer the new value and gradient, keeping its memory: no
// evaluation. It runs after every inner solve, before the full pass prices
// X (never between a checkpoint and the pricing a resumed run repeats, so
// a resumed run takes the same steps as the uninterrupted one). Running it
// also at the start of each inner solve, over the new working set, saved
// iterations on NER data but cost some on CoNLL-2000 (docs/gauge.md).
func (r *run) gaugeStep() error {
	x, g := r.opt.X(), r.opt.Grad()
	dL2, moved := r.tr.gaugeShift(r.tr.fs.Active(), x, g)
	if moved == 0 {
		return nil
	}
	return r.opt.Rebase(r.opt.F()+dL2, g)
}
