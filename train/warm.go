package train

import (
	"context"

	"github.com/sparsetag/sparsetag/sparse"
	"github.com/sparsetag/sparsetag/train/warmstart"
)

// WarmStart describes the stochastic warm start of a run
// (Options.WarmEpochs; package warmstart).
type WarmStart = warmstart.Info

// DefaultWarmEpochs is the default number of epochs of the stochastic warm
// start (Options.WarmEpochs). On CoNLL-2000 (c1 = c2 = 1) two epochs cut
// the OWL-QN iterations to a certified 0.1% from 280 to 75, and on the OCR
// words (beta_max/100, gap 1e-6) from 366 to 159; a third epoch saves
// fewer iterations than it costs.
const DefaultWarmEpochs = 2

// warmStart runs the stochastic warm start of Options.WarmEpochs at the
// penalty of the solve (setPenalty, which has screened the features that
// are zero whatever the data's dual point; free are the others, the
// unscreened features) and returns its point and what it did (a discarded
// point is empty). onEpoch, when not nil, is called after every epoch
// (tests).
func (tr *trainer) warmStart(ctx context.Context, free []int32, onEpoch func(warmstart.Point)) (sparsePoint, *WarmStart, error) {
	p := warmstart.Problem{Model: tr.m, Corpus: tr.c, L1: tr.pen.l1, L2: tr.pen.l2, Frozen: tr.frozenFeatures(), Free: free}
	w, info, err := warmstart.Run(ctx, p, warmstart.Settings{Epochs: tr.op.WarmEpochs, Interrupt: tr.op.Interrupt, OnEpoch: onEpoch})
	return sparsePoint{idx: w.Idx, val: w.Val}, info, err
}

// frozenFeatures returns the features the warm start keeps at zero (nil:
// none): those outside the model's feature set and those setPenalty
// screened (Rnorm 0, and the static range rule's).
func (tr *trainer) frozenFeatures() sparse.Bitset {
	d := len(tr.m.W)
	if tr.fs.Size() == d && tr.fs.Screened() == 0 {
		return nil
	}
	frozen := sparse.NewBitset(d)
	for j := 0; j < d; j++ {
		if !tr.fs.InSet(int32(j)) || tr.fs.IsScreened(int32(j)) {
			frozen.Set(j)
		}
	}
	return frozen
}

// closed reports whether ch is closed (nil: never).
func closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
