package certificate

import "math"

// PureL1Gap returns the duality gap of the pure-L1 problem (average form,
// no L2 term: P(w) = L_s(w) + l1 ||w||_1) at x, given m = -grad L_s over
// the same features and nll, the sequences' losses -log p_w(y_i | x_i) of
// the same evaluation, with weights s (nil: unit).
//
// Without the L2 term the dual gains the constraint ||m(theta)||_inf <=
// l1, and theta_i = c p_w,i + (1 - c) delta(y_i) with c = min(1, l1 /
// ||m||_inf) is feasible: m(theta) = c m (m is affine in theta and 0 at
// the gold labelings). Its gap, as for every dual point, is
//
//	G = (1/n) sum_i s_i KL(theta_i || p_w,i) + sum_j (l1 |x_j| - c x_j m_j),
//
// and KL(theta_i || p_w,i) has a closed form in p = p_w,i(y_i) =
// exp(-NLL_i): c (1 - p) log c + z log(z / p), z = c p + 1 - c. Each term
// is computed on its own, without the difference of two numbers near log
// Z that the entropy form would take. c is rounded down by a relative
// 1e-12 so that the computed m scaled by it is inside the constraint by a
// margin (docs/crfsuite-algorithms.md, "Pure L1: a certificate"). A NaN in
// m gives NaN.
func PureL1Gap(x, m []float64, l1 float64, nll, s []float64) float64 {
	inf := 0.0
	for _, v := range m {
		if math.IsNaN(v) {
			return math.NaN()
		}
		inf = math.Max(inf, math.Abs(v))
	}
	c := 1.0
	if inf > l1 {
		c = l1 / inf * (1 - 1e-12)
	}
	g := 0.0
	for k, v := range x {
		g += l1*math.Abs(v) - c*v*m[k]
	}
	return g + mixtureKL(c, nll, s)
}

// mixtureKL returns (1/n) sum_i s_i KL(theta_i || p_w,i) for theta_i = c
// p_w,i + (1 - c) delta(y_i), from the sequences' losses.
func mixtureKL(c float64, nll, s []float64) float64 {
	if c == 1 {
		return 0
	}
	logc := math.Log(c)
	sum := 0.0
	for i, l := range nll {
		p := math.Exp(-l)
		z := c*p + 1 - c
		kl := c*(1-p)*logc + z*(math.Log(z)+l)
		if s != nil {
			kl *= s[i]
		}
		sum += kl
	}
	return sum / float64(len(nll))
}

// GradientTest returns ||m|| / max(1, ||x||): CRFsuite's stopping test
// without a penalty. It certifies nothing.
func GradientTest(x, m []float64) float64 {
	g, w := 0.0, 0.0
	for k, v := range m {
		g += v * v
		w += x[k] * x[k]
	}
	return math.Sqrt(g) / math.Max(1, math.Sqrt(w))
}
