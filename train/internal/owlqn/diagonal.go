package owlqn

import (
	"errors"
	"math"
)

// SetDiagonal makes the next iters iterations start from the diagonal
// initial inverse Hessian H0 = γ diag(h) instead of γ I, h_j > 0: with an
// empty memory the direction is -diag(h) ◇F and its first trial step is
// step0 (instead of 1/||◇F||), and with pairs γ = s·y / (y·diag(h) y) of
// the newest pair (the scalar scaling of [2, p. 515] in the metric of
// diag(h)). It stands in for the curvature an empty memory lacks: a
// problem whose coordinates differ in curvature by orders of magnitude
// (rare and frequent features) takes steps of the right size per
// coordinate from the first iteration. After iters accepted iterations
// the scaling is γ I again, with the pairs gathered meanwhile. The
// recursion runs serially (h is not split into the threads' chunks), so
// the iterates stay independent of Settings.Threads. It returns an error
// unless h has the optimizer's dimension and finite elements above 0 and
// step0 is finite and above 0.
func (o *Optimizer) SetDiagonal(h []float64, iters int, step0 float64) error {
	if len(h) != len(o.x) {
		return errors.New("owlqn: diagonal and point lengths differ")
	}
	for _, v := range h {
		if !(v > 0) || math.IsInf(v, 1) {
			return errors.New("owlqn: diagonal element not finite and above 0")
		}
	}
	if !(step0 > 0) || math.IsInf(step0, 1) {
		return errors.New("owlqn: first step not finite and above 0")
	}
	o.diag = diagStart{h: h, iters: iters, step0: step0}
	if iters <= 0 {
		o.diag = diagStart{}
	}
	return nil
}

// diagStart is the state of SetDiagonal: the diagonal, the iterations
// left, and the first step with an empty memory.
type diagStart struct {
	h     []float64
	iters int
	step0 float64
}

// accepted counts an accepted iteration and drops the diagonal after the
// last one.
func (d *diagStart) accepted() {
	if d.h == nil {
		return
	}
	if d.iters--; d.iters <= 0 {
		*d = diagStart{}
	}
}

// twoLoopDiag is twoLoop with the initial inverse Hessian γ diag(h) (γ = 1
// with an empty memory): d = -H q. Serial.
func twoLoopDiag(d, q []float64, m *memory, h []float64) {
	copy(d, q)
	for i := m.count - 1; i >= 0; i-- {
		k := m.slot(i)
		a := m.rho[k] * dotSerial(m.s[k], d)
		m.alpha[i] = a
		axpySerial(d, -a, m.y[k])
	}
	gamma := 1.0
	if m.count > 0 {
		y := m.y[m.slot(m.count-1)]
		yhy := 0.0
		for j, v := range y {
			yhy += v * v * h[j]
		}
		gamma = 1 / (m.rho[m.slot(m.count-1)] * yhy)
	}
	for j := range d {
		d[j] *= gamma * h[j]
	}
	for i := range m.count {
		k := m.slot(i)
		b := m.rho[k] * dotSerial(m.y[k], d)
		axpySerial(d, m.alpha[i]-b, m.s[k])
	}
	for j := range d {
		d[j] = -d[j]
	}
}

// axpySerial sets y += a x.
func axpySerial(y []float64, a float64, x []float64) {
	for j, v := range x {
		y[j] += a * v
	}
}
