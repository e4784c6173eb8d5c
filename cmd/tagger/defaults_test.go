package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sparsetag/sparsetag/dataset"
	"github.com/sparsetag/sparsetag/train"
)

// TestTrainDefaultsAreTheLibrarys: tagger train with no training flags and
// train.Train with the zero Options train the same model, byte for byte
// (one source of every default).
func TestTrainDefaultsAreTheLibrarys(t *testing.T) {
	dir := t.TempDir()
	file := writeTinyCoNLL(t, dir)
	model := filepath.Join(dir, "cli.model")
	mustRun(t, "train", "--quiet", "--format", "conll", "--model", model, file)
	cli, err := os.ReadFile(model)
	if err != nil {
		t.Fatal(err)
	}

	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	exs, err := dataset.Read(file, bytes.NewReader(src), dataset.Options{Format: dataset.CoNLL, Labeled: true})
	if err != nil {
		t.Fatal(err)
	}
	enc, err := dataset.NewEncoder(dataset.CoNLL, nil)
	if err != nil {
		t.Fatal(err)
	}
	m, c, err := dataset.NewTrainingModel(enc, exs, 1)
	if err != nil {
		t.Fatal(err)
	}
	res, err := train.Train(context.Background(), m, c, train.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Solver != train.SolverWorkingSet && res.SolverReason == "requested" {
		t.Fatalf("the zero Options ran %s (%s), want the working set", res.Solver, res.SolverReason)
	}
	lib, err := m.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(cli, lib) {
		t.Fatalf("tagger train's default model (%d bytes) differs from train.Train with zero Options (%d bytes)", len(cli), len(lib))
	}
}

// TestTrainDefaultPenalty: with no penalty flag, train uses the sum form
// c1 = c2 = 1 (beta = 1/n, alpha = 2), and a penalty that zeroes every
// weight trains but says so on stderr and in the report.
func TestTrainDefaultPenalty(t *testing.T) {
	dir := t.TempDir()
	file := writeTinyCoNLL(t, dir) // 4 sentences
	rep := filepath.Join(dir, "r.json")
	mustRun(t, "train", "--quiet", "--format", "conll", "--model", filepath.Join(dir, "m.model"), "--report", rep, file)
	r := readJSONMap(t, rep)
	if num(t, r, "beta") != 0.25 || num(t, r, "alpha") != 2 {
		t.Errorf("default penalty: beta %v, alpha %v; want 0.25 (c1/n) and 2 (2 c2/c1)", r["beta"], r["alpha"])
	}
	if _, ok := r["warnings"]; ok {
		t.Errorf("warnings for the default penalty: %v", r["warnings"])
	}
	_, stderr, code := runTagger(t, "train", "--quiet", "--format", "conll", "--c1", "1e9", "--c2", "1",
		"--model", filepath.Join(dir, "z.model"), "--report", rep, file)
	if code != 0 || !strings.Contains(stderr, "warning: the L1 penalty") {
		t.Errorf("--c1 1e9: exit %d, stderr %q; want 0 and a warning", code, stderr)
	}
	if w, ok := readJSONMap(t, rep)["warnings"].([]any); !ok || len(w) != 1 {
		t.Errorf("--c1 1e9: report warnings %v", readJSONMap(t, rep)["warnings"])
	}
}
