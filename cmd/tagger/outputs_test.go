package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/train"
)

// TestTrainChecksOutputsFirst: an output that cannot be written is a
// usage error (exit 2) before the data is read or anything is trained.
func TestTrainChecksOutputsFirst(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "no-such-dir")
	for _, flag := range []string{"--model", "--report", "--checkpoint", "--cpuprofile", "--memprofile"} {
		args := []string{"train", "--format", "conll", "--model", filepath.Join(dir, "m.model"), flag, filepath.Join(missing, "out"),
			filepath.Join(dir, "not-read-because-outputs-fail-first.txt")}
		_, errs, code := runTagger(t, args...)
		if code != 2 || !strings.Contains(errs, flag) {
			t.Errorf("%s in a missing directory: exit %d, stderr %q; want 2 naming the flag", flag, code, errs)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "m.model")); !os.IsNotExist(err) {
		t.Errorf("a model was written although an output was unwritable")
	}
}

// TestSaveModelBeforeReport: when the report cannot be written, the model
// is saved all the same and the error says so.
func TestSaveModelBeforeReport(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "m.model")
	m, err := chain.NewModel([]string{"a", "b"}, 1, 0, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	m.W[0] = 1
	tf := &trainFlags{model: model, report: filepath.Join(dir, "gone", "r.json"), quiet: true}
	res := &train.Result{Iterations: []train.Iteration{{Pass: true}}}
	err = tf.save(&env{ctx: context.Background(), stderr: &bytes.Buffer{}}, "data", m, res)
	if err == nil || !strings.Contains(err.Error(), "model is saved") {
		t.Fatalf("save with an unwritable report: %v; want an error saying the model is saved", err)
	}
	if _, err := chain.LoadFile(model); err != nil {
		t.Fatalf("the model was not saved: %v", err)
	}
}

// TestCheckpointLifecycle: --resume without a checkpoint starts fresh and
// says so; a finished run removes its checkpoint, --keep-checkpoint keeps
// it; a checkpoint that cannot be written is a warning, not a failure.
func TestCheckpointLifecycle(t *testing.T) {
	dir := t.TempDir()
	data := writeTinyCoNLL(t, dir)
	ckpt := filepath.Join(dir, "c.ckpt")
	base := []string{"train", "--format", "conll", "--epsilon", "1e-9", "--checkpoint", ckpt, "--checkpoint-every", "2", "--model", filepath.Join(dir, "m.model")}
	_, errs, code := runTagger(t, append(base, "--resume", data)...)
	if code != 0 || !strings.Contains(errs, "starting from the beginning") {
		t.Fatalf("--resume without a checkpoint: exit %d, stderr:\n%s", code, errs)
	}
	if _, err := os.Stat(ckpt); !os.IsNotExist(err) {
		t.Errorf("the checkpoint outlived a finished run")
	}
	mustRun(t, append(base, "--keep-checkpoint", data)...)
	if _, err := os.Stat(ckpt); err != nil {
		t.Errorf("--keep-checkpoint: %v", err)
	}
	_, errs, code = runTagger(t, append(base, "--resume", data)...)
	if code != 0 || !strings.Contains(errs, "resuming from "+ckpt+": iteration ") {
		t.Errorf("--resume with a checkpoint does not say so: exit %d, stderr:\n%s", code, errs)
	}

	var stderr bytes.Buffer
	tf := &trainFlags{ckpt: filepath.Join(dir, "gone", "c.ckpt"), ckptEvery: 1}
	var op train.Options
	if err := tf.checkpoint(&env{ctx: context.Background(), stderr: &stderr}, &op); err != nil {
		t.Fatal(err)
	}
	if err := op.Checkpoint(&train.Checkpoint{}); err != nil || !strings.Contains(stderr.String(), "warning: checkpoint not written") {
		t.Fatalf("failed checkpoint write: %v, stderr %q; want a warning and no error", err, stderr.String())
	}
}

// TestOutputsCheckedFirst: path, bench and convert refuse an output in a
// missing directory as a usage error before any work.
func TestOutputsCheckedFirst(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-such-dir", "out")
	for _, args := range [][]string{
		{"path", "--data", "syn1", "--scale", "0.01", "--report", missing},
		{"path", "--data", "syn1", "--scale", "0.01", "--out", filepath.Join(missing, "figs")},
		{"bench", "paper", "--json", missing},
		{"bench", "train", "--json", missing},
		{"convert", "--model", "no-such-model", "--out", missing},
	} {
		_, errs, code := runTagger(t, args...)
		if code != 2 || !strings.Contains(errs, "no-such-dir") {
			t.Errorf("tagger %s: exit %d, stderr %q; want a usage error naming the path", strings.Join(args, " "), code, errs)
		}
	}
}
