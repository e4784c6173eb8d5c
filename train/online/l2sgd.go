package online

import (
	"math"

	"github.com/sparsetag/sparsetag/inference"
)

// l2sgd is CRFsuite's SGD with L2 regularization (train_l2sgd.c, after
// Bottou's sgd and Shalev-Shwartz et al.'s Pegasos): it minimizes
//
//	sum_i s_i NLL_i(w) + c2 ||w||^2
//
// with lambda = 2 c2 / n. Step t (over every sequence of every epoch)
// visits sequence i of weight s with
//
//	eta = 1 / (lambda (t0 + t)),  decay *= 1 - eta lambda,  gain = eta / decay,
//
// scores the sequence at w = decay v and sets v += gain s (F(x, y) -
// E[F(x, Y)]); after each epoch v is scaled by decay (decay = 1 again).
// The objective of an epoch is the sum of s NLL_i at the points visited
// plus lambda/2 ||w||^2 n; the run keeps the weights of the best epoch and
// stops when the objective improved by less than delta (relative) over
// the last period epochs.
//
// t0 = 1 / (lambda eta0), eta0 calibrated on the first
// calibration.samples sequences of the first permutation (l2sgd_calibration):
// one epoch from zero per candidate, candidates going up by
// calibration.rate while they improve on the objective at zero (until
// calibration.candidates did), then down from calibration.eta / rate; the
// best objective wins.
func (r *run) l2sgd() error {
	n := len(r.order)
	lambda := 2 * r.p.C2 / float64(n)
	w := make([]float64, r.f.size())
	t0, err := r.calibrate(w, lambda)
	if err != nil {
		return err
	}
	r.res.Eta0 = 1 / (lambda * t0)
	period := r.p.Period
	pf := make([]float64, period)
	best := math.MaxFloat64
	t := 0.0
	clear(w)
	for e := 1; e <= r.p.MaxIterations; e++ {
		r.shuffle()
		sum, eta, stopped, err := r.sgdEpoch(w, r.order, t0, lambda, &t, true)
		if stopped || err != nil {
			return err
		}
		nn := norm2(w)
		sum += 0.5 * lambda * nn * float64(n)
		if sum < best {
			best = sum
			copy(r.out, w)
			r.res.Loss = sum
		}
		improve := r.p.Delta
		if period < e {
			improve = (pf[(e-1)%period] - sum) / sum
		}
		pf[(e-1)%period] = sum
		ep := Epoch{Epoch: e, Loss: sum, Norm: math.Sqrt(nn), Eta: eta, Updates: n}
		if period < e {
			ep.Improve = improve
		}
		r.finish(ep, w, 1)
		if improve < r.p.Delta {
			r.res.Converged = true
			break
		}
	}
	return nil
}

// sgdEpoch runs one epoch of l2sgd over order from the step count *t (it
// advances *t) and leaves w scaled (decay folded in). It returns the sum
// of the weighted losses and the last learning rate; stopped when
// interrupted (check) or ctx is cancelled (err); ErrOverflow when the last
// loss is not finite.
func (r *run) sgdEpoch(w []float64, order []int32, t0, lambda float64, t *float64, check bool) (sum, eta float64, stopped bool, err error) {
	decay := 1.0
	loss := 0.0
	for q, i32 := range order {
		if check {
			if stop, err := r.stop(q); stop {
				return 0, 0, true, err
			}
		}
		i := int(i32)
		eta = 1 / (lambda * (t0 + *t))
		decay *= 1.0 - eta*lambda
		gain := eta / decay
		s := r.weight(i)
		lat := r.sc.score(w, decay, i)
		logZ := inference.ForwardBackward(r.sc.ws, lat)
		loss = (logZ - inference.Score(lat, r.sc.gold)) * s
		g := gain * s
		js, vs := r.sc.goldPath(i)
		vs = vs[:len(js)]
		for k, j := range js {
			w[j] += vs[k] * g
		}
		r.sc.expect(w, -g, i, lat)
		sum += loss
		*t++
	}
	if !finite(loss) {
		return loss, eta, false, ErrOverflow
	}
	for j := range w {
		w[j] *= decay
	}
	return sum, eta, false, nil
}

// calibrate returns t0 = 1 / (lambda eta0) with eta0 calibrated as
// CRFsuite's l2sgd_calibration does (see l2sgd); w is scratch.
func (r *run) calibrate(w []float64, lambda float64) (float64, error) {
	p := r.p
	r.shuffle()
	S := min(len(r.order), p.CalibrationSamples)
	sample := r.order[:S]
	clear(w)
	initLoss := 0.0
	for _, i32 := range sample {
		i := int(i32)
		lat := r.sc.score(w, 1, i)
		initLoss += inference.ForwardBackward(r.sc.ws, lat) - inference.Score(lat, r.sc.gold)
	}
	num, dec, trials := p.CalibrationCandidates, false, 1
	eta, bestEta, bestLoss := p.CalibrationEta, p.CalibrationEta, math.MaxFloat64
	for num > 0 || !dec {
		if err := r.ctx.Err(); err != nil {
			return 0, err
		}
		clear(w)
		t := 0.0
		loss, _, _, err := r.sgdEpoch(w, sample, 1/(lambda*eta), lambda, &t, false)
		if err == nil {
			loss += 0.5 * lambda * norm2(w) * float64(S)
		}
		ok := finite(loss) && loss < initLoss
		if ok {
			num--
		}
		if finite(loss) && loss < bestLoss {
			bestLoss, bestEta = loss, eta
		}
		if !dec {
			if ok && num > 0 {
				eta *= p.CalibrationRate
			} else {
				dec, num, eta = true, p.CalibrationCandidates, p.CalibrationEta/p.CalibrationRate
			}
		} else {
			eta /= p.CalibrationRate
		}
		trials++
		if p.CalibrationMaxTrials <= trials {
			break
		}
	}
	r.res.Trials = trials - 1
	return 1 / (lambda * bestEta), nil
}
