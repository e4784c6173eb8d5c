package numtest

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeTB records what a helper reports instead of failing the real test, so
// the tests below can check that a helper fails, and with what message.
type fakeTB struct {
	testing.TB // nil: any method not overridden below panics
	errors     []string
	failedNow  bool
}

func (f *fakeTB) Helper() {}
func (f *fakeTB) Errorf(format string, args ...any) {
	f.errors = append(f.errors, fmt.Sprintf(format, args...))
}
func (f *fakeTB) FailNow()     { f.failedNow = true }
func (f *fakeTB) failed() bool { return len(f.errors) > 0 }

var nan, inf = math.NaN(), math.Inf(1)

// TestTestifyGaps shows the two gaps of testify v1.12.1: testify passes
// them, Slices and Close fail them. If testify's half starts failing,
// testify has closed the gap; the helpers stay correct either way.
func TestTestifyGaps(t *testing.T) {
	t.Run("shorter got", func(t *testing.T) {
		want, got := []float64{1, 2, 3}, []float64{1}
		tf := new(fakeTB)
		assert.True(t, assert.InDeltaSlice(tf, want, got, 1e-9), "testify InDeltaSlice")
		f := new(fakeTB)
		assert.False(t, Slices(f, want, got, 1e-9, 0))
		require.Len(t, f.errors, 1)
		assert.Contains(t, f.errors[0], "len(got) = 1, want 3")
	})
	t.Run("longer got", func(t *testing.T) {
		want, got := []float64{1}, []float64{1, 2, 3}
		assert.Panics(t, func() { assert.InDeltaSlice(new(fakeTB), want, got, 1e-9) }, "testify InDeltaSlice")
		f := new(fakeTB)
		assert.False(t, Slices(f, want, got, 1e-9, 0))
		require.Len(t, f.errors, 1)
		assert.Contains(t, f.errors[0], "len(got) = 3, want 1")
	})
	t.Run("NaN NaN", func(t *testing.T) {
		tf := new(fakeTB)
		assert.True(t, assert.InDelta(tf, nan, nan, 1e-9), "testify InDelta")
		f := new(fakeTB)
		assert.False(t, Close(f, nan, nan, 1e-9, 1e-9))
		require.Len(t, f.errors, 1)
		assert.Contains(t, f.errors[0], "want is NaN")
		f = new(fakeTB)
		assert.False(t, Slices(f, []float64{0, nan}, []float64{0, nan}, 1e-9, 1e-9))
		require.Len(t, f.errors, 1)
		assert.Contains(t, f.errors[0], "got[1] = NaN")
	})
}

func TestClose(t *testing.T) {
	for _, c := range []struct {
		name      string
		want, got float64
		abs, rel  float64
		ok        bool
		msg       string // substring of the failure
	}{
		{"equal, zero tolerance", 0.1, 0.1, 0, 0, true, ""},
		{"one ulp, zero tolerance", 1, math.Nextafter(1, 2), 0, 0, false, "|diff| = 2.220446049250313e-16"},
		{"within abs", 1, 1.5, 0.5, 0, true, ""},
		{"beyond abs", 1, 1.5, 0.49, 0, false, "tolerance abs 0.49 or rel 0"},
		{"within rel", 100, 101, 0, 0.01, true, ""},
		{"beyond rel", 100, 101, 0, 0.0099, false, ""},
		{"rel of the larger", 100, 101, 0, 1.0 / 101, true, ""},
		{"abs or rel", 1e-20, 2e-20, 1e-19, 0, true, ""},
		{"NaN got", 1, nan, inf, inf, false, "got is NaN"},
		{"NaN want", nan, 1, inf, inf, false, "want is NaN"},
		{"+Inf +Inf", inf, inf, 0, 0, true, ""},
		{"-Inf -Inf", -inf, -inf, 0, 0, true, ""},
		{"+Inf -Inf", inf, -inf, inf, inf, false, "only the same infinity"},
		{"-Inf finite", -inf, -1e308, 1, 1, false, "only the same infinity"},
		{"finite +Inf", 1, inf, 1e300, 1, false, "only the same infinity"},
		{"negative tolerance", 1, 1, -1, 0, false, "invalid tolerance"},
		{"NaN tolerance", 1, 1, 0, nan, false, "invalid tolerance"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := new(fakeTB)
			assert.Equal(t, c.ok, Close(f, c.want, c.got, c.abs, c.rel, "x"))
			assert.Equal(t, c.ok, !f.failed(), "reported %q", f.errors)
			assert.False(t, f.failedNow, "Close must not stop the test")
			if !c.ok {
				require.Len(t, f.errors, 1)
				assert.True(t, strings.HasPrefix(f.errors[0], "x: "), f.errors[0])
				assert.Contains(t, f.errors[0], c.msg)
			}
		})
	}
}

