package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestTrainWarmEpochs: --warm-epochs N runs the stochastic warm start and
// says so (epochs and time) before the summary; a negative count is a
// usage error that names the flag.
func TestTrainWarmEpochs(t *testing.T) {
	dir := t.TempDir()
	file := writeTinyCoNLL(t, dir)
	model := filepath.Join(dir, "warm.model")
	_, stderr, code := runTagger(t, "train", "--format", "conll", "--warm-epochs", "2", "--model", model, file)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "warm start: 2 SGD epochs") || !strings.Contains(stderr, "s before the solve") {
		t.Fatalf("no warm start line in:\n%s", stderr)
	}
	_, stderr, code = runTagger(t, "train", "--warm-epochs", "-1", "--model", model, file)
	if code != 2 || !strings.Contains(stderr, "--warm-epochs -1") {
		t.Fatalf("--warm-epochs -1: exit %d, stderr %q; want 2 naming the flag", code, stderr)
	}
}
