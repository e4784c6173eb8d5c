package dataset

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

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

// DefaultBatch is the batch size of Stream when none is given: enough
// sequences in flight to keep the workers busy while the output waits for
// the slowest of them, few enough that they take little memory.
const DefaultBatch = 256

// Stream reads the examples of r, runs work on each of them on at most
// workers goroutines (workers <= 0: GOMAXPROCS), and calls emit for each in
// input order on the caller's goroutine. At most batch examples (batch <= 0:
// DefaultBatch) are in flight, read but not yet emitted, so memory is
// bounded by batch examples and their results, not by the input's size.
//
// An example is worked on as soon as it is read, and emitted as soon as it
// and all before it are done: a program that writes one sequence to a
// pipe and waits for its labels gets them. flush, if not nil, is called
// whenever every example read so far has been emitted and Stream waits for
// input: the moment to flush buffered output.
//
// work gets the worker number w in [0, workers), the example's slot i in
// [0, batch) (for results kept in a slice of batch entries: slot i is not
// reused before example seq has been emitted) and its index seq in the input
// (0-based). emit gets the same i and seq. Stream stops at the first error
// in input order, which it returns as it is: the examples before it are
// emitted, the one that failed and those after it are not. After an error
// the Reader must not be used again; its goroutine stops at its next read.
func Stream(r *Reader, workers, batch int, work func(w, i, seq int, ex *Example) error, emit func(i, seq int, ex *Example) error, flush func() error) error {
	if batch <= 0 {
		batch = DefaultBatch
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	exs := make([]Example, batch)
	errs := make([]error, batch)
	tokens := make(chan struct{}, batch) // one per free slot
	for range batch {
		tokens <- struct{}{}
	}
	jobs := make(chan int, batch) // read, to work on
	done := make(chan int, batch) // worked on, to emit
	readEnd := make(chan int, 1)  // the number of examples read, at the end
	quit := make(chan struct{})   // closed on error
	var nread atomic.Int64        // examples read so far
	go func() {
		defer close(jobs)
		for seq := 0; ; seq++ {
			select {
			case <-tokens:
			case <-quit:
				return
			}
			if !r.Next() {
				readEnd <- seq
				return
			}
			exs[seq%batch] = r.Example()
			nread.Add(1)
			jobs <- seq
		}
	}()
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for seq := range jobs {
				i := seq % batch
				select {
				case <-quit:
				default:
					errs[i] = work(w, i, seq, &exs[i])
				}
				done <- seq
			}
		}()
	}
	fail := func(err error) error {
		close(quit)
		return err
	}
	ready := make([]bool, batch)
	end := -1
	for next := 0; next != end; {
		i := next % batch
		if !ready[i] {
			if flush != nil && int64(next) == nread.Load() {
				if err := flush(); err != nil {
					return fail(err)
				}
			}
			select {
			case seq := <-done:
				ready[seq%batch] = true
			case end = <-readEnd:
			}
			continue
		}
		ready[i] = false
		if err := errs[i]; err != nil {
			return fail(err)
		}
		if err := emit(i, next, &exs[i]); err != nil {
			return fail(err)
		}
		exs[i] = Example{} // let the example go
		next++
		tokens <- struct{}{}
	}
	wg.Wait()
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
func Evaluate(tg *chain.Tagger, exs []Example, workers int) (*eval.Evaluation, error) {
	pred, err := TagAll(tg, exs, workers)
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

// EvaluateStream is Evaluate over a Reader of labeled input, streamed with
// Stream (workers and batch as there): memory is bounded by the batch,
// whatever the input's size. tag writes the predicted label names of ex into dst (reusing its
// capacity) on worker w.
func EvaluateStream(r *Reader, workers, batch int, tag func(w int, dst []string, ex *Example) ([]string, error)) (*eval.Evaluation, error) {
	if batch <= 0 {
		batch = DefaultBatch
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	pred := make([][]string, batch)
	ev := eval.NewEvaluation()
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
	}, nil)
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
