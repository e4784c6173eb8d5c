package progress

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/sparsetag/sparsetag/train"
)

// TestProgressFraction: the gap falls from 1 to 1e-3 in 3 s with target
// 1e-6, i.e. half of the way in log scale (log(1/1e-3) / log(1/1e-6) =
// 3/6), so the estimate of the remaining time is another 3 s.
func TestProgressFraction(t *testing.T) {
	st := &progressState{maxIter: 1000, epsilon: 1e-6}
	st.fraction(train.Iteration{Iter: 0, Gap: 1})
	f := st.fraction(train.Iteration{Iter: 10, Gap: 1e-3, Seconds: 3})
	if math.Abs(f-0.5) > 1e-12 {
		t.Fatalf("fraction = %v, want 0.5", f)
	}
	r, ok := estimateRemaining(f, 3)
	if !ok || math.Abs(r-3) > 1e-12 {
		t.Fatalf("remaining = %v %v, want 3 s", r, ok)
	}
	// A gap that goes up again does not move the bar back.
	if g := st.fraction(train.Iteration{Iter: 11, Gap: 1e-2, Seconds: 3.1}); g < f {
		t.Fatalf("fraction went back from %v to %v", f, g)
	}
	// Iterations count when they are further along: 900 of 1000.
	if g := st.fraction(train.Iteration{Iter: 900, Gap: 1e-3}); math.Abs(g-0.9) > 1e-12 {
		t.Fatalf("fraction = %v, want 0.9 from the iteration count", g)
	}
	if g := st.fraction(train.Iteration{Iter: 901, Gap: 1e-7}); g != 1 {
		t.Fatalf("fraction = %v at a gap below epsilon, want 1", g)
	}
	if _, ok := estimateRemaining(0, 1); ok {
		t.Fatal("an estimate with no progress")
	}
}

func TestProgressPlain(t *testing.T) {
	var buf bytes.Buffer
	progress, finish := New(&buf, false, 100, 1e-6)
	progress(train.Iteration{Iter: 0, Primal: 0.69, Gap: 1, Pass: true, Active: 10, NonZero: 0})
	progress(train.Iteration{Iter: 1, Primal: 0.5, Gap: 1e-3, Pass: true, Active: 8, NonZero: 5, Screened: 2, Seconds: 2})
	progress(train.Iteration{Iter: 2, Primal: 0.4, Active: 8, NonZero: 5, Screened: 2, Seconds: 3})
	progress(train.Iteration{Iter: 2, Primal: 0.45, Gap: 1e-4, Pass: true, Zeroed: 1, Active: 7, NonZero: 4, Screened: 3, Seconds: 3})
	finish()
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != 4 {
		t.Fatalf("got %d lines, want 4:\n%s", len(lines), buf.String())
	}
	for i, want := range []string{
		"iter    1  objective 0.5  gap 1.000e-03  active 8  nonzero 5  screened 2  2.0s  eta 2.0s",
		"iter    2  objective 0.4  gap -  active 8  nonzero 5  screened 2  3.0s  eta 3.0s", // an inner iteration: no gap
		"iter    2  objective 0.45  gap 1.000e-04  active 7  nonzero 4  screened 3  3.0s  eta 1.5s  (screening zeroed 1 weights)",
	} {
		if lines[i+1] != want {
			t.Fatalf("line %d = %q, want %q", i+2, lines[i+1], want)
		}
	}
	if !strings.HasSuffix(lines[0], "eta ?") {
		t.Fatalf("line 1 = %q: want no estimate before any progress", lines[0])
	}
}

func TestProgressQuiet(t *testing.T) {
	var buf bytes.Buffer
	progress, finish := New(&buf, true, 100, 0)
	progress(train.Iteration{Iter: 1, Gap: 1})
	finish()
	if buf.Len() != 0 {
		t.Fatalf("quiet progress wrote %q", buf.String())
	}
}

// TestProgressBar renders the terminal display into a buffer.
func TestProgressBar(t *testing.T) {
	var buf bytes.Buffer
	progress, finish := NewTo(&buf, true, 100, 1e-6)
	progress(train.Iteration{Iter: 0, Primal: 0.69, Gap: 1, Active: 10})
	progress(train.Iteration{Iter: 5, Primal: 0.5, Gap: 1e-3, Active: 8, NonZero: 5, Seconds: 2})
	finish()
	out := buf.String()
	for _, s := range []string{"\r", "100%", "iter ", "gap ", "active ", "eta ", "done"} {
		if !strings.Contains(out, s) {
			t.Errorf("bar output lacks %q:\n%q", s, out)
		}
	}
	if !strings.HasSuffix(out, "\n") {
		t.Errorf("finish does not end the line: %q", out)
	}
}
