package train

import (
	"context"
	"fmt"
	"math"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/screen"
	"github.com/sparsetag/sparsetag/sparse"
	"github.com/sparsetag/sparsetag/train/objective"
)

// The schedule of the setup. Three pieces of it read the options, the
// layout and the corpus only: the beta_max pass (the objective at w = 0),
// the Pinsker constants (Rnorm) and the static range rule's bounds. The
// warm start needs the last two (it keeps the features they screen at
// zero) and, in the paper form, beta_max (the penalty is a fraction of
// it); in the sum form beta_max is only reported. So:
//
//   - 1 thread: beta_max, Rnorm, the range rule, the warm start, one after
//     the other;
//   - several threads, the sum form, one solve from the warm start
//     (Train's default): Rnorm beside the range rule (itself on Threads-1
//     goroutines over the attributes), then the beta_max
//     pass on a second objective of Threads-1 goroutines beside the warm
//     start (one goroutine), joined when the warm start ends
//     (laterBetaMax.join);
//   - several threads otherwise: Rnorm and the range rule (one goroutine)
//     beside the beta_max pass.
//
// Every piece computes what it computes alone (the pass's 64 fixed
// shards are reduced in order whatever the goroutines), so the schedule
// changes no bit of the model.

// prepare fixes the feature set and computes beta_max and the screening
// constants, or starts the beta_max pass in the background when single
// (one solve follows) and the schedule above allows.
func (tr *trainer) prepare(ctx context.Context, single bool) error {
	op, fs := tr.op, tr.fs
	fs.SetAll(tr.obj.ModelFeatures(op.ObservedPairs))
	if (op.Screen == ScreenPaper || op.Screen == ScreenBoth) && tr.c.MaxLen() > 1 {
		return fmt.Errorf("train: screening rule %q needs T = 1 (enumerable label space); use %q on chains", op.Screen, ScreenPinsker)
	}
	if op.Screen == ScreenNone {
		return tr.computeBetaMax(ctx)
	}
	var err error
	switch {
	case op.Threads <= 1:
		if err = tr.computeBetaMax(ctx); err == nil {
			tr.rnorm, tr.static, err = screenConstants(tr.m, tr.c, op.Weights, 0)
		}
	case single && op.SumForm && op.WarmEpochs > 0 && op.Init == nil && op.Resume == nil:
		if tr.rnorm, tr.static, err = screenConstants(tr.m, tr.c, op.Weights, op.Threads-1); err == nil {
			tr.later = startBetaMax(ctx, tr.m, tr.c, op)
		}
	default:
		done := make(chan error, 1)
		go func() {
			var err error
			tr.rnorm, tr.static, err = screenConstants(tr.m, tr.c, op.Weights, 0)
			done <- err
		}()
		err = tr.computeBetaMax(ctx)
		if serr := <-done; err == nil {
			err = serr
		}
	}
	if err != nil {
		return err
	}
	tr.rnormMin = math.Inf(1)
	for j := range fs.All {
		tr.rnormMin = math.Min(tr.rnormMin, tr.rnorm.at(j))
	}
	return nil
}

// screenConstants returns the Pinsker constants of every feature of m
// and the static range rule's bounds (it reads the layout and the corpus
// only). With threads >= 1 the range rule runs beside Rnorm (on this
// goroutine), on threads goroutines (screen.WeightedRangeBoundsThreads,
// the same bits); with threads 0 after it. Split, the rule costs 1.37x its
// serial CPU (every goroutine reads the whole matrix; docs/setup.md), so
// at --threads 2 it stays on one goroutine beside Rnorm, which balances
// the two cores already.
func screenConstants(m *chain.Model, c *sparse.Corpus, weights []float64, threads int) (*rnormTable, []float64, error) {
	var static []float64
	var serr error
	done := make(chan struct{})
	rangeRule := func() {
		static, serr = screen.WeightedRangeBoundsThreads(nil, m.Layout, c, weights, max(threads, 1))
		close(done)
	}
	if threads >= 1 {
		go rangeRule()
	}
	r, err := featureRnorm(m, c, weights)
	if threads < 1 {
		rangeRule()
	}
	<-done
	if err == nil {
		err = serr
	}
	if err != nil {
		return nil, nil, err
	}
	t := newRnormTable(r, m.NumLabels(), m.Layout.NumUnary)
	unscreenBlocks(t, static, c)
	return t, static, nil
}

// laterBetaMax is a beta_max pass running in the background: its result
// (betaMax and err, valid once joined).
type laterBetaMax struct {
	done    chan error
	betaMax float64
	joined  bool
	err     error
}

// startBetaMax starts the sum form's beta_max pass (computeBetaMax) on a
// second objective of the same problem with op.Threads-1 goroutines; the
// trainer's objective stays free for the solve.
func startBetaMax(ctx context.Context, m *chain.Model, c *sparse.Corpus, op Options) *laterBetaMax {
	l := &laterBetaMax{done: make(chan error, 1)}
	go func() {
		obj := objective.New(m, c, objective.Settings{Threads: op.Threads - 1, FusedBudget: op.tuned().fusedBudget})
		err := configure(obj, op)
		if err == nil {
			fs := obj.Features()
			fs.SetAll(obj.ModelFeatures(op.ObservedPairs))
			obj.SetActive(nil, false)
			if _, _, err = obj.Loss(ctx, nil); err == nil {
				l.betaMax = obj.MaxAbsResidual(fs.All)
			}
		}
		l.done <- err
	}()
	return l
}

// join waits for the background beta_max pass, if one runs (l may be nil),
// sets *betaMax to its result and returns its error; later calls return
// the same error.
func (l *laterBetaMax) join(betaMax *float64) error {
	if l == nil {
		return nil
	}
	if !l.joined {
		l.joined = true
		if err := <-l.done; err != nil {
			l.err = fmt.Errorf("train: beta_max: %w", err)
		} else {
			*betaMax = l.betaMax
		}
	}
	return l.err
}
