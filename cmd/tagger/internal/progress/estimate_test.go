package progress

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/sparsetag/sparsetag/train"
)

// recordedRun is a training log recorded by tagger train --report
// (testdata/*.tsv: the report's iterations, seconds, gaps and objectives)
// with the options its estimate needs.
type recordedRun struct {
	lines               []train.Iteration
	maxIter             int
	epsilon, relEpsilon float64
}

// readRun reads testdata/name: comment lines, "# max-iter N, epsilon E,
// rel-epsilon R", then one line per log line: iteration, seconds, gap ("-"
// on inner iterations) and objective, tab-separated.
func readRun(t *testing.T, name string) recordedRun {
	t.Helper()
	f, err := os.Open("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var r recordedRun
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "# max-iter") {
			if _, err := fmt.Sscanf(line, "# max-iter %d, epsilon %g, rel-epsilon %g", &r.maxIter, &r.epsilon, &r.relEpsilon); err != nil {
				t.Fatalf("%s: %q: %v", name, line, err)
			}
		}
		if strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 4 {
			t.Fatalf("%s: line %q: want 4 fields", name, line)
		}
		var it train.Iteration
		var errs [3]error
		it.Iter, errs[0] = strconv.Atoi(f[0])
		it.Seconds, errs[1] = strconv.ParseFloat(f[1], 64)
		it.Primal, errs[2] = strconv.ParseFloat(f[3], 64)
		if f[2] != "-" {
			it.Pass = true
			it.Gap, err = strconv.ParseFloat(f[2], 64)
			errs[0] = firstErr(errs[0], err)
		}
		if err := firstErr(errs[:]...); err != nil {
			t.Fatalf("%s: line %q: %v", name, line, err)
		}
		r.lines = append(r.lines, it)
	}
	if err := sc.Err(); err != nil || len(r.lines) < 10 || r.maxIter == 0 {
		t.Fatalf("%s: %d lines, max-iter %d, %v", name, len(r.lines), r.maxIter, err)
	}
	return r
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// replay feeds the lines of r to an estimator and returns the estimate
// after each line.
func (r recordedRun) replay() []estimate {
	e := newEstimator(r.maxIter, r.epsilon, r.relEpsilon)
	out := make([]estimate, len(r.lines))
	for k, it := range r.lines {
		e.add(it)
		out[k] = e.remaining(it)
	}
	return out
}

