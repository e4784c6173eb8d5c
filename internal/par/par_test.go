package par

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// TestForVisitsEachIndexOnce counts the calls of every index for a range of
// thread counts and lengths, including more threads than indices and the
// empty and negative lengths.
func TestForVisitsEachIndexOnce(t *testing.T) {
	for _, threads := range []int{-1, 0, 1, 2, 3, 8, 100} {
		for _, n := range []int{-3, 0, 1, 2, 7, 64, 1000} {
			calls := make([]atomic.Int32, max(n, 0))
			For(threads, n, func(i int) { calls[i].Add(1) })
			for i := range calls {
				if c := calls[i].Load(); c != 1 {
					t.Fatalf("threads=%d n=%d: f(%d) called %d times, want 1", threads, n, i, c)
				}
			}
		}
	}
}

// TestForSerialOrder checks that threads <= 1 runs the indices in order on
// the calling goroutine (f appends to a slice without synchronization, which
// the race detector would flag otherwise).
func TestForSerialOrder(t *testing.T) {
	for _, threads := range []int{0, 1} {
		var got []int
		For(threads, 5, func(i int) { got = append(got, i) })
		if fmt.Sprint(got) != "[0 1 2 3 4]" {
			t.Fatalf("threads=%d: order %v, want [0 1 2 3 4]", threads, got)
		}
	}
}

// TestForUsesSeveralGoroutines checks that with threads = 2 the indices are
// really shared: the first call waits until another goroutine has run a
// later index (which would dead-lock on one goroutine; the timeout turns
// that into a failure).
func TestForUsesSeveralGoroutines(t *testing.T) {
	var other atomic.Bool
	timeout := time.After(10 * time.Second)
	For(2, 2, func(i int) {
		if i == 1 {
			other.Store(true)
			return
		}
		for !other.Load() {
			select {
			case <-timeout:
				t.Error("index 1 never ran while index 0 was running")
				return
			default:
				runtime.Gosched()
			}
		}
	})
}

// TestForPanic checks that a panic in f reaches the caller of For with its
// value, on the serial and on the parallel path, and that no goroutine of
// For is left running afterwards.
func TestForPanic(t *testing.T) {
	before := runtime.NumGoroutine()
	for _, threads := range []int{1, 2, 4} {
		for _, bad := range []int{0, 5, 99} { // the caller's first index, and others
			got := func() (r any) {
				defer func() { r = recover() }()
				For(threads, 100, func(i int) {
					if i == bad {
						panic(fmt.Sprintf("boom %d", i))
					}
				})
				return nil
			}()
			if want := fmt.Sprintf("boom %d", bad); got != want {
				t.Fatalf("threads=%d: recovered %v, want %q", threads, got, want)
			}
		}
	}
	checkNoLeak(t, before)
}

// TestForNoGoroutineLeak runs many calls and checks that the number of
// goroutines returns to where it was.
func TestForNoGoroutineLeak(t *testing.T) {
	before := runtime.NumGoroutine()
	var sum atomic.Int64
	for range 200 {
		For(4, 16, func(i int) { sum.Add(int64(i)) })
	}
	if got := sum.Load(); got != 200*120 {
		t.Fatalf("sum = %d, want %d", got, 200*120)
	}
	checkNoLeak(t, before)
}

// checkNoLeak waits up to a second for the number of goroutines to drop to
// before (goroutines that called wg.Done may still be exiting).
func checkNoLeak(t *testing.T, before int) {
	t.Helper()
	for range 1000 {
		if runtime.NumGoroutine() <= before {
			return
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatalf("%d goroutines, %d before", runtime.NumGoroutine(), before)
}

func BenchmarkFor(b *testing.B) {
	for _, threads := range []int{1, 2} {
		b.Run(fmt.Sprintf("threads=%d", threads), func(b *testing.B) {
			part := make([]float64, 8)
			b.ReportAllocs()
			for b.Loop() {
				For(threads, len(part), func(i int) { part[i] = float64(i) })
			}
		})
	}
}