func TestSlicesFirstBadIndex(t *testing.T) {
	want := []float64{1, 2, 3, 4}
	got := []float64{1, 2.5, 3, 4.5}
	f := new(fakeTB)
	assert.False(t, Slices(f, want, got, 0.1, 0, "Node at t=%d", 7))
	require.Len(t, f.errors, 1)
	assert.Equal(t, "Node at t=7: got[1] = 2.5, want 2: |diff| = 0.5, tolerance abs 0.1 or rel 0 (2 of 4 elements bad)", f.errors[0])

	// A NaN after an out-of-tolerance element: the first bad index is named.
	f = new(fakeTB)
	assert.False(t, Slices(f, want, []float64{1, 2, 9, nan}, 0.1, 0))
	require.Len(t, f.errors, 1)
	assert.Contains(t, f.errors[0], "got[2] = 9, want 3")
	assert.Contains(t, f.errors[0], "(2 of 4 elements bad)")
}

func TestSlicesPass(t *testing.T) {
	for _, c := range []struct {
		name      string
		want, got []float64
		abs, rel  float64
	}{
		{"nil nil", nil, nil, 0, 0},
		{"nil empty", nil, []float64{}, 0, 0},
		{"exact", []float64{1, -inf, inf, 0}, []float64{1, -inf, inf, 0}, 0, 0},
		{"within", []float64{1, 1000}, []float64{1.01, 1001}, 0.02, 0.002},
	} {
		f := new(fakeTB)
		assert.True(t, Slices(f, c.want, c.got, c.abs, c.rel), c.name)
		assert.Empty(t, f.errors, c.name)
	}
}

func TestRequireStops(t *testing.T) {
	f := new(fakeTB)
	RequireSlices(f, []float64{1}, []float64{1}, 0, 0)
	RequireClose(f, 1, 1, 0, 0)
	assert.False(t, f.failed())
	assert.False(t, f.failedNow)

	f = new(fakeTB)
	RequireSlices(f, []float64{1}, []float64{2}, 0, 0, "s")
	assert.True(t, f.failedNow)
	assert.Len(t, f.errors, 1)

	f = new(fakeTB)
	RequireClose(f, 1, nan, 0, 0, "c")
	assert.True(t, f.failedNow)
	assert.Len(t, f.errors, 1)

	f = new(fakeTB)
	assert.False(t, Slices(f, []float64{1}, []float64{2}, 0, 0))
	assert.False(t, f.failedNow, "Slices must not stop the test")
}

func TestPrefix(t *testing.T) {
	assert.Equal(t, "", prefix(nil))
	assert.Equal(t, "Node: ", prefix([]any{"Node"}))
	assert.Equal(t, "EdgeAt(3): ", prefix([]any{"EdgeAt(%d)", 3}))
	assert.Equal(t, "42: ", prefix([]any{42}))
}

// TestEqual: the predicate follows the rules of Close.
func TestEqual(t *testing.T) {
	for _, c := range []struct {
		want, got, abs, rel float64
		ok                  bool
	}{
		{1, 1, 0, 0, true},
		{1, 1 + 1e-10, 1e-9, 0, true},
		{1, 1 + 1e-10, 0, 1e-9, true},
		{1, 1.1, 1e-3, 1e-3, false},
		{nan, nan, 1, 1, false},
		{inf, inf, 0, 0, true},
		{inf, -inf, 1, 1, false},
		{1, 1, -1, 0, false},
	} {
		if got := Equal(c.want, c.got, c.abs, c.rel); got != c.ok {
			t.Errorf("Equal(%v, %v, %v, %v) = %v, want %v", c.want, c.got, c.abs, c.rel, got, c.ok)
		}
	}
}
