package screen

import "math"

// eps is the float64 unit roundoff (2^-53).
const eps = 0x1p-53

// minLinearBallHalfspaceDots returns
//
//	T* = min <b,a>  subject to  ||a - a0|| <= r,  <p,a> <= c,
//
// by the geometric closed form of section 6 of the design note (which corrects
// the paper's Lagrangian form: that one divides 0/0 when b is anti-parallel to
// p and when d = 1). With d = (<p,a0> - c)/(r||p||), phat = p/||p||, bp =
// <b,phat> and bperp = ||b - bp phat||:
//
//	d > 1 (empty set)                        +Inf
//	b = 0                                    <b,a0>
//	d <= -1 or <p,b> >= d ||p|| ||b||        <b,a0> - r||b||   (half-space inactive)
//	otherwise                                <b,a0> - r (d bp + sqrt(1-d^2) bperp)
//
// r = 0 gives <b,a0> if <p,a0> <= c and +Inf otherwise; p = 0 gives the ball
// minimum if c >= 0 and +Inf otherwise. A negative or NaN r gives NaN.
//
// The result is rounded outward, so that it stays a lower bound of the exact
// minimum: d is lowered by delta = 8 eps (1 + (|<p,a0>| + |c|)/(r||p||)),
// which near d = 1 (where sqrt(1-d^2) amplifies rounding) loosens the value by
// at most about sqrt(2 delta) r||b|| (about 5e-8 r||b|| when |<p,a0>| and |c|
// are of order r||p||).
//
// It takes inner products only, so that it can be evaluated without
// materialising the vectors: ba0 = <b,a0>, bb = ||b||^2, pb = <p,b>, pa0 =
// <p,a0>, pp = ||p||^2. Besides the outward rounding of d, bperp = sqrt(bb -
// pb^2/pp) is enlarged by sqrt(16 eps bb) to cover the cancellation of that
// difference when b is nearly parallel to p (inner products accurate to a few
// ulps are assumed); this keeps the result a lower bound and loosens it by at
// most about 6e-8 r||b||. The maximum is max <b,a> = -min <-b,a>
// (maxLinearBallHalfspaceDots).
func minLinearBallHalfspaceDots(ba0, bb, pb, pa0, pp, r, c float64) float64 {
	switch {
	case !(r >= 0):
		return math.NaN()
	case r == 0:
		if pa0 <= c {
			return ba0
		}
		return math.Inf(1)
	case pp == 0:
		if c >= 0 {
			return ba0 - r*math.Sqrt(bb)
		}
		return math.Inf(1)
	}
	np := math.Sqrt(pp)
	bp := pb / np
	bperp := math.Sqrt(max(bb-bp*bp, 0) + 16*eps*bb)
	return minLinearCore(ba0, math.Sqrt(bb), bp, bperp, pa0, np, r, c)
}

// maxLinearBallHalfspaceDots is the maximum counterpart of
// minLinearBallHalfspaceDots: max <b,a> = -min <-b,a>; -Inf if the set is empty.
func maxLinearBallHalfspaceDots(ba0, bb, pb, pa0, pp, r, c float64) float64 {
	return -minLinearBallHalfspaceDots(-ba0, bb, -pb, pa0, pp, r, c)
}

// minLinearCore evaluates the closed form for r > 0 and ||p|| = np > 0, with
// nb = ||b||, bp = <b,phat> and bperp = ||b - bp phat|| (possibly enlarged).
func minLinearCore(ba0, nb, bp, bperp, pa0, np, r, c float64) float64 {
	// Outward rounding: a smaller d gives a smaller (still valid) minimum,
	// and declares the set empty only when it certainly is.
	d := (pa0-c)/(r*np) - 8*eps*(1+(math.Abs(pa0)+math.Abs(c))/(r*np))
	if d > 1 {
		return math.Inf(1)
	}
	if nb == 0 {
		return ba0
	}
	ball := ba0 - r*nb
	if d <= -1 || bp >= d*nb {
		return ball // the half-space does not cut the ball's minimiser off
	}
	t := ba0 - r*(d*bp+math.Sqrt(1-d*d)*bperp)
	return max(t, ball) // both are lower bounds; bperp may be enlarged
}
