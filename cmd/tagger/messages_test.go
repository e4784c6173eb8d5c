package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMessagesSayWhereAndWhat: errors that users met name the file and
// line and say what to do.
func TestMessagesSayWhereAndWhat(t *testing.T) {
	dir := t.TempDir()
	file := writeTinyCoNLL(t, dir) // three columns: word, POS, chunk
	model := filepath.Join(dir, "m.model")
	tmpl := filepath.Join(dir, "wp.template")
	if err := os.WriteFile(tmpl, []byte("U00:%x[0,0]\nU01:%x[0,1]\nB\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mustRun(t, "train", "--quiet", "--format", "conll", "--template", tmpl, "--model", model, file)
	noLabel := filepath.Join(dir, "nolabel.txt") // word and POS, no chunk column
	if err := os.WriteFile(noLabel, []byte("He PRP\nreckons VBZ\n\nThe DT\npound NN\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty.template")
	if err := os.WriteFile(empty, []byte("# nothing\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"eval", "--format", "conll", "--model", model, noLabel},
			[]string{noLabel + ":1: sequence 1", "give eval a file with its label column"}},
		{[]string{"train", "--format", "conll", "--template", empty, "--model", filepath.Join(dir, "e.model"), file},
			[]string{empty + ": the template has no feature rule", "U lines"}},
	} {
		_, stderr, code := runTagger(t, tc.args...)
		if code == 0 {
			t.Errorf("tagger %s: exit 0", strings.Join(tc.args, " "))
		}
		for _, w := range tc.want {
			if !strings.Contains(stderr, w) {
				t.Errorf("tagger %s: stderr %q lacks %q", strings.Join(tc.args, " "), stderr, w)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "e.model")); err == nil {
		t.Error("a model was written for an empty template")
	}
}

// TestExplainReadsStdinByDefault: explain, like tag and eval, reads
// standard input when no file is given.
func TestExplainReadsStdinByDefault(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "m.model")
	mustRun(t, "train", "--quiet", "--format", "conll", "--model", model, writeTinyCoNLL(t, dir))
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"explain", "--format", "conll", "--model", model},
		strings.NewReader("He PRP\nreckons VBZ\n"), &out, &errb)
	if code != 0 || !strings.Contains(out.String(), "# sequence 1:") {
		t.Fatalf("explain without a file: exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
}
