package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/sparsetag/sparsetag/internal/numtest"
)

func TestBenchPaper(t *testing.T) {
	dir := t.TempDir()
	js := filepath.Join(dir, "bench.json")
	figs := filepath.Join(dir, "figs")
	out := mustRun(t, "bench", "paper", "--data", "syn1,ocr,ocr-letters", "--scale", "0.01", "--betas", "3",
		"--json", js, "--out", figs, "--threads", "2")
	for _, want := range []string{"solver(s)", "speedup", "(paper)", "rule paper skipped"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	r := readJSONMap(t, js)
	rows, ok := r["rows"].([]any)
	if !ok {
		t.Fatalf("rows = %v", r["rows"])
	}
	want := map[string][]string{"syn1": {"none", "paper", "pinsker", "pinsker-ws"}, "ocr": {"none", "pinsker", "pinsker-ws"}, "ocr-letters": {"none", "paper", "pinsker", "pinsker-ws"}}
	got := map[string][]string{}
	for _, x := range rows {
		row := x.(map[string]any)
		data, rule := row["data"].(string), row["rule"].(string)
		got[data] = append(got[data], rule)
		what := data + "/" + rule
		requireKeys(t, what, row, "data", "rule", "solver_s")
		if rule == "none" {
			for _, k := range []string{"screening_s", "with_screening_s", "speedup", "rejection_final", "max_weight_diff"} {
				if _, ok := row[k]; ok {
					t.Errorf("%s has %q", what, k)
				}
			}
			if num(t, row, "solver_s") <= 0 {
				t.Errorf("%s: solver time %v", what, row["solver_s"])
			}
			continue
		}
		requireKeys(t, what, row, "screening_s", "with_screening_s", "speedup", "rejection_final", "max_weight_diff", "tolerance", "diff_over_bound", "solver", "ratio")
		if wantRatio := map[bool]string{true: "best-solver", false: "same-solver"}[rule == "pinsker-ws"]; row["ratio"] != wantRatio {
			t.Errorf("%s: ratio %v, want %s", what, row["ratio"], wantRatio)
		}
		solver, with, speedup := num(t, row, "solver_s"), num(t, row, "with_screening_s"), num(t, row, "speedup")
		if !numtest.Equal(speedup*with, solver, 0, 1e-9) {
			t.Errorf("%s: speedup %v != %v / %v", what, speedup, solver, with)
		}
		if s := num(t, row, "screening_s"); s < 0 || s > with {
			t.Errorf("%s: screening %v of %v", what, s, with)
		}
		if rej := num(t, row, "rejection_final"); rej < 0 || rej > 1 {
			t.Errorf("%s: rejection ratio %v outside [0, 1] (a non-zero weight was screened?)", what, rej)
		}
		// Safety: each model is within sqrt(2G/(alpha beta)) <= tolerance of
		// the optimum, so they differ by at most the sum of both.
		if b := num(t, row, "diff_over_bound"); b > 1 {
			t.Errorf("%s: weights differ by %v times the gap bound", what, b)
		}
		if d, tol := num(t, row, "max_weight_diff"), num(t, row, "tolerance"); !(d <= 2*tol) {
			t.Errorf("%s: max weight difference %v > 2 * tolerance %v", what, d, tol)
		}
	}
	for data, rules := range want {
		if strings.Join(got[data], ",") != strings.Join(rules, ",") {
			t.Errorf("%s: rows for rules %v, want %v", data, got[data], rules)
		}
	}
	for _, data := range []string{"syn1", "ocr", "ocr-letters"} {
		for _, kind := range []string{"rejection", "reservation"} {
			checkPNG(t, filepath.Join(figs, data+"-"+kind+".png"))
		}
	}
}

func TestBenchUsage(t *testing.T) {
	for _, args := range [][]string{
		{"bench"},
		{"bench", "nope"},
		{"bench", "paper", "--data", "syn7"},
		{"bench", "paper", "--rules", "euclid"},
		{"bench", "paper", "--rules", "paper-ws"},
		{"bench", "paper", "--scale", "0"},
		{"bench", "paper", "extra"},
	} {
		if _, _, code := runTagger(t, args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
	if _, _, code := runTagger(t, "bench", "paper", "-h"); code != 0 {
		t.Errorf("-h: exit %d", code)
	}
}
