package train

import (
	"context"
	"fmt"
	"iter"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/screen"
	"github.com/sparsetag/sparsetag/sparse"
	"github.com/sparsetag/sparsetag/train/objective"
)

// The schedule of the setup. Three pieces of it read the options, the
// layout and the corpus only: beta_max (m at w = 0), the Pinsker constants
// (Rnorm) and the static range rule's bounds. The warm start needs the
// last two (it keeps the features they screen at zero) and, in the paper
// form, beta_max (the penalty is a fraction of it); in the sum form
// beta_max is only reported.
//
// In the sum form with no prior and no partial labels beta_max comes from
// counts (objective.UniformBetaMax: the model at w = 0 is uniform), in
// O(nnz) and without forward-backward; it agrees with the pass to
// rounding, and the sum form's penalty does not depend on it, so no model
// changes. Elsewhere (the paper form and paths, whose penalties are
// fractions of beta_max and keep the pass's bits; a prior; partial labels)
// it takes one pass at w = 0. So:
//
//   - beta_max from counts: then Rnorm beside the range rule (itself on
//     Threads-1 goroutines over the attributes; at 1 thread after Rnorm);
//   - the pass on 1 thread: the pass, Rnorm, the range rule;
//   - the pass on several threads: Rnorm and the range rule (one
//     goroutine) beside the pass.
//
// Every piece computes what it computes alone (the pass's 64 fixed
// shards are reduced in order whatever the goroutines), so the schedule
// changes no bit of the model.

// prepare fixes the feature set and computes beta_max and the screening
// constants.
func (tr *trainer) prepare(ctx context.Context) error {
	op, fs := tr.op, tr.fs
	fs.SetModel(op.ObservedPairs)
	if (op.Screen == ScreenPaper || op.Screen == ScreenBoth) && tr.c.MaxLen() > 1 {
		return fmt.Errorf("train: screening rule %q needs T = 1 (enumerable label space); use %q on chains", op.Screen, ScreenPinsker)
	}
	b, counted := countedBetaMax(tr.obj, op)
	if counted {
		tr.betaMax = b
	}
	if op.Screen == ScreenNone {
		if counted {
			return nil
		}
		return tr.computeBetaMax(ctx)
	}
	var err error
	switch {
	case counted:
		tr.rnorm, tr.static, err = screenConstants(tr.m, tr.c, op.Weights, goldCounts(tr.obj, tr.c, op.Weights), op.Threads-1)
	case op.Threads <= 1:
		if err = tr.computeBetaMax(ctx); err == nil {
			tr.rnorm, tr.static, err = screenConstants(tr.m, tr.c, op.Weights, goldCounts(tr.obj, tr.c, op.Weights), 0)
		}
	default:
		done := make(chan error, 1)
		go func() {
			var err error
			tr.rnorm, tr.static, err = screenConstants(tr.m, tr.c, op.Weights, goldCounts(tr.obj, tr.c, op.Weights), 0)
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
	tr.rnormMin = tr.rnorm.min(fs)
	return nil
}

// goldCounts returns obj's gold state counts where the static
// range rule can take its state block from them
// (screen.CountedRangeBounds: a binary corpus c without dense blocks,
// unit weights, no partial labels), else nil.
func goldCounts(obj *objective.Objective, c *sparse.Corpus, weights []float64) iter.Seq2[int32, float64] {
	if weights != nil || c.Unary.Val != nil || c.HasDense() {
		return nil
	}
	gold, ok := objective.GoldStateCounts(obj)
	if !ok {
		return nil
	}
	return gold
}

// screenConstants returns the Pinsker constants of every feature of m
// (one per attribute for the state block, never the model's size) and the
// static range rule's bounds (it reads the layout and the corpus only;
// with gold, the objective's gold state counts, its state block comes
// from them, screen.CountedRangeBounds: the same bits without a scan of
// the corpus). With threads >= 1 the range rule runs beside Rnorm (on
// this goroutine), on threads goroutines (screen.WeightedRangeBoundsThreads,
// the same bits); with threads 0 after it. Split, the rule costs 1.37x its
// serial CPU (every goroutine reads the whole matrix; docs/setup.md), so
// at --threads 2 it stays on one goroutine beside Rnorm, which balances
// the two cores already.
func screenConstants(m *chain.Model, c *sparse.Corpus, weights []float64, gold iter.Seq2[int32, float64], threads int) (*rnormTable, []float64, error) {
	var static []float64
	var serr error
	done := make(chan struct{})
	rangeRule := func() {
		if gold != nil {
			static, serr = screen.CountedRangeBounds(nil, m.Layout, c, gold)
		} else {
			static, serr = screen.WeightedRangeBoundsThreads(nil, m.Layout, c, weights, max(threads, 1))
		}
		close(done)
	}
	if threads >= 1 {
		go rangeRule()
	}
	state, tail, err := screen.WeightedRnormParts(m.Layout, c, weights)
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
	t := &rnormTable{L: m.NumLabels(), stateLen: m.Layout.StateLen(), attr: state, full: tail}
	unscreenBlocks(t, static, c)
	return t, static, nil
}
