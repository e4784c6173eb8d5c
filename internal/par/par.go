package par

import (
	"sync"
	"sync/atomic"
)

// For calls f(i) for every i in [0, n), each exactly once, on up to threads
// goroutines (the calling goroutine included), and returns when all calls
// have returned. The goroutines claim indices one at a time, in increasing
// order, so a goroutine that starts late or runs slowly takes fewer of them.
//
// With threads <= 1 or n <= 1, For calls f(0), f(1), ..., f(n-1) in order
// on the calling goroutine. Nothing happens if n <= 0.
//
// If a call of f panics, the goroutines claim no further indices, For waits
// for the calls in progress and then panics on the calling goroutine with
// the value of the first panic (the stack trace is then that of the re-
// panic; the serial path panics directly from f).
func For(threads, n int, f func(i int)) {
	if threads <= 1 || n <= 1 {
		for i := range n {
			f(i)
		}
		return
	}
	l := &loop{n: int64(n), f: f}
	workers := min(threads, n) - 1
	l.wg.Add(workers)
	for range workers {
		go func() {
			defer l.wg.Done()
			l.run()
		}()
	}
	l.run()
	l.wg.Wait()
	if p := l.panicked.Load(); p != nil {
		panic(p.v)
	}
}

// loop is the state one call of For shares among its goroutines.
type loop struct {
	n        int64
	f        func(int)
	next     atomic.Int64 // the next unclaimed index
	panicked atomic.Pointer[panicValue]
	wg       sync.WaitGroup
}

// panicValue boxes a recovered value (which may be nil) for an atomic
// pointer.
type panicValue struct{ v any }

// run calls f on unclaimed indices until none is left or a call panicked.
func (l *loop) run() {
	defer func() {
		if r := recover(); r != nil {
			l.panicked.CompareAndSwap(nil, &panicValue{r})
		}
	}()
	for l.panicked.Load() == nil {
		i := l.next.Add(1) - 1
		if i >= l.n {
			return
		}
		l.f(int(i))
	}
}