// TestEstimateRecorded replays recorded runs and compares each estimate
// with the time the run actually had left (its last line's seconds minus
// the current line's), on the lines from a quarter to nine tenths of each
// run (before, the gap has too short a history; after, a second of error
// is a large factor):
//
//   - ocr-full.tsv (the full policy: a gap at every iteration, stopped by
//     the gap): every estimate within a factor of 2;
//   - the two CoNLL-2000 runs of the working-set policy (a gap every 25-50
//     iterations, 10-30 s apart; one stopped by the gap after 189 s, the
//     README's default run, one by --max-iter 150): at least two thirds
//     of the estimates within a factor of 2 and all within a factor of 4.
//     The misses follow the plateau of the gap between 10 s and 35 s (1.95
//     to 1.28, then 0.55 at 63 s and 0.02 at 103 s): no trend of the past
//     predicts that;
//   - every iteration bound (printed "<=" while the gap gives no
//     estimate) at least 0.8 times the truth: the iterations' cost varies
//     by 20-40% within a run, so it is an estimate of an upper bound;
//   - at 78 s of the README's run, where the old estimate said 3.9 s (110 s
//     were left): an estimate of at least half the truth;
//   - on every line before the target or max-iter is reached, never an
//     estimate of 0.
func TestEstimateRecorded(t *testing.T) {
	for _, c := range []struct {
		name     string
		minIn2   float64 // fraction of estimates within a factor of 2
		maxRatio float64 // largest factor allowed
	}{
		{"ocr-full.tsv", 1, 2},
		{"conll-workingset.tsv", 2.0 / 3, 4},
		{"conll-maxiter.tsv", 2.0 / 3, 4},
	} {
		r := readRun(t, c.name)
		est := r.replay()
		end := r.lines[len(r.lines)-1].Seconds
		var n, in2 int
		worst := 1.0
		for k, it := range r.lines {
			if it.Seconds < end/4 || it.Seconds > 0.9*end {
				continue
			}
			truth, e := end-it.Seconds, est[k]
			switch e.kind {
			case unknown:
				t.Errorf("%s line %d (%.1fs): no estimate", c.name, k, it.Seconds)
			case upperBound:
				if e.seconds < 0.8*truth {
					t.Errorf("%s line %d (%.1fs): iteration bound %.1fs, truth %.1fs", c.name, k, it.Seconds, e.seconds, truth)
				}
			case expected:
				n++
				ratio := math.Max(e.seconds/truth, truth/e.seconds)
				if ratio <= 2 {
					in2++
				}
				worst = math.Max(worst, ratio)
			}
		}
		t.Logf("%s: %d estimates, %d within a factor of 2, worst factor %.2f", c.name, n, in2, worst)
		if n == 0 || float64(in2) < c.minIn2*float64(n) || worst > c.maxRatio {
			t.Errorf("%s: %d of %d estimates within a factor of 2 (want %.0f%%), worst factor %.2f (want <= %g)",
				c.name, in2, n, 100*c.minIn2, worst, c.maxRatio)
		}
		e := newEstimator(r.maxIter, r.epsilon, r.relEpsilon)
		for k, it := range r.lines {
			e.add(it)
			if e.best <= e.target(it.Primal) || it.Iter >= r.maxIter {
				break
			}
			if est[k].kind == expected && est[k].seconds <= 0 {
				t.Errorf("%s line %d (%.1fs): estimate 0 with the gap above the target", c.name, k, it.Seconds)
			}
		}
		if c.name == "conll-workingset.tsv" {
			k := 0
			for r.lines[k].Seconds < 78 {
				k++
			}
			if truth := end - r.lines[k].Seconds; est[k].kind == unknown || est[k].seconds < truth/2 {
				t.Errorf("%s at %.1fs: estimate %s, truth %.1fs", c.name, r.lines[k].Seconds, est[k], truth)
			}
		}
	}
}

// TestFirstEstimate: the first line of a run that is not "estimating",
// against the time that was actually left. Issue 40 asks for a factor of
// 3; the iteration bound of the default 1000 iterations (the first line of
// the default run said "<=3m55s" for a run that ended 12 s later) is no
// longer printed that early. Met on the max-iter run; not yet on the other
// two, whose first gap fits come from three passes in the first second or
// two: the power law overshoots on ocr-full (68 s for 18 s), and the old
// working-set run's gap plateaus from 10 s to 35 s, which no fit of its
// first 2.4 s predicts. The bounds below are today's factors (a
// regression guard), not the target.
func TestFirstEstimate(t *testing.T) {
	for _, c := range []struct {
		name     string
		maxRatio float64
	}{
		{"ocr-full.tsv", 9},
		{"conll-workingset.tsv", 20},
		{"conll-maxiter.tsv", 3},
	} {
		r := readRun(t, c.name)
		est := r.replay()
		end := r.lines[len(r.lines)-1].Seconds
		k := 0
		for k < len(est) && est[k].kind == unknown {
			k++
		}
		if k == len(est) {
			t.Errorf("%s: never an estimate", c.name)
			continue
		}
		truth := end - r.lines[k].Seconds
		ratio := math.Max(est[k].seconds/truth, truth/est[k].seconds)
		t.Logf("%s: first estimate %s at line %d (%.1fs), truth %.1fs, factor %.2f", c.name, est[k], k, r.lines[k].Seconds, truth, ratio)
		if !(ratio <= c.maxRatio) {
			t.Errorf("%s: first estimate %s at %.1fs, truth %.1fs: factor %.2f, want <= %g", c.name, est[k], r.lines[k].Seconds, truth, ratio, c.maxRatio)
		}
	}
}
