package progress

import (
	"bytes"
	"strings"
	"testing"

	"github.com/sparsetag/sparsetag/train"
)

// TestProgressPlain: the plain log lines and their estimates. The gap
// falls tenfold per second towards the target 1e-6 with 100 iterations at
// most:
//
//   - line 1 has no rate yet: "estimating";
//   - lines 2-4 have fewer than 3 full passes in the window, and the time
//     to iteration 100 at 1 s per iteration (an upper bound) is more than
//     three times the elapsed time: "estimating" (the inner iteration's
//     gap is "-");
//   - line 5 has 3 passes (1 s, 2 s, 3 s; log gaps -1, -2, -3 times ln 10)
//     and 3 decades to go: linear convergence says 3 s, the power law
//     (slope -4.099 of log gap against log time) says 3 exp(3 ln 10 /
//     4.099) minus 3 = 13.18 s, and the estimate is their geometric
//     mean, 6.29 s (the 97 s to iteration 100 are more).
func TestProgressPlain(t *testing.T) {
	var buf bytes.Buffer
	progress, finish := New(&buf, false, 100, 1e-6, 0)
	progress(train.Iteration{Iter: 0, Primal: 0.69, Gap: 1, Pass: true, Active: 10, NonZero: 0})
	progress(train.Iteration{Iter: 1, Primal: 0.5, Gap: 1e-1, Pass: true, Active: 8, NonZero: 5, Screened: 2, Seconds: 1})
	progress(train.Iteration{Iter: 2, Primal: 0.4, Active: 8, NonZero: 5, Screened: 2, Seconds: 2})
	progress(train.Iteration{Iter: 2, Primal: 0.45, Gap: 1e-2, Pass: true, Zeroed: 1, Active: 7, NonZero: 4, Screened: 3, Seconds: 2})
	progress(train.Iteration{Iter: 3, Primal: 0.44, Gap: 1e-3, Pass: true, Active: 7, NonZero: 4, Screened: 3, Seconds: 3})
	finish()
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	for i, want := range []string{
		"iter    0  objective 0.69  gap 1.000e+00  active 10  nonzero 0  screened 0  0.0s  eta estimating",
		"iter    1  objective 0.5  gap 1.000e-01  active 8  nonzero 5  screened 2  1.0s  eta estimating",
		"iter    2  objective 0.4  gap -  active 8  nonzero 5  screened 2  2.0s  eta estimating", // an inner iteration: no gap
		"iter    2  objective 0.45  gap 1.000e-02  active 7  nonzero 4  screened 3  2.0s  eta estimating  (screening zeroed 1 weights)",
		"iter    3  objective 0.44  gap 1.000e-03  active 7  nonzero 4  screened 3  3.0s  eta 6.3s",
	} {
		if i >= len(lines) || lines[i] != want {
			t.Fatalf("line %d:\n got %q\nwant %q\nall:\n%s", i+1, lines[min(i, len(lines)-1)], want, buf.String())
		}
	}
	if len(lines) != 5 {
		t.Fatalf("got %d lines, want 5:\n%s", len(lines), buf.String())
	}
}

func TestProgressQuiet(t *testing.T) {
	var buf bytes.Buffer
	progress, finish := New(&buf, true, 100, 0, 0)
	progress(train.Iteration{Iter: 1, Gap: 1})
	finish()
	if buf.Len() != 0 {
		t.Fatalf("quiet progress wrote %q", buf.String())
	}
}

// TestProgressBar renders the terminal display into a buffer.
func TestProgressBar(t *testing.T) {
	var buf bytes.Buffer
	progress, finish := NewTo(&buf, true, 100, 1e-6, 0)
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

// TestSummary: the summary line of a run, and the solver line only when
// the solver that ran is not the one requested.
func TestSummary(t *testing.T) {
	res := &train.Result{StopReason: train.StopGap, Iterations: []train.Iteration{{Iter: 0}, {Iter: 12, Pass: true}}, Gap: 1.5e-4,
		NonZero: 30, Dimension: 120, Screened: 50, Beta: 0.01, BetaMax: 0.1, Seconds: 2.25, SecondsScreening: 0.125,
		Solver: train.SolverWorkingSet, SolverReason: "requested"}
	var b bytes.Buffer
	Summary(&b, res)
	want := "stopped (gap) after 12 iterations: gap 1.500e-04, 30 non-zero of 120 features, 50 screened, beta 0.01 (beta_max 0.1), 2.2s (screening 0.12s)\n"
	if b.String() != want {
		t.Errorf("Summary wrote %q, want %q", b.String(), want)
	}
	b.Reset()
	res.Solver, res.SolverReason = train.SolverFull, "c1 = 0"
	Summary(&b, res)
	if !strings.HasSuffix(b.String(), "\nsolver: full (c1 = 0)\n") {
		t.Errorf("Summary of a handed-over solver wrote %q", b.String())
	}
}
