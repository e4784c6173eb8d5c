package flagcheck

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
)

// MaxThreads bounds --threads: 4 goroutines per CPU (more only add memory
// and scheduling), at least 16 so that a script runs on small machines
// too.
func MaxThreads() int { return max(4*runtime.NumCPU(), 16) }

// Threads refuses a thread count (--threads) outside [1, MaxThreads()].
func Threads(n int) error {
	if n < 1 {
		return fmt.Errorf("--threads must be at least 1, got %d", n)
	}
	if hi := MaxThreads(); n > hi {
		return fmt.Errorf("--threads %d: want at most %d (4 per CPU, at least 16)", n, hi)
	}
	return nil
}

// Range refuses an integer flag outside [lo, hi].
func Range(flag string, n, lo, hi int) error {
	if n < lo || n > hi {
		return fmt.Errorf("--%s %d: want %d to %d", flag, n, lo, hi)
	}
	return nil
}

// AtLeast refuses an integer flag below lo.
func AtLeast(flag string, n, lo int) error {
	if n < lo {
		return fmt.Errorf("--%s %d: want at least %d", flag, n, lo)
	}
	return nil
}

// Positive refuses a float flag that is not finite and > 0.
func Positive(flag string, x float64) error {
	if !(x > 0) || math.IsInf(x, 1) {
		return fmt.Errorf("--%s %v: want a finite number > 0", flag, x)
	}
	return nil
}

// NonNegative refuses a float flag that is not finite and >= 0.
func NonNegative(flag string, x float64) error {
	if !(x >= 0) || math.IsInf(x, 1) {
		return fmt.Errorf("--%s %v: want a finite number >= 0", flag, x)
	}
	return nil
}

// Fraction refuses a float flag outside (0, 1].
func Fraction(flag string, x float64) error {
	if !(x > 0 && x <= 1) {
		return fmt.Errorf("--%s %v: want 0 < value <= 1", flag, x)
	}
	return nil
}

// OneOf refuses a flag whose value is not one of names.
func OneOf[S ~string](flag string, v S, names []S) error {
	if slices.Contains(names, v) {
		return nil
	}
	want := make([]string, len(names))
	for i, n := range names {
		want[i] = string(n)
	}
	return fmt.Errorf("unknown --%s %q (want %s)", flag, v, strings.Join(want, ", "))
}

// Parses refuses a flag whose value parse rejects, with parse's reason:
// "--FLAG: REASON".
func Parses[T any](flag, s string, parse func(string) (T, error)) error {
	if _, err := parse(s); err != nil {
		return fmt.Errorf("--%s: %v", flag, err)
	}
	return nil
}

// First returns the first non-nil error.
func First(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
