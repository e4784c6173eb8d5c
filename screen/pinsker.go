package screen

import "math"

// PinskerBound returns the upper bound on |m_j(theta*)| of the l1/Pinsker gap
// rule (section 4 of the note):
//
//	|m_j(theta*)| <= |m_j| + sqrt(2 gap / n) * rnorm_j,
//
// where m_j and gap = G(w) come from the same point w, n is the number of
// sequences and rnorm_j = sqrt(sum_i R_ij^2) (see Rnorm).
// For the sum form, pass M_j, GapSum and n = 1.
func PinskerBound(m_j, rnorm_j, gap float64, n int) float64 {
	return math.Abs(m_j) + math.Sqrt(2*gap/float64(n))*rnorm_j
}

// PinskerBounds writes PinskerBound(m[j], rnorm[j], gap, n) into dst[j] for
// every j and returns dst[:len(m)] (dst is reallocated if too short). It panics
// if len(rnorm) != len(m).
func PinskerBounds(dst, m, rnorm []float64, gap float64, n int) []float64 {
	if len(rnorm) != len(m) {
		panic("screen: PinskerBounds: len(rnorm) != len(m)")
	}
	dst = resize(dst, len(m))
	r := math.Sqrt(2 * gap / float64(n))
	rn := rnorm[:len(m)]
	for j, v := range m {
		dst[j] = math.Abs(v) + r*rn[j]
	}
	return dst
}

// Pinsker applies the l1/Pinsker gap rule with the safety margin tau (section
// 4 and 7 of the note): every j with
//
//	|m_j| + sqrt(2 gap / n) * rnorm[j] < beta * (1 - tau)
//
// is marked screened[j] = true (w*_j = 0 is then certain). Entries already
// marked are left alone and never unmarked. It returns how many entries it
// newly marked.
//
// m = -grad L(w) and gap = Gap(w, m, alpha, beta) must come from the same
// point w (any point with the exact full-batch gradient, e.g. FISTA's
// extrapolated point). n is the number of sequences. For the sum form, pass M =
// -grad sum_i NLL_i, gap = GapSum, n = 1 and beta = lam1. Features with
// rnorm[j] == 0 have m_j = 0 identically and are screened here as soon as
// |m_j| < beta(1-tau); ZeroRnorm marks them up front without looking at m.
// A NaN or negative gap, or n <= 0, screens nothing. Use tau = DefaultTau
// unless T*max|x|/beta is large. It panics if the lengths differ.
func Pinsker(screened []bool, m, rnorm []float64, gap float64, n int, beta, tau float64) int {
	if len(rnorm) != len(m) || len(screened) != len(m) {
		panic("screen: Pinsker: screened, m and rnorm must have the same length")
	}
	if !(gap >= 0) || n <= 0 || math.IsInf(gap, 1) {
		return 0
	}
	r := math.Sqrt(2 * gap / float64(n))
	thr := beta * (1 - tau)
	rn := rnorm[:len(m)]
	sc := screened[:len(m)]
	count := 0
	for j, v := range m {
		if sc[j] {
			continue
		}
		if math.Abs(v)+r*rn[j] < thr {
			sc[j] = true
			count++
		}
	}
	return count
}

// ZeroRnorm marks screened[j] = true for every j with rnorm[j] == 0 and
// returns how many it newly marked. Such a feature takes the same value on
// every label sequence of every training sequence, so m_j(theta) = 0 for every
// dual point and w*_j = 0 for every beta > 0: it can be dropped once, before
// training, whatever the path of beta values. It panics if the lengths differ.
func ZeroRnorm(screened []bool, rnorm []float64) int {
	if len(screened) != len(rnorm) {
		panic("screen: ZeroRnorm: len(screened) != len(rnorm)")
	}
	count := 0
	for j, r := range rnorm {
		if r == 0 && !screened[j] {
			screened[j] = true
			count++
		}
	}
	return count
}

// ScreenBounds marks screened[j] = true for every j with bound[j] <
// beta*(1-tau), where bound[j] is any valid upper bound on |m_j(theta*)|
// (PinskerBounds, EuclideanT1, or their elementwise minimum, see MinInto). It
// never unmarks and returns how many it newly marked. NaN bounds screen
// nothing. It panics if the lengths differ.
func ScreenBounds(screened []bool, bound []float64, beta, tau float64) int {
	if len(screened) != len(bound) {
		panic("screen: ScreenBounds: len(screened) != len(bound)")
	}
	thr := beta * (1 - tau)
	count := 0
	for j, u := range bound {
		if !screened[j] && u < thr {
			screened[j] = true
			count++
		}
	}
	return count
}

// MinInto sets dst[j] = min(dst[j], other[j]) for every j: the minimum of two
// valid upper bounds is a valid upper bound. A NaN in other is ignored. It
// panics if the lengths differ.
func MinInto(dst, other []float64) {
	if len(dst) != len(other) {
		panic("screen: MinInto: len(dst) != len(other)")
	}
	for j, v := range other {
		if v < dst[j] {
			dst[j] = v
		}
	}
}

// resize returns s with length n, reusing its storage when large enough.
func resize(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n)
	}
	return s[:n]
}

// resizeZero is resize with every value 0: a new slice is zero already,
// so only reused storage is cleared (the range rule's vector is the
// model's size: 60 MB on CoNLL-2000, cleared once, not twice).
func resizeZero(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n)
	}
	s = s[:n]
	clear(s)
	return s
}
