package screen

import "math"

// DefaultTau is the default relative safety margin of the screening tests: a
// feature is screened only if its bound is below beta*(1-DefaultTau). It covers
// the rounding of m_j (about T*eps*max|x|, section 7 of the design note); do not
// go below 1e-12.
const DefaultTau = 1e-9

// gapBlock is the block length of the two-level summation in Gap: plain sums
// inside blocks, plain sum of block sums. The relative error is then about
// (gapBlock + d/gapBlock)*eps instead of d*eps.
const gapBlock = 1024

// BetaMax returns beta_max = ||m(0)||_inf, where m0 = -grad L(0) is the negative
// gradient of the average negative log-likelihood at w = 0 (the model
// expectations are then uniform over the allowed label sequences). For every beta >= beta_max the elastic-net solution
// is w* = 0, and for every beta < beta_max it is not (section 2 of the note).
// It returns NaN if m0 holds a NaN, and 0 for an empty m0.
func BetaMax(m0 []float64) float64 {
	best := 0.0
	for _, v := range m0 {
		a := math.Abs(v)
		if a > best {
			best = a
		} else if a != a {
			return math.NaN()
		}
	}
	return best
}

// GapTerm returns the Fenchel-Young duality gap term of one coordinate,
//
//	g(w_j, m_j) = beta|w_j| + (ab/2) w_j^2 + max(|m_j| - beta, 0)^2/(2 ab) - w_j m_j >= 0,  ab = alpha*beta,
//
// evaluated case by case as a sum of non-negative pieces (section 2 of the
// note), so that it is accurate to rounding even when the gap is tiny. It
// needs alpha > 0 and beta > 0; otherwise it returns +Inf (no screening).
func GapTerm(w, m, alpha, beta float64) float64 {
	ab := alpha * beta
	if !(alpha > 0 && beta > 0) || math.IsInf(ab, 0) {
		return math.Inf(1)
	}
	return gapTerm(w, m, beta, ab)
}

// gapTerm is GapTerm with validated parameters and ab = alpha*beta.
func gapTerm(w, m, beta, ab float64) float64 {
	if w == 0 {
		e := math.Abs(m) - beta
		if e > 0 {
			return e * e / (2 * ab)
		}
		if e != e { // NaN m
			return e
		}
		return 0
	}
	u, v := w, m
	if w < 0 {
		u, v = -w, -m
	}
	switch {
	case v >= beta:
		e := u - (v-beta)/ab
		return 0.5 * ab * e * e
	case v > -beta:
		return 0.5*ab*u*u + (beta-v)*u
	case v <= -beta:
		e := v + beta
		return 0.5*ab*u*u + (beta-v)*u + e*e/(2*ab)
	}
	return math.NaN() // v is NaN
}

// Gap returns the duality gap G(w) = P(w) + D(p_w) of the average-form
// elastic-net CRF, computed as sum_j g(w_j, m_j) (GapTerm) with m = m(w) =
// -grad L(w) taken from the same forward-backward pass as w. The result is >= 0
// (a NaN in w or m gives NaN, which screens nothing). It never forms P + D,
// whose log Z terms cancel catastrophically (section 2 of the note).
//
// To get the gap of a reduced problem, pass only the active coordinates.
// It needs alpha > 0 and beta > 0, otherwise it returns +Inf.
// It panics if len(w) != len(m).
func Gap(w, m []float64, alpha, beta float64) float64 {
	return gapMasked(w, m, nil, alpha, beta)
}

// gapMasked is Gap restricted to the coordinates j with skip[j] == false (the
// reduced problem after screening: screened coordinates do not count). A nil
// skip keeps every coordinate. It panics if the lengths differ.
func gapMasked(w, m []float64, skip []bool, alpha, beta float64) float64 {
	if len(w) != len(m) {
		panic("screen: Gap: len(w) != len(m)")
	}
	if skip != nil && len(skip) != len(w) {
		panic("screen: Gap: len(skip) != len(w)")
	}
	ab := alpha * beta
	if !(alpha > 0 && beta > 0) || math.IsInf(ab, 0) {
		return math.Inf(1)
	}
	total := 0.0
	for lo := 0; lo < len(w); lo += gapBlock {
		hi := min(lo+gapBlock, len(w))
		wb, mb := w[lo:hi], m[lo:hi:hi]
		mb = mb[:len(wb)]
		s := 0.0
		if skip == nil {
			// Zero weights (usually the vast majority) contribute
			// max(|m_j| - beta, 0)^2/(2ab): summed branch-free in z (the
			// builtin max keeps NaN), scaled once per block.
			z := 0.0
			for k, wj := range wb {
				if wj == 0 {
					e := max(math.Abs(mb[k])-beta, 0)
					z += e * e
					continue
				}
				s += gapTerm(wj, mb[k], beta, ab)
			}
			s += z / (2 * ab)
		} else {
			sb := skip[lo:hi]
			for k, wj := range wb {
				if !sb[k] {
					s += gapTerm(wj, mb[k], beta, ab)
				}
			}
		}
		total += s
	}
	if total < 0 { // cannot happen (non-negative terms); keeps NaN as NaN
		total = 0
	}
	return total
}

// GapSum is the duality gap of the sum-form objective
//
//	sum_i NLL_i(w) + lam1 ||w||_1 + (lam2/2) ||w||^2,
//
// Gsum = sum_j [lam1|w_j| + (lam2/2) w_j^2 + max(|M_j| - lam1, 0)^2/(2 lam2) - w_j M_j],
// with M = -grad sum_i NLL_i. It equals n * Gap(w, M/n, lam2/lam1, lam1/n)
// (section 4 of the note). It needs lam1 > 0 and lam2 > 0, otherwise it
// returns +Inf. It panics if len(w) != len(M).
func GapSum(w, M []float64, lam1, lam2 float64) float64 {
	if !(lam1 > 0 && lam2 > 0) {
		if len(w) != len(M) {
			panic("screen: GapSum: len(w) != len(M)")
		}
		return math.Inf(1)
	}
	// The sum-form term is g(w_j, M_j) with beta = lam1 and alpha*beta = lam2.
	return Gap(w, M, lam2/lam1, lam1)
}
