package main

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sparsetag/sparsetag/chain"
)

// writeTinyCoNLL writes a small labeled corpus in CoNLL columns.
func writeTinyCoNLL(t *testing.T, dir string) string {
	t.Helper()
	src := `He PRP B-NP
reckons VBZ B-VP
the DT B-NP
deficit NN I-NP
. . O

The DT B-NP
pound NN I-NP
fell VBD B-VP
. . O

Prices NNS B-NP
rose VBD B-VP
sharply RB O
. . O

the DT B-NP
current JJ I-NP
account NN I-NP
rose VBD B-VP
`
	p := filepath.Join(dir, "train.txt")
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestTrainReport(t *testing.T) {
	dir := t.TempDir()
	train := writeTinyCoNLL(t, dir)
	rep := filepath.Join(dir, "train.json")
	model := filepath.Join(dir, "m.model")
	mustRun(t, "train", "--quiet", "--format", "conll", "--beta-ratio", "0.3", "--epsilon", "1e-8",
		"--report", rep, "--model", model, train)
	r := readJSONMap(t, rep)
	checkTrainReport(t, "train", r)
	if r["screen"] != "pinsker" || r["data"] != train {
		t.Errorf("screen %v, data %v", r["screen"], r["data"])
	}
	if got := num(t, r, "beta") / num(t, r, "beta_max"); !approxEqual(got, 0.3, 0, 1e-12) {
		t.Errorf("beta/beta_max = %v, want 0.3", got)
	}
	// The report's non-zero count is the saved model's, counted here.
	m, err := chain.LoadFile(model)
	if err != nil {
		t.Fatal(err)
	}
	nz := 0
	for _, w := range m.W {
		if w != 0 {
			nz++
		}
	}
	if got := num(t, r, "nonzero_final"); got != float64(nz) {
		t.Errorf("nonzero_final = %v, model has %d", got, nz)
	}
}

func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.json")
	if err := writeJSONAtomic(p, map[string]int{"a": 1}); err != nil {
		t.Fatal(err)
	}
	// A failing writer leaves the existing file and no temporary behind.
	err := writeFileAtomic(p, func(w io.Writer) error {
		io.WriteString(w, "partial")
		return errors.New("boom")
	})
	if err == nil || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("err = %v", err)
	}
	b, _ := os.ReadFile(p)
	if string(b) != "{\n  \"a\": 1\n}\n" {
		t.Errorf("file changed to %q", b)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("directory holds %d entries, want 1", len(ents))
	}
	// A report that cannot be written is an error, not a silent success.
	if err := writeJSONAtomic(filepath.Join(dir, "no", "such", "dir.json"), 1); err == nil {
		t.Error("writing into a missing directory succeeded")
	}
}

func TestScreeningRatios(t *testing.T) {
	// d = 10 features, 2 non-zero at the end, so d* = 8.
	res := &chain.Result{Dimension: 10, NonZero: 2, Iterations: []chain.Iteration{
		{Iter: 0, Screened: 0}, {Iter: 1, Screened: 4}, {Iter: 2, Screened: 8},
	}}
	x, rej, resv := screeningRatios(res)
	wantX, wantRej, wantResv := []float64{0, 1, 2}, []float64{0, 0.5, 1}, []float64{1, 0.6, 0.2}
	for i := range wantX {
		if len(x) != 3 || len(rej) != 3 || len(resv) != 3 {
			t.Fatalf("lengths %d %d %d", len(x), len(rej), len(resv))
		}
		if x[i] != wantX[i] || !approxEqual(rej[i], wantRej[i], 1e-15, 0) || !approxEqual(resv[i], wantResv[i], 1e-15, 0) {
			t.Errorf("iteration %d: %v %v %v", i, x[i], rej[i], resv[i])
		}
	}
	// No zero in the solution: no rejection ratio.
	_, rej, _ = screeningRatios(&chain.Result{Dimension: 3, NonZero: 3, Iterations: []chain.Iteration{{}}})
	if rej != nil {
		t.Errorf("rejection %v with d* = 0", rej)
	}
}

func TestMeanRejection(t *testing.T) {
	two := []chain.Iteration{{}, {}}
	res := []*chain.Result{
		{Dimension: 10, NonZero: 0, Screened: 0, Iterations: two[:1]}, // beta_max: no iteration, skipped
		{Dimension: 10, NonZero: 2, Screened: 8, Iterations: two},     // 1
		{Dimension: 10, NonZero: 6, Screened: 2, Iterations: two},     // 0.5
		{Dimension: 10, NonZero: 10, Iterations: two},                 // d* = 0, skipped
	}
	got, ok := meanRejection(res)
	if !ok || !approxEqual(got, 0.75, 1e-15, 0) {
		t.Errorf("meanRejection = %v, %v; want 0.75", got, ok)
	}
	if _, ok := meanRejection(res[:1]); ok {
		t.Error("no eligible beta, but a mean")
	}
}

func TestCompareSolutions(t *testing.T) {
	// alpha beta = 0.5; gaps 1e-4 and 4e-4: bound = sqrt(4e-4) + sqrt(16e-4) = 0.02 + 0.04.
	r0 := &chain.Result{Alpha: 1, Beta: 0.5, Gap: 1e-4, Epsilon: 1e-6}
	r1 := &chain.Result{Alpha: 1, Beta: 0.5, Gap: 4e-4, Epsilon: 1e-6}
	base := &ruleOutcome{ws: [][]float64{{0, 0}, {1, 2}}, results: []*chain.Result{r0, r0}}
	o := &ruleOutcome{ws: [][]float64{{0, 0}, {1.03, 1.96}}, results: []*chain.Result{r1, r1}}
	maxDiff, tol, ratio := compareSolutions(base, o)
	// ||dw||_2 = 0.05, max |dw| = 0.04, tolerance sqrt(2e-6/0.5) = 2e-3.
	if !approxEqual(maxDiff, 0.04, 1e-12, 0) || !approxEqual(tol, 2e-3, 1e-15, 0) || !approxEqual(ratio, 0.05/0.06, 1e-12, 0) {
		t.Errorf("compareSolutions = %v, %v, %v", maxDiff, tol, ratio)
	}
	// Different betas never compare as equal.
	o.results = []*chain.Result{r1, {Alpha: 1, Beta: 0.4, Gap: 4e-4}}
	if _, _, ratio := compareSolutions(base, o); ratio <= 1 {
		t.Errorf("mismatched betas gave ratio %v", ratio)
	}
}
