package main

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sparsetag/sparsetag/internal/numtest"
)

// reportFields are the fields every training report must have (issue 5).
var reportFields = []string{"alpha", "beta", "beta_max", "features", "screen", "epsilon", "iterations",
	"nonzero_final", "screened_final", "gap_final", "seconds_total", "seconds_screening"}

var iterationFields = []string{"iter", "primal", "gap", "active", "screened", "seconds"}

// checkTrainReport checks the fields of one training report and the
// invariants that hold whatever the data: a converged run ends with a gap
// below epsilon, and only zeros are screened, so screened <= d - nonzero.
func checkTrainReport(t *testing.T, what string, r map[string]any) {
	t.Helper()
	requireKeys(t, what, r, reportFields...)
	its, ok := r["iterations"].([]any)
	if !ok || len(its) == 0 {
		t.Fatalf("%s: iterations = %v, want a non-empty list", what, r["iterations"])
	}
	prev := -1.0
	for i, it := range its {
		obj, ok := it.(map[string]any)
		if !ok {
			t.Fatalf("%s: iteration %d is %T", what, i, it)
		}
		requireKeys(t, what+" iteration", obj, iterationFields...)
		// The full solver logs every iteration; the working-set solver logs
		// its full passes, each with the OWL-QN iterations done so far.
		got := num(t, obj, "iter")
		if (r["solver"] == "full" && got != float64(i)) || got < prev || (i == 0 && got != 0) {
			t.Errorf("%s: iteration %d has iter %v (previous %v)", what, i, got, prev)
		}
		prev = got
		if num(t, obj, "gap") < 0 {
			t.Errorf("%s: iteration %d has a negative gap", what, i)
		}
	}
	d, nz, sc := num(t, r, "features"), num(t, r, "nonzero_final"), num(t, r, "screened_final")
	if sc > d-nz {
		t.Errorf("%s: %v screened but only %v of %v weights are zero", what, sc, d-nz, d)
	}
	if r["converged"] == true && r["stop_reason"] == "gap" {
		last := its[len(its)-1].(map[string]any)
		rel, _ := r["rel_epsilon"].(float64)
		if g := num(t, r, "gap_final"); g > num(t, r, "epsilon") && g > rel*math.Abs(num(t, last, "primal")) {
			t.Errorf("%s: converged with gap %v > epsilon %v and > rel_epsilon %v x primal", what, g, r["epsilon"], rel)
		}
	}
	last := its[len(its)-1].(map[string]any)
	if num(t, last, "gap") != num(t, r, "gap_final") {
		t.Errorf("%s: gap_final %v is not the last iteration's gap %v", what, r["gap_final"], last["gap"])
	}
	if num(t, r, "seconds_screening") > num(t, r, "seconds_total") {
		t.Errorf("%s: screening time exceeds the total", what)
	}
}

func TestPathReportAndFigures(t *testing.T) {
	dir := t.TempDir()
	rep := filepath.Join(dir, "path.json")
	figs := filepath.Join(dir, "figs")
	const K = 4
	out := mustRun(t, "path", "--data", "syn1", "--scale", "0.02", "--betas", "4", "--min-ratio", "0.2",
		"--screen", "paper", "--report", rep, "--out", figs, "--threads", "2")
	// One printed line per beta, with the index first.
	lines := 0
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(l)
		if len(f) == 7 && f[0] >= "0" && f[0] <= "9" {
			lines++
		}
	}
	if lines != K {
		t.Errorf("printed %d beta lines, want %d:\n%s", lines, K, out)
	}

	r := readJSONMap(t, rep)
	requireKeys(t, "path report", r, "path", "beta_max", "screen", "alpha", "epsilon")
	if r["screen"] != "paper" {
		t.Errorf("screen = %v", r["screen"])
	}
	path, ok := r["path"].([]any)
	if !ok || len(path) != K {
		t.Fatalf("path has %d entries, want %d", len(path), K)
	}
	betaMax := num(t, r, "beta_max")
	if !(betaMax > 0) {
		t.Fatalf("beta_max = %v", betaMax)
	}
	for k, p := range path {
		obj := p.(map[string]any)
		checkTrainReport(t, "path beta "+string(rune('0'+k)), obj)
		// beta_k = beta_max * 0.2^(k/(K-1)): log-spaced, both ends included.
		want := betaMax * math.Pow(0.2, float64(k)/(K-1))
		if got := num(t, obj, "beta"); !numtest.Equal(got, want, 0, 1e-12) {
			t.Errorf("beta %d = %v, want %v", k, got, want)
		}
		if num(t, obj, "alpha") != 1 || num(t, obj, "epsilon") != 1e-6 {
			t.Errorf("beta %d: alpha %v epsilon %v", k, obj["alpha"], obj["epsilon"])
		}
	}
	// At beta_max, w = 0 is optimal: no non-zero weight.
	if nz := num(t, path[0].(map[string]any), "nonzero_final"); nz != 0 {
		t.Errorf("%v non-zeros at beta_max", nz)
	}
	for _, name := range []string{"syn1-paper-rejection.png", "syn1-paper-reservation.png"} {
		checkPNG(t, filepath.Join(figs, name))
	}
}

func TestPathFromFile(t *testing.T) {
	dir := t.TempDir()
	train := writeTinyCoNLL(t, dir)
	rep := filepath.Join(dir, "r.json")
	mustRun(t, "path", "--format", "conll", "--betas", "3", "--epsilon", "1e-5", "--report", rep, train)
	r := readJSONMap(t, rep)
	if p, _ := r["path"].([]any); len(p) != 3 {
		t.Fatalf("path has %d entries, want 3", len(p))
	}
	for _, p := range r["path"].([]any) {
		checkTrainReport(t, "conll path", p.(map[string]any))
	}
}

func TestPathUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"path"},                                   // no data
		{"path", "--data", "syn9"},                 // unknown set
		{"path", "--data", "syn1", "x.txt"},        // both
		{"path", "--data", "syn1", "--betas", "0"}, // bad K
		{"path", "--data", "syn1", "--scale", "2"}, // bad scale
		{"path", "--data", "syn1", "--min-ratio", "0"},
	} {
		if _, _, code := runTagger(t, args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
	// The paper's rule refuses chains with a message naming the Pinsker rule.
	_, errs, code := runTagger(t, "path", "--data", "ocr", "--scale", "0.005", "--betas", "2", "--screen", "paper")
	if code != 1 || !strings.Contains(errs, "pinsker") {
		t.Errorf("paper rule on a chain: exit %d, stderr %q", code, errs)
	}
}
