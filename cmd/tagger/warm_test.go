package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sparsetag/sparsetag/train"
)

// TestTrainWarmEpochs: --warm-epochs N runs the stochastic warm start and
// says so (epochs and time) before the summary; by default it runs
// train.DefaultWarmEpochs epochs and --warm-epochs 0 none; a negative
// count is a usage error that names the flag.
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
	if w, i := strings.Index(stderr, "warm start:"), strings.Index(stderr, "iter    0"); i < 0 || w > i {
		t.Fatalf("the warm start line comes after the iterations it started (or no iteration 0):\n%s", stderr)
	}
	_, stderr, code = runTagger(t, "train", "--format", "conll", "--model", model, file)
	if code != 0 || !strings.Contains(stderr, fmt.Sprintf("warm start: %d SGD epochs", train.DefaultWarmEpochs)) {
		t.Fatalf("default: exit %d, no warm start line in:\n%s", code, stderr)
	}
	_, stderr, code = runTagger(t, "train", "--format", "conll", "--warm-epochs", "0", "--model", model, file)
	if code != 0 || strings.Contains(stderr, "warm start:") {
		t.Fatalf("--warm-epochs 0: exit %d, a warm start ran:\n%s", code, stderr)
	}
	_, stderr, code = runTagger(t, "train", "--warm-epochs", "-1", "--model", model, file)
	if code != 2 || !strings.Contains(stderr, "--warm-epochs -1") {
		t.Fatalf("--warm-epochs -1: exit %d, stderr %q; want 2 naming the flag", code, stderr)
	}
}

// TestTrainThreadsSameModel: the model file does not depend on --threads
// (1, 2, 3) on real data (CoNLL-2000 sentences and template), the warm
// start and the solve included; 600 sentences, so that at 2 and 3 threads
// the corpus is encoded in parts (dataset.EncodeTrainingThreads).
func TestTrainThreadsSameModel(t *testing.T) {
	dir := t.TempDir()
	data := writeDominantCoNLL(t, dir, "train", 600, "NP")
	var ref []byte
	for _, threads := range []string{"1", "2", "3"} {
		model := filepath.Join(dir, "t"+threads+".model")
		_, stderr, code := runTagger(t, "train", "--format", "conll", "--template", "embedded:conll2000/chunking.template",
			"--c1", "1", "--c2", "1", "--max-iter", "3", "--threads", threads, "--model", model, data)
		if code != 0 || !strings.Contains(stderr, fmt.Sprintf("warm start: %d SGD epochs", train.DefaultWarmEpochs)) {
			t.Fatalf("--threads %s: exit %d, no warm start in:\n%s", threads, code, stderr)
		}
		b, err := os.ReadFile(model)
		if err != nil {
			t.Fatal(err)
		}
		if ref == nil {
			ref = b
		} else if !bytes.Equal(ref, b) {
			t.Fatalf("--threads %s: the model differs from --threads 1's", threads)
		}
	}
}
