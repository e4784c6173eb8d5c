package main

import (
	"context"
	"time"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/dataset"
	"github.com/sparsetag/sparsetag/sparse"
	"github.com/sparsetag/sparsetag/train/online"
)

// fitOnline trains m on c with one of CRFsuite's online algorithms
// (package train/online), each sequence weighted by weights (nil: 1),
// logging as CRFsuite's train_*.c do: a header with the parameters, one
// block per epoch (the holdout evaluation of hold inside it), the
// stopping message.
func (j *job) fitOnline(alg string, p params, m *chain.Model, c *sparse.Corpus, weights []float64, hold []dataset.Example, t0 time.Time) (outcome, error) {
	op, err := onlineParams(alg, p)
	if err != nil {
		return outcome{}, err
	}
	j.onlineHeader(op)
	b := &blocks{j: j}
	st := online.Settings{Seed: uint64(p.ints["seed"]), Interrupt: j.intr, Progress: epochLog(b, op.Algorithm)}
	var herr error
	if len(hold) > 0 {
		evaluate, err := j.holdoutScorer(m, hold)
		if err != nil {
			return outcome{}, err
		}
		st.Holdout = func(_ int, w []float64) {
			if herr == nil {
				herr = evaluate(w)
			}
		}
	}
	res, err := online.Train(context.Background(), online.Problem{Model: m, Corpus: c, Weights: weights}, op, st)
	if err == nil {
		err = herr
	}
	if err != nil {
		return outcome{}, err
	}
	b.end()
	j.onlineFooter(op, res, t0)
	stop := "max_iterations"
	switch {
	case res.Interrupted:
		stop = "interrupted"
	case res.Converged:
		stop = "converged"
	}
	j.info["stop_reason"] = stop
	j.info["loss"] = res.Loss
	j.info["features"] = res.Features
	return outcome{iterations: res.Epochs, interrupted: res.Interrupted}, nil
}

// onlineHeader logs the algorithm and its parameters as CRFsuite does.
func (j *job) onlineHeader(op *online.Params) {
	switch op.Algorithm {
	case online.AP:
		j.printf("Averaged perceptron\nmax_iterations: %d\nepsilon: %f\n\n", op.MaxIterations, op.Epsilon)
	case online.PA:
		j.printf("Passive Aggressive\ntype: %d\nc: %f\nerror_sensitive: %d\naveraging: %d\nmax_iterations: %d\nepsilon: %f\n\n",
			op.Type, op.C, b2i(op.ErrorSensitive), b2i(op.Averaging), op.MaxIterations, op.Epsilon)
	case online.AROW:
		j.printf("Adaptive Regularization of Weights (AROW)\nvariance: %f\ngamma: %f\nmax_iterations: %d\nepsilon: %f\n\n",
			op.Variance, op.Gamma, op.MaxIterations, op.Epsilon)
	case online.L2SGD:
		j.printf("Stochastic Gradient Descent (SGD)\nc2: %f\nmax_iterations: %d\nperiod: %d\ndelta: %f\n\n",
			op.C2, op.MaxIterations, op.Period, op.Delta)
		j.printf("Calibrating the learning rate (eta)\ncalibration.eta: %f\ncalibration.rate: %f\ncalibration.samples: %d\ncalibration.candidates: %d\ncalibration.max_trials: %d\n\n",
			op.CalibrationEta, op.CalibrationRate, op.CalibrationSamples, op.CalibrationCandidates, op.CalibrationMaxTrials)
	}
}

// epochLog returns the hook that logs an epoch's block: CRFsuite's
// "Iteration" block for ap, pa and arow, its "Epoch" block for l2sgd
// (the improvement ratio once period epochs have passed).
func epochLog(b *blocks, alg online.Algorithm) func(online.Epoch) {
	var lastSecs float64
	return func(e online.Epoch) {
		if alg == online.L2SGD {
			b.begin("***** Epoch #%d *****\n", e.Epoch)
			b.j.printf("Loss: %f\n", e.Loss)
			if e.Improve != 0 {
				b.j.printf("Improvement ratio: %f\n", e.Improve)
			}
			b.j.printf("Feature L2-norm: %f\n", e.Norm)
			b.j.printf("Learning rate (eta): %f\n", e.Eta)
		} else {
			b.begin("***** Iteration #%d *****\n", e.Epoch)
			b.j.printf("Loss: %f\n", e.Loss)
			b.j.printf("Feature norm: %f\n", e.Norm)
		}
		b.j.printf("Seconds required for this iteration: %.3f\n", e.Seconds-lastSecs)
		lastSecs = e.Seconds
	}
}

// onlineFooter logs how the run ended, as CRFsuite does, and the size of
// the feature set.
func (j *job) onlineFooter(op *online.Params, res *online.Result, t0 time.Time) {
	switch {
	case res.Interrupted:
		j.printf("Interrupted after %d epochs: the model of the last finished epoch is kept\n\n", res.Epochs)
	case op.Algorithm == online.L2SGD && res.Converged:
		j.printf("SGD terminated with the stopping criteria\n")
	case op.Algorithm == online.L2SGD:
		j.printf("SGD terminated with the maximum number of iterations\n")
	case res.Converged:
		j.printf("Terminated with the stopping criterion\n\n")
	}
	if op.Algorithm == online.L2SGD {
		if !res.Interrupted {
			j.printf("Loss: %f\n", res.Loss)
		}
		j.printf("Calibrated learning rate (eta): %f (%d trials)\n", res.Eta0, res.Trials)
	}
	j.printf("Number of features: %d\n", res.Features)
	j.printf("Total seconds required for training: %.3f\n\n", time.Since(t0).Seconds())
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
