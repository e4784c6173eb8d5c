package online

import (
	"math"
)

// ap is CRFsuite's averaged perceptron (train_averaged_perceptron.c).
// Update number c (c = 1, 2, ... over every sequence of every epoch)
// visits sequence i of weight s; when its Viterbi path y^ differs from the
// gold path y in d > 0 positions,
//
//	w  += s (F(x, y) - F(x, y^))
//	ws += c s (F(x, y) - F(x, y^))
//
// where F counts the features of the feature set on a path (times the
// attributes' values); then c grows by 1. After each epoch the averaged
// weights are wa = w - ws / c. The loss of an epoch is sum s d / T, and the
// run stops when loss / n < epsilon.
func (r *run) ap() error {
	k := r.f.size()
	w, ws := make([]float64, k), make([]float64, k)
	n := len(r.order)
	c := 1.0
	for e := 1; e <= r.p.MaxIterations; e++ {
		r.shuffle()
		loss, updates := 0.0, 0
		for q, i32 := range r.order {
			if stop, err := r.stop(q); stop {
				return err
			}
			i := int(i32)
			_, T := r.c.Span(i)
			r.sc.viterbi(w, 1, i)
			if d := diff(r.sc.gold[:T], r.sc.path[:T]); d > 0 {
				s := r.weight(i)
				cs := c * s
				js, vs := r.sc.onPath(i, r.sc.gold)
				addPath(w, ws, s, cs, js, vs)
				js, vs = r.sc.onPath(i, r.sc.path)
				addPath(w, ws, -s, -cs, js, vs)
				loss += float64(d) / float64(T) * s
				updates++
			}
			c++
		}
		average(r.out, w, ws, 1/c)
		r.res.Loss = loss
		r.finish(Epoch{Epoch: e, Loss: loss, Norm: math.Sqrt(norm2(r.out)), Updates: updates}, r.out, 1)
		if loss/float64(n) < r.p.Epsilon {
			r.res.Converged = true
			break
		}
	}
	return nil
}

// addPath adds s v to w[j] and cs v to ws[j] for the features j of a
// path with values v.
func addPath(w, ws []float64, s, cs float64, js []int32, vs []float64) {
	vs = vs[:len(js)]
	for k, j := range js {
		v := vs[k]
		w[j] += s * v
		ws[j] += cs * v
	}
}

// average sets out = w - a ws (CRFsuite's veccopy then vecasub).
func average(out, w, ws []float64, a float64) {
	for j := range out {
		out[j] = w[j] - a*ws[j]
	}
}
