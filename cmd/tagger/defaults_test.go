package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
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
	enc, err := dataset.NewEncoder(dataset.CoNLL, "")
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
