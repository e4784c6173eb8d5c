package dataset

import (
	"fmt"
	"runtime"
	"strings"
	"sync"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/eval"
)

// forEach runs f(w, i) for every i in [0, n) on at most workers goroutines
// (workers <= 0: GOMAXPROCS), worker w taking a fixed stride of the indices,
// and returns the error of the lowest index that failed.
func forEach(n, workers int, f func(w, i int) error) error {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, n)
	if workers == 1 {
		for i := range n {
			if err := f(0, i); err != nil {
				return err
			}
		}
		return nil
	}
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

// TagAll tags every example held in memory with tg's Viterbi path on at
// most threads goroutines (0: GOMAXPROCS) and returns the predicted label
// names in input order. The model must have an encoder whose kind fits the
// examples. tagging.Stream streams a Reader's examples through any model
// instead.
func TagAll(tg *chain.Tagger, exs []Example, threads int) ([][]string, error) {
	if tg.Encoder() == nil {
		return nil, chain.ErrNoEncoder
	}
	out := make([][]string, len(exs))
	paths := make([][]int, max(threads, runtime.GOMAXPROCS(0)))
	err := forEach(len(exs), threads, func(w, i int) error {
		var err error
		paths[w], err = tg.Tag(paths[w], exs[i].Input())
		if err != nil {
			return fmt.Errorf("sequence %d: %w", i+1, err)
		}
		out[i] = tg.AppendLabels(nil, paths[w])
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// EvaluateAll tags labeled examples held in memory (TagAll) and compares
// the predictions with their labels: token accuracy and, for chunk labels,
// conlleval-style chunk scores. tagging.Evaluate streams the labeled
// examples of a Reader through any model instead.
func EvaluateAll(tg *chain.Tagger, exs []Example, threads int) (*eval.Evaluation, error) {
	for i := range exs {
		if exs[i].Labels == nil {
			return nil, errNoLabels(&exs[i], i, "evaluation")
		}
	}
	pred, err := TagAll(tg, exs, threads)
	if err != nil {
		return nil, err
	}
	ev := eval.NewEvaluation()
	for i := range exs {
		if err := ev.Add(exs[i].Labels, pred[i]); err != nil {
			return nil, fmt.Errorf("%s: sequence %d: %w", exs[i].where(), i+1, err)
		}
	}
	return ev, nil
}

// LabelFixer turns the labels of examples into label ids of a model's label
// set, for chain.DecodeOptions.Fixed, one example at a time.
type LabelFixer struct {
	labels []string
	set    *Labels
	name   string
}

// NewLabelFixer returns a LabelFixer for a model's labels; name names the
// input in error messages.
func NewLabelFixer(labels []string, name string) *LabelFixer {
	return &LabelFixer{labels: labels, set: NewLabels(labels), name: name}
}

// Fixed returns the fixed labels of ex, sequence seq (0-based) of its
// input: "_" and "?" leave a position free (-1), as does a missing label. A
// label outside the set is an error naming the input, the sequence and the
// token. Fixed only reads f, so goroutines may share it.
func (f *LabelFixer) Fixed(ex *Example, seq int) ([]int, error) {
	out := make([]int, ex.Len())
	for t := range out {
		out[t] = -1
		if t >= len(ex.Labels) {
			continue
		}
		l := ex.Labels[t]
		if l == "_" || l == "?" {
			continue
		}
		y, ok := f.set.Lookup(l)
		if !ok {
			return nil, fmt.Errorf("%s: sequence %d, token %d (%s): label %q is not a label of the model (want one of %s, or _ or ? for a free token)",
				f.name, seq+1, t+1, ex.Text[t], l, strings.Join(f.labels, " "))
		}
		out[t] = int(y)
	}
	return out, nil
}
