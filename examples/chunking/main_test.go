package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sparsetag/sparsetag/chain"
)

// TestRunSmall runs the whole program on 50 training and 20 test sentences
// with a few iterations, so that the example keeps working as the API
// evolves. The counts were taken with awk from the embedded files: the first
// 50 training sentences hold 1,223 tokens and 13 distinct tags; the first 20
// test sentences hold 425 tokens and 196 B- tags (= chunks in IOB2).
func TestRunSmall(t *testing.T) {
	model := filepath.Join(t.TempDir(), "chunk.model")
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), []string{"-n", "50", "-test", "20", "-max-iter", "3", "-v", "-save", model, "-report"}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("run: %v\nstderr:\n%s", err, stderr.String())
	}
	out := stdout.String()
	for _, want := range []string{
		"train: 50 sentences, 1223 tokens, 13 labels,",
		"trained: 3 iterations (max-iter)",
		"wrote " + model,
		"test: 20 sentences, 425 tokens, 196 chunks",
		"processed 425 tokens with 196 phrases",
		"\naccuracy: ",
		"\nf1: ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(stderr.String(), "iter    3") {
		t.Errorf("-v printed no iteration 3:\n%s", stderr.String())
	}
	m, err := chain.LoadFile(model)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Labels) != 13 {
		t.Errorf("saved model has %d labels, want 13", len(m.Labels))
	}
}

func TestRunTemplateErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.template")
	if err := os.WriteFile(bad, []byte("U00:%x[0,0]\nU01:%x[0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), []string{"-template", bad, "-n", "5"}, &stdout, &stderr)
	if err == nil || !strings.HasPrefix(err.Error(), bad+":2:") {
		t.Errorf("bad template: err = %v, want one starting with %q", err, bad+":2:")
	}
	err = run(context.Background(), []string{"-template", filepath.Join(dir, "missing")}, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("missing template: err = %v", err)
	}
	if err := run(context.Background(), []string{"-n", "-1"}, &stdout, &stderr); err == nil {
		t.Error("-n -1 accepted")
	}
}
