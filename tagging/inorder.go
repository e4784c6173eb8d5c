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
	o := newOrderedRun(batch)
	go o.read(r)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			o.work(w, work)
		}()
	}
	if err := o.emit(emit, flush); err != nil {
		close(o.quit)
		return err
	}
	wg.Wait()
	return r.Err()
}

// orderedRun is what the goroutines of one inOrder call share: batch slots,
// each holding an example from when it is read until it is emitted, and
// the channels that pass slots from the reader (read) to the workers
// (work) to the caller's goroutine (emit) and back to the reader.
type orderedRun struct {
	batch   int
	exs     []dataset.Example
	bufs    []dataset.Buffer
	errs    []error
	tokens  chan struct{} // one per free slot
	jobs    chan int      // read, to work on
	done    chan int      // worked on, to emit
	readEnd chan int      // the number of examples read, at the end
	quit    chan struct{} // closed on error
	nread   atomic.Int64  // examples read so far
}

// newOrderedRun returns an orderedRun of batch free slots.
func newOrderedRun(batch int) *orderedRun {
	o := &orderedRun{
		batch:   batch,
		exs:     make([]dataset.Example, batch),
		bufs:    make([]dataset.Buffer, batch),
		errs:    make([]error, batch),
		tokens:  make(chan struct{}, batch),
		jobs:    make(chan int, batch),
		done:    make(chan int, batch),
		readEnd: make(chan int, 1),
		quit:    make(chan struct{}),
	}
	for range batch {
		o.tokens <- struct{}{}
	}
	return o
}

// read reads the examples of r, each into the next slot once it is free,
// and sends its index on jobs; at the end of r it sends the number of
// examples read on readEnd. It stops when quit is closed, and closes jobs
// when it returns.
func (o *orderedRun) read(r *dataset.Reader) {
	defer close(o.jobs)
	for seq := 0; ; seq++ {
		select {
		case <-o.tokens:
		case <-o.quit:
			return
		}
		if !r.NextInto(&o.bufs[seq%o.batch]) {
			o.readEnd <- seq
			return
		}
		o.exs[seq%o.batch] = r.Example()
		o.nread.Add(1)
		o.jobs <- seq
	}
}

// work runs fn as worker w on each example received on jobs (unless quit
// is closed), keeps its error in the example's slot and sends its index on
// done.
func (o *orderedRun) work(w int, fn func(w, i, seq int, ex *dataset.Example) error) {
	for seq := range o.jobs {
		i := seq % o.batch
		select {
		case <-o.quit:
		default:
			o.errs[i] = fn(w, i, seq, &o.exs[i])
		}
		o.done <- seq
	}
}

// emit calls fn for each example in input order as soon as it and all
// before it are done, and frees its slot; it calls flush (if not nil)
// whenever it has emitted every example read so far and must wait. It
// returns at the end of the input, or with the first error in input order:
// an example's work error, or that of fn or flush.
func (o *orderedRun) emit(fn func(i, seq int, ex *dataset.Example) error, flush func() error) error {
	ready := make([]bool, o.batch)
	end := -1
	for next := 0; next != end; {
		i := next % o.batch
		if !ready[i] {
			if flush != nil && int64(next) == o.nread.Load() {
				if err := flush(); err != nil {
					return err
				}
			}
			select {
			case seq := <-o.done:
				ready[seq%o.batch] = true
			case end = <-o.readEnd:
			}
			continue
		}
		ready[i] = false
		if err := o.errs[i]; err != nil {
			return err
		}
		if err := fn(i, next, &o.exs[i]); err != nil {
			return err
		}
		o.exs[i] = dataset.Example{} // let the example go
		next++
		o.tokens <- struct{}{}
	}
	return nil
}
