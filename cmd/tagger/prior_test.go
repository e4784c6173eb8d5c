package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
