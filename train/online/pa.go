package online

import (
	"math"

	"github.com/sparsetag/sparsetag/inference"
)

// pa is CRFsuite's passive-aggressive trainer (train_passive_aggressive.c;
// Crammer et al., "Online passive-aggressive algorithms", JMLR 2006).
// Update number u visits sequence i of weight s; when its Viterbi path y^
// (score sv) differs from the gold path y (score sc) in d > 0 positions,
// with delta = F(x, y) - F(x, y^) and the cost
//
//	cost = sv - sc + sqrt(d)   (error_sensitive = 1)   or   sv - sc + 1   (0),
//
// the step is tau = cost / ||delta||^2 (type 0), min(c, cost / ||delta||^2)
// (type 1) or cost / (||delta||^2 + 1 / (2c)) (type 2), and
//
//	w  += tau s delta,    ws += tau s u delta;
//
// then u grows by 1. The model is w - ws / u after each epoch (averaging =
// 1) or w. The loss of an epoch is sum s cost; the run stops when loss / n
// < epsilon. Where CRFsuite would divide by ||delta||^2 = 0 (the two paths
// have the same features) and make every weight NaN, this skips the
// update.
func (r *run) pa() error {
	k := r.f.size()
	w, ws := make([]float64, k), make([]float64, k)
	dc := newDelta(k)
	u := 1.0
	step := func(i, T int, lat *inference.Lattice, sv float64, d int) (loss float64, updated bool) {
		if d > 0 {
			sc := inference.Score(lat, r.sc.gold)
			cost := paCost(sv-sc, d, r.p.ErrorSensitive)
			dc.reset()
			js, vs := r.sc.goldPath(i)
			dc.add(1, js, vs)
			js, vs = r.sc.onPath(i, r.sc.path)
			dc.add(-1, js, vs)
			if nn := dc.norm2(); nn > 0 {
				s := r.weight(i)
				tau := paTau(r.p.Type, cost, nn, r.p.C) * s
				tauu := tau * u
				for _, j := range dc.actives {
					w[j] += tau * dc.d[j]
					ws[j] += tauu * dc.d[j]
				}
				loss, updated = cost*s, true
			}
		}
		u++
		return loss, updated
	}
	model := func() ([]float64, float64) {
		if r.p.Averaging {
			average(r.out, w, ws, 1/u)
		} else {
			copy(r.out, w)
		}
		return r.out, math.Sqrt(norm2(w))
	}
	return r.mistakeEpochs(w, step, model, func(mean float64) bool { return mean < r.p.Epsilon })
}

// paCost is CRFsuite's cost_sensitive / cost_insensitive of a margin
// error err with d wrong labels.
func paCost(err float64, d int, sensitive bool) float64 {
	if sensitive {
		return err + math.Sqrt(float64(d))
	}
	return err + 1
}

// paTau is CRFsuite's tau0, tau1, tau2.
func paTau(typ int, cost, norm, c float64) float64 {
	switch typ {
	case 1:
		return min(c, cost/norm)
	case 2:
		return cost / (norm + 0.5/c)
	}
	return cost / norm
}
