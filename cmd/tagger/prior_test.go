package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sparsetag/sparsetag/corpora"
)

// TestTrainPrior: --prior keeps what the old model knew. A model trained
// on the tiny file tags it perfectly; a model trained on one new sentence
// (with a word and a label the old data lacks) with the old model as
// prior still does, and says so; from scratch on the new sentence it
// cannot. --prior with --init or --screen paper is a usage error.
func TestTrainPrior(t *testing.T) {
	dir := t.TempDir()
	data := writeTinyCoNLL(t, dir)
	old := filepath.Join(dir, "old.model")
	mustRun(t, "train", "--format", "conll", "--quiet", "--c1", "0.1", "--c2", "0.1", "--model", old, data)
	newData := filepath.Join(dir, "new.txt")
	if err := os.WriteFile(newData, []byte("Zebras NNS B-NP\nrun VBP B-VP\nfast RB B-ADVP\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	prior := filepath.Join(dir, "prior.model")
	_, stderr, code := runTagger(t, "train", "--format", "conll", "--c1", "0.1", "--c2", "0.1", "--prior", old, "--model", prior, newData)
	if code != 0 || !strings.Contains(stderr, "prior "+old+":") {
		t.Fatalf("--prior: exit %d, stderr:\n%s", code, stderr)
	}
	if out := mustRun(t, "eval", "--format", "conll", "--model", prior, data); !strings.Contains(out, "\nf1: 1.0000\n") {
		t.Fatalf("eval of the --prior model on the old data:\n%s", out)
	}
	scratch := filepath.Join(dir, "scratch.model")
	mustRun(t, "train", "--format", "conll", "--quiet", "--c1", "0.1", "--c2", "0.1", "--model", scratch, newData)
	if out := mustRun(t, "eval", "--format", "conll", "--model", scratch, data); strings.Contains(out, "\nf1: 1.0000\n") {
		t.Fatalf("the model from scratch on the new sentence tags the old data perfectly: a vacuous test\n%s", out)
	}
	for _, args := range [][]string{{"--init", old}, {"--screen", "paper"}} {
		a := append([]string{"train", "--format", "conll", "--prior", old, "--model", filepath.Join(dir, "x.model")}, args...)
		_, stderr, code := runTagger(t, append(a, newData)...)
		if code != 2 || !strings.Contains(stderr, "--prior") {
			t.Errorf("%v: exit %d, stderr %q; want 2 naming --prior", args, code, stderr)
		}
	}
}

// writeCoNLLRange writes sentences [from, to) of CoNLL-2000's training set
// to path.
func writeCoNLLRange(t *testing.T, path string, from, to int) {
	t.Helper()
	seqs, err := corpora.EmbeddedCoNLL2000("train")
	require.NoError(t, err)
	var b bytes.Buffer
	for _, s := range seqs[from:to] {
		require.NoError(t, corpora.WriteCoNLL(&b, s))
	}
	require.NoError(t, os.WriteFile(path, b.Bytes(), 0o644))
}

// TestTrainPriorSelect: --select and --select-folds take --prior
// (docs/prior.md section 8): the path starts at the old model itself (its
// first row's dev score is the old model's F1 on the dev file), the saved
// model is the chosen row's, and cross-validation runs and refits.
func TestTrainPriorSelect(t *testing.T) {
	dir := t.TempDir()
	oldData, newData, dev := filepath.Join(dir, "old.txt"), filepath.Join(dir, "new.txt"), filepath.Join(dir, "dev.txt")
	writeCoNLLRange(t, oldData, 0, 150)
	writeCoNLLRange(t, newData, 150, 210)
	writeCoNLLRange(t, dev, 210, 250)
	old, model, report := filepath.Join(dir, "old.model"), filepath.Join(dir, "sel.model"), filepath.Join(dir, "sel.json")
	mustRun(t, "train", "--format", "conll", "--quiet", "--threads", "1", "--model", old, oldData)
	sel := []string{"train", "--format", "conll", "--quiet", "--threads", "1", "--prior", old, "--c1", "1", "--c2", "1",
		"--betas", "5", "--select-floor", "0.01", "--select-hard-floor", "0", "--patience", "5"}
	out := mustRun(t, append(sel, "--select", dev, "--model", model, "--report", report, newData)...)
	rep := readJSONMap(t, report)
	path := rep["path"].([]any)
	require.Len(t, path, 5, "patience 5: the whole grid\n%s", out)
	first, chosen := path[0].(map[string]any), path[int(num(t, rep, "chosen"))].(map[string]any)
	oldEval := mustRun(t, "eval", "--format", "conll", "--model", old, dev)
	assert.Contains(t, oldEval, fmt.Sprintf("\nf1: %.4f\n", num(t, first, "dev_score")), "beta_max: the old model itself")
	ev := mustRun(t, "eval", "--format", "conll", "--model", model, dev)
	assert.Contains(t, ev, fmt.Sprintf("\nf1: %.4f\n", num(t, chosen, "dev_score")), "the saved model is the chosen one")

	out = mustRun(t, append(sel, "--select-folds", "2", "--model", filepath.Join(dir, "cv.model"), newData)...)
	assert.Contains(t, out, "refit on all 60 sequences")
}
