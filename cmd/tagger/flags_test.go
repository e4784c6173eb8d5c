package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sparsetag/sparsetag/tagging"
)

// TestFlagValuesRefused: every flag value that makes no sense or cannot be
// served is a usage error (exit 2) naming the flag, reported before any
// data is read: the input file of each command line does not exist, so a
// command that read first would fail with exit 1 on it instead.
func TestFlagValuesRefused(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing.txt")
	model := filepath.Join(t.TempDir(), "m.model")
	train := func(args ...string) []string {
		return append(append([]string{"train", "--model", model}, args...), missing)
	}
	input := func(cmd string, args ...string) []string {
		return append(append([]string{cmd, "--model", missing}, args...), missing)
	}
	for _, c := range []struct {
		args []string
		want string // in stderr
	}{
		{train("--c1", "-5", "--c2", "1"), "--c1 -5"},
		{train("--c1", "-5"), "--c1 -5"},
		{train("--c1", "1", "--c2", "0", "--screen", "pinsker"), "derived with an L2 term"},
		{train("--c1", "NaN", "--c2", "1"), "--c1 NaN"},
		{train("--beta-ratio", "-1"), "--beta-ratio -1"},
		{train("--beta-ratio", "5"), "at or above beta_max"},
		{train("--c1", "1e300", "--c2", "1"), "c1 = 1e+300 is absurd"},
		{train("--c1", "1", "--c2", "1", "--beta-ratio", "0.01"), "both forms"},
		{train("--beta", "-1"), "--beta -1"},
		{train("--alpha", "-1"), "--alpha -1"},
		{train("--max-iter", "0"), "--max-iter 0"},
		{train("--epsilon", "-1"), "--epsilon -1"},
		{train("--rel-epsilon", "-1"), "--rel-epsilon -1"},
		{train("--delta", "-0.5"), "--delta -0.5"},
		{train("--solver", "newton"), `unknown solver "newton"`},
		{train("--screen", "euclid"), `unknown screening rule "euclid"`},
		{train("--format", "xml"), `unknown --format "xml"`},
		{train("--format", "text"), `unknown --format "text"`},
		{train("--folds", "1-x"), "--folds: bad fold"},
		{train("--valid-folds", "x"), "--valid-folds: bad fold"},
		{train("--threads", "0"), "--threads must be at least 1"},
		{train("--threads", "100000"), "--threads 100000: want at most"},
		{train("--memory", "0"), "--memory 0"},
		{train("--memory", "1000000000"), "--memory 1000000000"},
		{train("--memory-limit", "lots"), "--memory-limit"},
		{train("--min-freq", "-1"), "--min-freq -1"},
		{train("--patience", "0"), "--patience 0"},
		{train("--valid-every", "0"), "--valid-every 0"},
		{train("--checkpoint-every", "0"), "--checkpoint-every 0"},
		{train("--select-folds", "-2"), "--select-folds must be >= 2"},
		{train("--select-folds", "3", "--betas", "1000000"), "--betas"},
		{input("tag", "--format", "xml"), `unknown --format "xml"`},
		{input("tag", "--threads", "100000"), "--threads 100000"},
		{input("tag", "--memory-limit", "-1M"), "--memory-limit"},
		{input("tag", "--folds", "1-x"), "--folds"},
		{input("eval", "--format", "text"), `unknown --format "text"`},
		{input("eval", "--threads", "0"), "--threads must be at least 1"},
		{input("explain", "--format", "xml"), `unknown --format "xml"`},
		{[]string{"path", "--data", "syn9"}, `unknown --data "syn9"`},
		{[]string{"path", "--data", "syn1", "--screen", "euclid"}, `unknown screening rule "euclid"`},
		{[]string{"path", "--data", "syn1", "--solver", "newton"}, `unknown solver "newton"`},
		{[]string{"path", "--data", "syn1", "--epsilon", "0"}, "--epsilon 0"},
		{[]string{"path", "--data", "syn1", "--betas", "1000000"}, "--betas 1000000"},
		{[]string{"path", "--data", "syn1", "--alpha", "-1"}, "--alpha -1"},
		{[]string{"path", "--data", "syn1", "--gamma", "-1"}, "--gamma -1"},
		{[]string{"path", "--data", "syn1", "--max-iter", "0"}, "--max-iter 0"},
		{[]string{"path", "--data", "syn1", "--threads", "0"}, "--threads must be at least 1"},
		{[]string{"path", "--format", "xml", missing}, `unknown --format "xml"`},
		{[]string{"bench", "paper", "--threads", "100000"}, "--threads 100000"},
		{[]string{"bench", "paper", "--epsilon", "0"}, "--epsilon 0"},
		{[]string{"bench", "paper", "--betas", "1000000"}, "--betas 1000000"},
		{[]string{"bench", "screen", "--rules", "euclid"}, `unknown --rules entry "euclid"`},
		{[]string{"bench", "screen", "--data", "syn9"}, `unknown --data "syn9"`},
		{[]string{"bench", "screen", "--max-iter", "0"}, "--max-iter 0"},
		{[]string{"bench", "train", "--threads", "1,0"}, "--threads must be at least 1"},
		{[]string{"bench", "train", "--threads", "100000"}, "--threads 100000"},
		{[]string{"bench", "train", "--c2", "0"}, "--c2 0"},
		{[]string{"bench", "train", "--runs", "0"}, "--runs 0"},
		{[]string{"bench", "train", "--budget", "-1s"}, "--budget -1s"},
		{[]string{"bench", "train", "--data", "nope"}, `unknown --data "nope"`},
		{[]string{"demo", "--betas", "1000000"}, "--betas"},
	} {
		_, errs, code := runTagger(t, c.args...)
		if code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("tagger %s: exit %d, stderr %q; want exit 2 and %q", strings.Join(c.args, " "), code, errs, c.want)
		}
	}
}

