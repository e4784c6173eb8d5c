package train

import (
	"math"
	"slices"
)

// certRidge is the ridge of certModel, in units of l2.
const certRidge = 0.01

// certModel is the Newton candidate's model of G(X, p_{X+d}) for d = V c
// (V orthonormal over the free coordinates F, W = HV over the whole active
// set A): the KL part c.Sc/2 (S = V'W over F, symmetrized), the
// coordinate terms of F, (r + Wc)_k^2/(2 l2), and those of the rest of A,
// whose weights stay 0: (|m_k - (Wc)_k| - l1)_+^2/(2 l2); plus a ridge
// (ridge l2/2)|c|^2. The model is flat along the null space of H (the
// likelihood's gauge directions, docs/gauge.md section 2, and any
// direction the loss does not see), where a step would only move w' by
// what rounding in W decides: the ridge pins those directions at 0 and
// changes the step little elsewhere (the model's curvature along an
// eigenvector of H with eigenvalue h is h (h + l2)/l2, against the ridge's
// 0.01 l2). It is convex and piecewise quadratic in c; minimize takes
// semismooth Newton steps. The terms of F are a quadratic in c whose
// coefficients prepare forms once (|r|^2, W_F'r and W_F'W_F), so an
// evaluation visits only the rest of A.
type certModel struct {
	V, W   [][]float64
	free   []int32   // F: positions in A, increasing
	r      []float64 // over F
	m      []float64 // m at X over A
	l1, l2 float64
	s      []float64 // S plus the ridge, k x k
	q      []float64 // W_F'W_F / l2, k x k
	g      []float64 // W_F'r / l2
	rr     float64   // |r|^2 / (2 l2)
	held   []int32   // A less F
}

// prepare forms S, the quadratic of the terms of F, and the held
// positions.
func (cm *certModel) prepare() {
	k := len(cm.V)
	cm.s, cm.q, cm.g = make([]float64, k*k), make([]float64, k*k), make([]float64, k)
	for i := range k {
		for j := range k {
			a, b, w := 0.0, 0.0, 0.0
			for q, p := range cm.free {
				a += cm.V[i][q] * cm.W[j][p]
				b += cm.V[j][q] * cm.W[i][p]
				w += cm.W[i][p] * cm.W[j][p]
			}
			cm.s[i*k+j] = 0.5 * (a + b)
			cm.q[i*k+j] = w / cm.l2
		}
		cm.s[i*k+i] += certRidge * cm.l2
		for q, p := range cm.free {
			cm.g[i] += cm.r[q] * cm.W[i][p]
		}
		cm.g[i] /= cm.l2
	}
	cm.rr = dot(cm.r, cm.r) / (2 * cm.l2)
	cm.held = cm.held[:0]
	q := 0
	for p := range cm.m {
		if q < len(cm.free) && int(cm.free[q]) == p {
			q++
			continue
		}
		cm.held = append(cm.held, int32(p))
	}
}

// eval returns the model at c, and with grad and hess not nil its gradient
// and (generalized) Hessian.
func (cm *certModel) eval(c, grad, hess []float64) float64 {
	k := len(c)
	val := cm.rr + dot(cm.g, c)
	for i := range k {
		for j := range k {
			val += 0.5 * c[i] * (cm.s[i*k+j] + cm.q[i*k+j]) * c[j]
		}
	}
	if grad != nil {
		for i := range k {
			grad[i] = cm.g[i] + dot(cm.s[i*k:(i+1)*k], c) + dot(cm.q[i*k:(i+1)*k], c)
			for j := range k {
				hess[i*k+j] = cm.s[i*k+j] + cm.q[i*k+j]
			}
		}
	}
	for _, p := range cm.held {
		wc := 0.0
		for i, ci := range c {
			wc += ci * cm.W[i][p]
		}
		mm := cm.m[p] - wc
		a := math.Abs(mm) - cm.l1
		if a <= 0 {
			continue
		}
		e := -math.Copysign(a, mm) // the residual of the term, its derivative in Wc is -+1
		val += e * e / (2 * cm.l2)
		if grad != nil {
			for i := range k {
				wi := cm.W[i][p]
				grad[i] += e * wi / cm.l2
				for j := range k {
					hess[i*k+j] += wi * cm.W[j][p] / cm.l2
				}
			}
		}
	}
	return val
}

// minimizeTol is the relative model decrease, predicted by the Newton
// step (its decrement -grad.step), below which minimize stops.
const minimizeTol = 1e-12

// minimize returns the c of smallest model value found from c0 (len(V)
// coefficients, which it takes over) by semismooth Newton steps with
// backtracking, and that value; it stops when a step would not lower the
// value by more than minimizeTol of it, or finds no lower value.
func (cm *certModel) minimize(c0 []float64) ([]float64, float64) {
	cm.prepare()
	k := len(cm.V)
	c := c0
	grad, hess := make([]float64, k), make([]float64, k*k)
	val := cm.eval(c, grad, hess)
	for range 30 {
		step := gaussSolve(hess, scaled(grad, -1), k)
		if -dot(grad, step) <= minimizeTol*math.Abs(val) {
			break // the Newton step would gain nothing above rounding
		}
		t, improved := 1.0, false
		for range 30 {
			trial := append([]float64(nil), c...)
			axpy(trial, step, t)
			if v := cm.eval(trial, nil, nil); v < val {
				c, val, improved = trial, v, true
				break
			}
			t /= 2
		}
		if !improved || dot(grad, grad) == 0 {
			break
		}
		val = cm.eval(c, grad, hess)
	}
	return c, val
}

func scaled(x []float64, a float64) []float64 {
	y := append([]float64(nil), x...)
	scale(y, a)
	return y
}

// sub returns the quadratic model's suboptimality of X over the basis,
// b.(S + l2 I)^-1 b/2 with b = V'r (S without the ridge; prepare has
// run): the decrease of the smooth model of P on F over span V, which the
// CG/Lanczos iterations estimate from below as the basis grows (it leaves
// out the rest of the active set and the orthants).
func (cm *certModel) sub() float64 {
	k := len(cm.V)
	a, b := slices.Clone(cm.s), make([]float64, k)
	for i := range k {
		b[i] = dot(cm.V[i], cm.r)
		a[i*k+i] += (1 - certRidge) * cm.l2
	}
	return 0.5 * dot(gaussSolve(a, slices.Clone(b), k), b)
}
