package dataset

import (
	"fmt"
	"runtime"
	"sync"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/features"
)

// forEach runs f(i) for every i in [0, n) on at most workers goroutines
// (workers <= 0: GOMAXPROCS), each taking a fixed stride of the indices, and
// returns the error of the lowest index that failed.
func forEach(n, workers int, f func(w, i int) error) error {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += workers {
				errs[i] = f(w, i)
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// TagAll tags every example with tg's Viterbi path on at most workers
// goroutines (0: GOMAXPROCS) and returns the predicted label names in input
// order. The model must have an encoder whose kind fits the examples.
func TagAll(tg *chain.Tagger, exs []Example, workers int) ([][]string, error) {
	enc := tg.Model().Encoder
	if enc == nil {
		return nil, chain.ErrNoEncoder
	}
	out := make([][]string, len(exs))
	paths := make([][]int, max(workers, runtime.GOMAXPROCS(0)))
	err := forEach(len(exs), workers, func(w, i int) error {
		ex := &exs[i]
		var err error
		switch enc.Kind() {
		case features.KindTemplate:
			paths[w], err = tg.Tag(paths[w], ex.Tokens)
		case features.KindAttributes:
			paths[w], err = tg.TagAttributes(paths[w], ex.Names, ex.Values)
		case features.KindPixels:
			paths[w], err = tg.TagPixels(paths[w], ex.Pixels)
		default:
			err = fmt.Errorf("encoder kind %v cannot tag this input", enc.Kind())
		}
		if err != nil {
			return fmt.Errorf("sequence %d: %w", i+1, err)
		}
		out[i] = tg.Labels(nil, paths[w])
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// DecodeAll decodes every example with opt (n-best, posteriors,
// constraints) on at most workers goroutines (0: GOMAXPROCS); results are in
// input order. fixed, when not nil, holds the fixed labels of each example
// (see FixedLabels) and overrides opt.Fixed.
func DecodeAll(tg *chain.Tagger, exs []Example, opt chain.DecodeOptions, fixed [][]int, workers int) ([]chain.Decoding, error) {
	enc := tg.Model().Encoder
	if enc == nil {
		return nil, chain.ErrNoEncoder
	}
	out := make([]chain.Decoding, len(exs))
	err := forEach(len(exs), workers, func(_, i int) error {
		ex := &exs[i]
		o := opt
		if fixed != nil {
			o.Fixed = fixed[i]
		}
		var err error
		switch enc.Kind() {
		case features.KindTemplate:
			err = tg.Decode(&out[i], ex.Tokens, o)
		case features.KindAttributes:
			err = tg.DecodeAttributes(&out[i], ex.Names, ex.Values, o)
		case features.KindPixels:
			err = tg.DecodePixels(&out[i], ex.Pixels, o)
		default:
			err = fmt.Errorf("encoder kind %v cannot decode this input", enc.Kind())
		}
		if err != nil {
			return fmt.Errorf("sequence %d: %w", i+1, err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Evaluate tags labeled examples (TagAll) and compares the predictions with
// their labels: token accuracy and, for chunk labels, conlleval-style chunk
// scores.
func Evaluate(tg *chain.Tagger, exs []Example, workers int) (*chain.Evaluation, error) {
	pred, err := TagAll(tg, exs, workers)
	if err != nil {
		return nil, err
	}
	ev := chain.NewEvaluation()
	for i := range exs {
		if err := ev.Add(exs[i].Labels, pred[i]); err != nil {
			return nil, fmt.Errorf("%s: sequence %d: %w", exs[i].where(), i+1, err)
		}
	}
	return ev, nil
}
