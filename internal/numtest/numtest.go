// Package numtest compares floating-point results in tests: it is the one
// float comparison of the module's tests. It is imported only by _test.go
// files (and by the test-data package internal/chaintest).
//
// testify's InDelta and InDeltaSlice are not used for numbers because, in
// testify v1.12.1, InDeltaSlice passes when the actual slice is shorter than
// the expected one (it loops over the actual slice only) and panics when it
// is longer, and InDelta(NaN, NaN) passes (TestTestifyGaps shows both). Slices
// and Close check the lengths first, then NaN and infinities, and only then
// the tolerance, with gonum's [scalar.EqualWithinAbsOrRel]; a failure names
// the first bad index.
//
// Equal is the same test as a predicate, for checks that are not a test
// failure by themselves (a JSON field, a search among candidates).
//
// Slices and Close report with t.Errorf and return whether the check passed,
// as testify's assert does; RequireSlices and RequireClose also stop the test
// with t.FailNow, as testify's require does.
package numtest

import (
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
)

// Slices checks that got has the length of want and that every got[i] is
// within abs or rel of want[i]: |want[i]-got[i]| <= abs, or
// |want[i]-got[i]| <= rel·max(|want[i]|, |got[i]|). NaN never matches, not
// even NaN; an infinity matches only the same infinity. abs and rel must be
// non-negative; with both zero the values must be equal. On failure it calls
// t.Errorf once, naming the first bad index and how many elements are bad,
// prefixed by msgAndArgs (a message, or a format and its arguments).
func Slices(t testing.TB, want, got []float64, abs, rel float64, msgAndArgs ...any) bool {
	t.Helper()
	if msg := badTolerance(abs, rel); msg != "" {
		t.Errorf("%s%s", prefix(msgAndArgs), msg)
		return false
	}
	if len(got) != len(want) {
		t.Errorf("%slen(got) = %d, want %d", prefix(msgAndArgs), len(got), len(want))
		return false
	}
	first, nbad, why := -1, 0, ""
	for i := range want {
		if w := mismatch(want[i], got[i], abs, rel); w != "" {
			if first < 0 {
				first, why = i, w
			}
			nbad++
		}
	}
	if first < 0 {
		return true
	}
	t.Errorf("%sgot[%d] = %v, want %v: %s (%d of %d elements bad)",
		prefix(msgAndArgs), first, got[first], want[first], why, nbad, len(want))
	return false
}

// Close checks that got is within abs or rel of want, by the rules of
// Slices: NaN never matches and an infinity matches only itself.
func Close(t testing.TB, want, got, abs, rel float64, msgAndArgs ...any) bool {
	t.Helper()
	if msg := badTolerance(abs, rel); msg != "" {
		t.Errorf("%s%s", prefix(msgAndArgs), msg)
		return false
	}
	if why := mismatch(want, got, abs, rel); why != "" {
		t.Errorf("%sgot %v, want %v: %s", prefix(msgAndArgs), got, want, why)
		return false
	}
	return true
}

// Equal reports whether got is within abs or rel of want, by the rules of
// Slices: NaN never matches and an infinity matches only itself. It reports
// false for a negative or NaN tolerance.
func Equal(want, got, abs, rel float64) bool {
	return badTolerance(abs, rel) == "" && mismatch(want, got, abs, rel) == ""
}

// RequireSlices is Slices followed by t.FailNow on failure.
func RequireSlices(t testing.TB, want, got []float64, abs, rel float64, msgAndArgs ...any) {
	t.Helper()
	if !Slices(t, want, got, abs, rel, msgAndArgs...) {
		t.FailNow()
	}
}

// RequireClose is Close followed by t.FailNow on failure.
func RequireClose(t testing.TB, want, got, abs, rel float64, msgAndArgs ...any) {
	t.Helper()
	if !Close(t, want, got, abs, rel, msgAndArgs...) {
		t.FailNow()
	}
}

// mismatch returns why got does not match want, or "" if it does.
func mismatch(want, got, abs, rel float64) string {
	switch {
	case math.IsNaN(want):
		return "want is NaN, which nothing matches"
	case math.IsNaN(got):
		return "got is NaN"
	case math.IsInf(want, 0) || math.IsInf(got, 0):
		if want != got {
			return "an infinity matches only the same infinity"
		}
		return ""
	case !scalar.EqualWithinAbsOrRel(want, got, abs, rel):
		return fmt.Sprintf("|diff| = %g, tolerance abs %g or rel %g", math.Abs(want-got), abs, rel)
	}
	return ""
}

func badTolerance(abs, rel float64) string {
	if !(abs >= 0) || !(rel >= 0) {
		return fmt.Sprintf("invalid tolerance abs %v, rel %v: want non-negative numbers", abs, rel)
	}
	return ""
}

// prefix formats msgAndArgs as testify does (a message, or a format and its
// arguments) followed by ": ", or returns "" when there is none.
func prefix(msgAndArgs []any) string {
	if len(msgAndArgs) == 0 {
		return ""
	}
	if f, ok := msgAndArgs[0].(string); ok {
		if len(msgAndArgs) == 1 {
			return f + ": "
		}
		return fmt.Sprintf(f, msgAndArgs[1:]...) + ": "
	}
	return fmt.Sprint(msgAndArgs...) + ": "
}
