package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTrainPartial: --partial reads label sets and the unknown marker,
// says in its output that the objective is not convex and stops on the
// Delta rule; a set that admits no labeling is an error naming the file
// and line; gap targets and screening are refused; -h says it is not
// convex; --unknown-label changes the marker.
func TestTrainPartial(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "partial.txt")
	src := "He PRP B-NP\nreckons VBZ ?\nthe DT B-NP|I-NP\ndeficit NN I-NP\n. . O\n\nThe DT B-NP\npound NN ?\nfell VBD B-VP\n. . O\n"
	if err := os.WriteFile(data, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	model := filepath.Join(dir, "p.model")
	_, stderr, code := runTagger(t, "train", "--format", "conll", "--partial", "--model", model, data)
	if code != 0 || !strings.Contains(stderr, "non-convex") || !strings.Contains(stderr, "2 of 9 tokens unknown") || !strings.Contains(stderr, "stopped (delta)") {
		t.Fatalf("--partial: exit %d, stderr:\n%s", code, stderr)
	}
	if out := mustRun(t, "eval", "--format", "conll", "--model", model, writeTinyCoNLL(t, dir)); !strings.Contains(out, "f1:") {
		t.Fatalf("eval of the partial-label model:\n%s", out)
	}
	alt := filepath.Join(dir, "alt.txt")
	if err := os.WriteFile(alt, []byte(strings.ReplaceAll(src, " ?\n", " _\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := runTagger(t, "train", "--format", "conll", "--partial", "--unknown-label", "_", "--model", model, alt); code != 0 || !strings.Contains(stderr, "2 of 9 tokens unknown (\"_\")") {
		t.Fatalf("--unknown-label _: exit %d, stderr:\n%s", code, stderr)
	}
	bad := filepath.Join(dir, "bad.txt")
	if err := os.WriteFile(bad, []byte("He PRP B-NP\nreckons VBZ B-VP|\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := runTagger(t, "train", "--format", "conll", "--partial", "--model", model, bad); code != 1 || !strings.Contains(stderr, bad+":2:") {
		t.Fatalf("a set with no labeling: exit %d, stderr %q; want 1 naming %s:2", code, stderr, bad)
	}
	for _, flag := range [][]string{{"--screen", "pinsker"}, {"--rel-epsilon", "1e-3"}, {"--solver", "working-set"}} {
		args := append([]string{"train", "--format", "conll", "--partial", "--model", model}, flag...)
		if _, stderr, code := runTagger(t, append(args, data)...); code != 2 || !strings.Contains(stderr, "non-convex") {
			t.Errorf("--partial %v: exit %d, stderr %q; want 2, non-convex", flag, code, stderr)
		}
	}
	if _, stderr, _ := runTagger(t, "train", "-h"); !strings.Contains(stderr, "NOT CONVEX") {
		t.Errorf("train -h does not say that --partial is not convex")
	}
}
