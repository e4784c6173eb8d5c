package online

import (
	"math"

	"github.com/sparsetag/sparsetag/inference"
)

// arow is CRFsuite's AROW (train_arow.c; Mejer and Crammer, "Confidence
// in structured-prediction using confidence-weighted models", EMNLP
// 2010): a mean mu and a diagonal covariance Sigma (initially variance).
// For sequence i of weight s whose Viterbi path y^ (score sv) differs from
// the gold path y (score sc) in d > 0 positions, with delta = s (F(x, y) -
// F(x, y^)) and cost = sv - sc + d,
//
//	alpha  = cost / (gamma + sum_k delta_k^2 Sigma_k)
//	mu_k  += alpha Sigma_k delta_k
//	Sigma_k = 1 / (1/Sigma_k + delta_k^2 / gamma)
//
// The model is mu. The loss of an epoch is sum s cost; the run stops when
// loss / n <= epsilon.
func (r *run) arow() error {
	k := r.f.size()
	mean, cov := make([]float64, k), make([]float64, k)
	for j := range cov {
		cov[j] = r.p.Variance
	}
	dc := newDelta(k)
	gamma := r.p.Gamma
	step := func(i, T int, lat *inference.Lattice, sv float64, d int) (float64, bool) {
		if d == 0 {
			return 0, false
		}
		sc := inference.Score(lat, r.sc.gold)
		cost := sv - sc + float64(d)
		s := r.weight(i)
		dc.reset()
		js, vs := r.sc.goldPath(i)
		dc.add(s, js, vs)
		js, vs = r.sc.onPath(i, r.sc.path)
		dc.add(-s, js, vs)
		frac := gamma
		for _, j := range dc.actives {
			frac += dc.d[j] * dc.d[j] * cov[j]
		}
		alpha := cost / frac
		for _, j := range dc.actives {
			dj := dc.d[j]
			mean[j] += alpha * cov[j] * dj
			cov[j] = 1.0 / ((1.0 / cov[j]) + dj*dj/gamma)
		}
		return cost * s, true
	}
	model := func() ([]float64, float64) {
		copy(r.out, mean)
		return r.out, math.Sqrt(norm2(mean))
	}
	return r.mistakeEpochs(mean, step, model, func(m float64) bool { return m <= r.p.Epsilon })
}
