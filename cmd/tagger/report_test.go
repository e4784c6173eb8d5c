package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/internal/numtest"
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
	if got := num(t, r, "beta") / num(t, r, "beta_max"); !numtest.Equal(got, 0.3, 0, 1e-12) {
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
