package dataset

import (
	"fmt"
	"runtime"
	"strings"
	"sync"

	"github.com/sparsetag/sparsetag/chain"
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

// DefaultBatch is the batch size of Stream when none is given: large enough
// to keep two workers busy between the serial reads and writes, small
// enough that a batch of sentences takes little memory.
const DefaultBatch = 256

// Stream reads r in batches of at most batch examples (batch <= 0:
// DefaultBatch), runs work on every example of a batch on at most workers
// goroutines (workers <= 0: GOMAXPROCS), then calls emit for each example
// of the batch in input order, on the caller's goroutine. The next batch is
// read while the current one is being worked on, so memory is bounded by two
// batches (and what work keeps per batch index), not by the input's size.
//
// work gets the worker number w in [0, workers), the example's index i in
// its batch (for results kept in a slice of batch entries, reused from
// batch to batch) and its index seq in the input (0-based). emit gets the
// same i and seq. Stream stops at the first error, in input order: the
// examples before it are emitted, the one that failed and those after it
// are not. Errors of work and emit are returned as they are.
func Stream(r *Reader, workers, batch int, work func(w, i, seq int, ex *Example) error, emit func(i, seq int, ex *Example) error) error {
	if batch <= 0 {
		batch = DefaultBatch
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	read := func(dst []Example) []Example {
		dst = dst[:0]
		for len(dst) < batch && r.Next() {
			dst = append(dst, r.Example())
		}
		return dst
	}
	cur, next := read(make([]Example, 0, batch)), make([]Example, 0, batch)
	base := 0
	for len(cur) > 0 {
		// Read the next batch while this one is worked on (the reader is
		// only used by this goroutine at a time).
		done := make(chan struct{})
		go func() {
			defer close(done)
			next = read(next)
		}()
		failed, werr := len(cur), error(nil)
		var mu sync.Mutex
		forEach(len(cur), workers, func(w, i int) error {
			if err := work(w, i, base+i, &cur[i]); err != nil {
				mu.Lock()
				if i < failed {
					failed, werr = i, err
				}
				mu.Unlock()
			}
			return nil
		})
		<-done
		for i := range failed {
			if err := emit(i, base+i, &cur[i]); err != nil {
				return err
			}
		}
		if werr != nil {
			return werr
		}
		clear(cur) // drop references to the emitted examples
		base += len(cur)
		cur, next = next, cur
	}
	return r.Err()
}

// TagAll tags every example with tg's Viterbi path on at most workers
// goroutines (0: GOMAXPROCS) and returns the predicted label names in input
// order. The model must have an encoder whose kind fits the examples.
func TagAll(tg *chain.Tagger, exs []Example, workers int) ([][]string, error) {
	if tg.Model().Encoder == nil {
		return nil, chain.ErrNoEncoder
	}
	out := make([][]string, len(exs))
	paths := make([][]int, max(workers, runtime.GOMAXPROCS(0)))
	err := forEach(len(exs), workers, func(w, i int) error {
		var err error
		paths[w], err = tg.Tag(paths[w], exs[i].Input())
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
	if tg.Model().Encoder == nil {
		return nil, chain.ErrNoEncoder
	}
	out := make([]chain.Decoding, len(exs))
	err := forEach(len(exs), workers, func(_, i int) error {
		o := opt
		if fixed != nil {
			o.Fixed = fixed[i]
		}
		if err := tg.Decode(&out[i], exs[i].Input(), o); err != nil {
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

// EvaluateStream is Evaluate over a Reader of labeled input, streamed with
// Stream (workers and batch as there): memory is bounded by two batches,
// whatever the input's size. tag writes the predicted label names of ex into dst (reusing its
// capacity) on worker w.
func EvaluateStream(r *Reader, workers, batch int, tag func(w int, dst []string, ex *Example) ([]string, error)) (*chain.Evaluation, error) {
	if batch <= 0 {
		batch = DefaultBatch
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	pred := make([][]string, batch)
	ev := chain.NewEvaluation()
	err := Stream(r, workers, batch, func(w, i, seq int, ex *Example) error {
		var err error
		if pred[i], err = tag(w, pred[i][:0], ex); err != nil {
			return fmt.Errorf("sequence %d: %w", seq+1, err)
		}
		return nil
	}, func(i, seq int, ex *Example) error {
		if err := ev.Add(ex.Labels, pred[i]); err != nil {
			return fmt.Errorf("%s: sequence %d: %w", ex.where(), seq+1, err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return ev, nil
}

// TagFunc returns a function for EvaluateStream that tags with tg's
// Viterbi path, one path buffer per worker.
func TagFunc(tg *chain.Tagger, workers int) func(w int, dst []string, ex *Example) ([]string, error) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	paths := make([][]int, workers)
	return func(w int, dst []string, ex *Example) ([]string, error) {
		var err error
		paths[w], err = tg.Tag(paths[w], ex.Input())
		if err != nil {
			return dst, err
		}
		return tg.Labels(dst, paths[w]), nil
	}
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