// TestFlagInitRefused: --init from a model that shares no label, or no
// attribute, with the training data is refused with what differs; from a
// compatible model it is accepted, and from one whose labels only overlap
// it is accepted with a note naming the labels that start at zero and those
// dropped.
func TestFlagInitRefused(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(strings.Repeat(text, 5)), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	base := write("base.txt", "B-NP\tw=the\nI-NP\tw=dog\nB-VP\tw=runs\n\n")
	same := write("same.txt", "B-NP\tw=a\nI-NP\tw=dog\nB-VP\tw=sleeps\n\n")
	labels := write("labels.txt", "B-NP\tw=the\nI-NP\tw=dog\nO\tw=runs\n\n")
	disjoint := write("disjoint.txt", "B-PP\tw=the\nO\tw=dog\n\n")
	attrs := write("attrs.txt", "B-NP\tpos=DT\nI-NP\tpos=NN\nB-VP\tpos=VBZ\n\n")
	model := filepath.Join(dir, "base.model")
	trainArgs := func(data string, more ...string) []string {
		return append(append([]string{"train", "--format", "crfsuite", "--max-iter", "5", "--model", filepath.Join(dir, "out.model")}, more...), data)
	}
	mustRun(t, append(trainArgs(base, "--quiet"), "--model", model)...)
	mustRun(t, trainArgs(same, "--quiet", "--init", model)...)
	_, errs, code := runTagger(t, trainArgs(labels, "--init", model)...)
	if want := "init " + model + ": labels only the training data has start at zero: O; labels only " + model + " has are dropped: B-VP"; code != 0 || !strings.Contains(errs, want) {
		t.Errorf("--init on labels.txt: exit %d, stderr %q; want exit 0 and %q", code, errs, want)
	}
	for _, c := range []struct {
		data, want string
	}{
		{disjoint, "share no label (new: B-PP, O; initial: B-NP, I-NP, B-VP)"},
		{attrs, `share no attribute (new: 3, e.g. "pos=DT"; initial: 3, e.g. "w=the")`},
	} {
		_, errs, code := runTagger(t, trainArgs(c.data, "--quiet", "--init", model)...)
		if code != 2 || !strings.Contains(errs, "--init "+model+" does not fit the training data") || !strings.Contains(errs, c.want) {
			t.Errorf("--init on %s: exit %d, stderr %q; want exit 2 and %q", filepath.Base(c.data), code, errs, c.want)
		}
	}
}

