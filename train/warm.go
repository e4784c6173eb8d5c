package train

import (
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

// closed reports whether ch is closed (nil: never).
func closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
