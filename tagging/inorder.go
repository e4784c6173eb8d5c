package tagging

import (
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/sparsetag/sparsetag/dataset"
)

// DefaultBatch is the number of sequences Stream and Evaluate keep in flight: enough
// sequences in flight to keep the workers busy while the output waits for
// the slowest of them, few enough that they take little memory.
const DefaultBatch = 256

// soloBatch bounds the batch of inOrder with one worker: examples are then
// worked on in input order and emitted as soon as they are done, no output
// waits for a slower worker, and a few in flight overlap reading, work and
// output as well as many do, in less memory (the examples' Buffers and
// their results).
const soloBatch = 32

// inOrder reads the examples of r, runs work on each of them on at most
// workers goroutines (workers <= 0: GOMAXPROCS), and calls emit for each in
// input order on the caller's goroutine. At most batch examples (batch <= 0:
// DefaultBatch; at most soloBatch with one worker) are in flight, read but not yet emitted, so memory is
// bounded by batch examples and their results, not by the input's size.
//
// An example is worked on as soon as it is read, and emitted as soon as it
// and all before it are done: a program that writes one sequence to a
// pipe and waits for its labels gets them. flush, if not nil, is called
// whenever every example read so far has been emitted and inOrder waits for
// input: the moment to flush buffered output.
//
// work gets the worker number w in [0, workers), the example's slot i in
// [0, batch) (for results kept in a slice of batch entries: slot i is not
// reused before example seq has been emitted) and its index seq in the input
// (0-based). emit gets the same i and seq. inOrder stops at the first error
// in input order, which it returns as it is: the examples before it are
// emitted, the one that failed and those after it are not. After an error
// the Reader must not be used again; its goroutine stops at its next read.
//
// Examples are read with Reader.NextInto into one Buffer per slot: the
// example of slot i is overwritten only once it has been emitted, so work
// and emit must not keep its slices (Tokens, Labels, Text) after emit
// returns; its strings they may keep.
func inOrder(r *dataset.Reader, workers, batch int, work func(w, i, seq int, ex *dataset.Example) error, emit func(i, seq int, ex *dataset.Example) error, flush func() error) error {
	if batch <= 0 {
		batch = DefaultBatch
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	if workers == 1 {
		batch = min(batch, soloBatch)
	}
	exs := make([]dataset.Example, batch)
	bufs := make([]dataset.Buffer, batch)
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
			if !r.NextInto(&bufs[seq%batch]) {
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
		exs[i] = dataset.Example{} // let the example go
		next++
		tokens <- struct{}{}
	}
	wg.Wait()
	return r.Err()
}
