package online

import (
	"math"

	"github.com/sparsetag/sparsetag/inference"
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
	c := 1.0
	step := func(i, T int, _ *inference.Lattice, _ float64, d int) (loss float64, updated bool) {
		if d > 0 {
			s := r.weight(i)
			cs := c * s
			js, vs := r.sc.goldPath(i)
			addPath(w, ws, s, cs, js, vs)
			js, vs = r.sc.onPath(i, r.sc.path)
			addPath(w, ws, -s, -cs, js, vs)
			loss, updated = float64(d)/float64(T)*s, true
		}
		c++
		return loss, updated
	}
	model := func() ([]float64, float64) {
		average(r.out, w, ws, 1/c)
		return r.out, math.Sqrt(norm2(r.out))
	}
	return r.mistakeEpochs(w, step, model, func(mean float64) bool { return mean < r.p.Epsilon })
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
