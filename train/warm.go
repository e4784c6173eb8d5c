package train

import (
	"github.com/sparsetag/sparsetag/train/warmstart"
)

// WarmStart describes the stochastic warm start of a run
// (Options.WarmEpochs; package warmstart).
type WarmStart = warmstart.Info

// DefaultWarmEpochs is the default number of epochs of the stochastic warm
// start (Options.WarmEpochs). Three since the epochs got cheaper (0.36 s on
// CoNLL-2000, 0.16 s on the Spanish NER data, 1 thread) and the first
// working-set solve starts from a diagonal curvature estimate: the solver
// then takes 53 iterations to a certified 0.1% on CoNLL-2000 (55 from two
// epochs), 49 on CoNLL-2002 Spanish NER (59), 184 on the OCR words (219)
// and 84 for pure L2 on CoNLL-2000 (92); docs/setup.md, round six. (Two
// epochs, when they cost 0.45 s each, cut CoNLL-2000's iterations from 258
// to 71 against a cold start; docs/stopping-rule.md.)
const DefaultWarmEpochs = 3

// closed reports whether ch is closed (nil: never).
func closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