// TestNbestBound: --nbest is bounded by the memory the n-best decoder
// needs (chain.NBestMemory) on every thread plus the results buffered:
// 10 million paths are refused up front (the run used to die with
// "fatal error: runtime: out of memory"), naming the flag, the estimate
// and the limit; under a limit that serves sequences of 1000 tokens but
// not 3000, a 3000-token sequence is refused (exit 1) while shorter ones
// are tagged.
func TestNbestBound(t *testing.T) {
	model := trainTagModel(t)
	missing := filepath.Join(t.TempDir(), "missing.txt")
	_, errs, code := runTagger(t, "tag", "--model", model, "--nbest", "10000000", missing)
	re := regexp.MustCompile(`^tagger tag: --nbest 10000000: the n-best decoder needs about [\d.]+ TiB for sequences of 1000 tokens over 4 labels on \d+ threads \(256 results buffered\), more than the limit [\d.]+ [KMGT]iB \(--memory-limit\)\n$`)
	if code != 2 || !re.MatchString(errs) {
		t.Fatalf("--nbest 10000000: exit %d, stderr %q; want exit 2 and %s", code, errs, re)
	}
	const n, L = 20, 4
	limit := int64(tagging.StreamNBestMemory(2000, L, n, 1))
	args := []string{"tag", "--model", model, "--nbest", fmt.Sprint(n), "--threads", "1", "--memory-limit", fmt.Sprint(limit), "-"}
	long := strings.Repeat("dog NN\n", 3000)
	short := strings.Repeat("dog NN\n", 1500)
	if _, errs, code := tagRun(t, model, long, args...); code != 1 || !strings.Contains(errs, "--nbest 20: stdin:1: sequence 1: chain: 20-best decoding of a sequence of 3000 positions over 4 labels needs about") ||
		!strings.Contains(errs, "--memory-limit serves sequences of up to 2000 tokens at --nbest 20") {
		t.Errorf("a 3000-token sequence at --nbest %d under %d bytes: exit %d, stderr %q", n, limit, code, errs)
	}
	if out, errs, code := tagRun(t, model, short, args...); code != 0 || strings.Count(out, "# nbest ") != n {
		t.Errorf("a 1500-token sequence at --nbest %d under %d bytes: exit %d, %d n-best lines, stderr %q", n, limit, code, strings.Count(out, "# nbest "), errs)
	}
	if _, errs, code := runTagger(t, "tag", "--model", model, "--nbest", "100", "--memory-limit", fmt.Sprint(limit), missing); code != 2 || !strings.Contains(errs, "--nbest 100: the n-best decoder needs about") {
		t.Errorf("--nbest 100 under %d bytes: exit %d, stderr %q", limit, code, errs)
	}
}

// TestVersion: tagger --version and tagger version print the module and Go
// versions (cmd/tagger/internal/version tests the line of a binary without build
// information, which says (devel)).
func TestVersion(t *testing.T) {
	re := regexp.MustCompile(`^tagger github\.com/sparsetag/sparsetag \S+ \(go[\d.]+\S*(, [0-9a-f]{12})?\)\n$`)
	for _, args := range [][]string{{"--version"}, {"version"}} {
		out, errs, code := runTagger(t, args...)
		if code != 0 || !re.MatchString(out) {
			t.Errorf("tagger %s: exit %d, stdout %q, stderr %q; want %s", args[0], code, out, errs, re)
		}
	}
}

// TestBenchHelp: bench -h lists the suites and the flags of each, not
// only bench paper's.
func TestBenchHelp(t *testing.T) {
	_, errs, code := runTagger(t, "bench", "-h")
	if code != 0 {
		t.Fatalf("bench -h: exit %d", code)
	}
	for _, want := range []string{"suites:", "  paper ", "  screen ", "  train ",
		"usage: tagger bench paper", "-pinsker-gamma", "usage: tagger bench screen", "-ratios", "usage: tagger bench train", "-budget", "-target-iter"} {
		if !strings.Contains(errs, want) {
			t.Errorf("bench -h lacks %q:\n%s", want, errs)
		}
	}
}

// TestBenchTrainProgress: bench train says up front how many solves it
// will run and how long they take at most (each stops at --budget), then
// reports every finished solve on stderr.
func TestBenchTrainProgress(t *testing.T) {
	_, errs, code := runTagger(t, "bench", "train", "--data", "syn1", "--scale", "0.01", "--threads", "1", "--budget", "5s", "--max-iter", "300")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, re := range []string{
		`(?m)^bench train: 2 solves \(1 data sets x 1 thread counts x 1 runs x 2 solvers\), each stopped after --budget 5s: at most about 10s, plus loading the data$`,
		`(?m)^bench train: solve 1/2: syn1, 1 threads, full solver, run 0: [\d.]+s, \d+ iterations, gap \S+ \(\S+\); \S+ elapsed, at most about 5s left$`,
		`(?m)^bench train: solve 2/2: syn1, 1 threads, working-set\S* solver, run 0: [\d.]+s, \d+ iterations, gap \S+ \(\S+\); \S+ elapsed$`,
	} {
		if !regexp.MustCompile(re).MatchString(errs) {
			t.Errorf("stderr lacks %s:\n%s", re, errs)
		}
	}
}
