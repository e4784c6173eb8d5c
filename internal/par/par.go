// Package par runs parallel loops: For calls f(i) for every i in [0, n) on
// up to threads goroutines started for the call. Each i runs exactly once;
// callers write results to i-owned storage and reduce them in index order,
// which keeps results independent of the number of goroutines.
package par

import (
	"sync"
	"sync/atomic"
)

// For calls f(i) for i in [0, n) on min(threads, n) goroutines (the calling
// goroutine alone when that is 1), and returns when every call has.
func For(threads, n int, f func(i int)) {
	workers := min(threads, n)
	if workers <= 1 {
		for i := 0; i < n; i++ {
			f(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				f(i)
			}
		}()
	}
	wg.Wait()
}
