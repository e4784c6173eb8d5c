package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/sparsetag/sparsetag/dataset"
)

// TestDemoSmall runs the demo on the smallest fold with a two-value path and
// checks the lines scripts read, and that letters are drawn.
func TestDemoSmall(t *testing.T) {
	out := mustRun(t, "demo", "--train-folds", "0", "--test-folds", "1", "--betas", "2", "--min-ratio", "0.05", "--show", "1")
	for _, re := range []string{`(?m)^accuracy: 0\.\d{4}$`, `(?m)^f1: 0\.\d{4}$`, `(?m)^word accuracy: 0\.\d{4}$`, `█`, `(?m)^true: \w+   predicted: \w+$`} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Fatalf("demo output lacks %s:\n%s", re, out)
		}
	}
	acc, _ := strconv.ParseFloat(regexp.MustCompile(`(?m)^accuracy: (\S+)$`).FindStringSubmatch(out)[1], 64)
	// 26 letters: a model that learned nothing scores about 1/26 (0.04); the
	// weakest model of the full README's experiments scores above 0.5.
	if acc < 0.3 {
		t.Fatalf("demo letter accuracy %.4f: training did not work", acc)
	}
}

// TestTrainEvalDumpCoNLL trains on a small CoNLL file, evaluates and dumps,
// and checks the script-readable lines and the TSV layout.
func TestTrainEvalDumpCoNLL(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "train.txt")
	var b strings.Builder
	for i := 0; i < 20; i++ {
		b.WriteString("He PRP B-NP\nreckons VBZ B-VP\nthe DT B-NP\ndeficit NN I-NP\n. . O\n\n")
		b.WriteString("The DT B-NP\ndog NN I-NP\nbarks VBZ B-VP\n\n")
	}
	if err := os.WriteFile(data, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	model := filepath.Join(dir, "m.model")
	mustRun(t, "train", "--format", "conll", "--quiet", "--beta-ratio", "0.05", "--model", model, data)
	out := mustRun(t, "eval", "--format", "conll", "--model", model, data)
	if !strings.Contains(out, "\naccuracy: 1.0000\n") || !strings.Contains(out, "\nf1: 1.0000\n") {
		t.Fatalf("eval on the training data of a separable toy set:\n%s", out)
	}
	dump := mustRun(t, "dump", "--model", model)
	for _, line := range strings.Split(strings.TrimSpace(dump), "\n") {
		f := strings.Split(line, "\t")
		if !(f[0] == "state" && len(f) == 4) && !(f[0] == "trans" && len(f) == 4) {
			t.Fatalf("dump line %q: want state|trans with 4 fields", line)
		}
		if _, err := strconv.ParseFloat(f[3], 64); err != nil {
			t.Fatalf("dump line %q: weight: %v", line, err)
		}
	}
	// Continued training from the model reaches the same predictions.
	model2 := filepath.Join(dir, "m2.model")
	mustRun(t, "train", "--format", "conll", "--quiet", "--beta-ratio", "0.05", "--init", model, "--model", model2, data)
	if out := mustRun(t, "eval", "--format", "conll", "--model", model2, data); !strings.Contains(out, "\nf1: 1.0000\n") {
		t.Fatalf("eval after --init:\n%s", out)
	}
	// Early stopping on a validation set.
	_, errs, code := runTagger(t, "train", "--format", "conll", "--beta-ratio", "0.01", "--valid", data, "--valid-every", "2",
		"--patience", "1", "--model", filepath.Join(dir, "m3.model"), data)
	if code != 0 || !regexp.MustCompile(`(?m)^validation at iteration \d+: f1 [\d.]+ \(best `).MatchString(errs) {
		t.Fatalf("--valid: exit %d, stderr:\n%s", code, errs)
	}
	// Input of a format the model cannot read is a usage error, not empty output.
	if _, errs, code := runTagger(t, "tag", "--format", "crfsuite", "--model", model, data); code != 2 || !strings.Contains(errs, "does not fit this model") {
		t.Fatalf("crfsuite input for a template model: exit %d, stderr %q", code, errs)
	}
	// Fold numbers are bounded.
	if _, errs, code := runTagger(t, "train", "--format", "ocr", "--folds", "0-9223372036854775807", "--model", model, data); code == 0 || !strings.Contains(errs, "bad fold range") {
		t.Fatalf("huge fold range: exit %d, stderr %q", code, errs)
	}
	// Usage errors exit 2, failures exit 1.
	if _, _, code := runTagger(t, "train", "--bogus"); code != 2 {
		t.Fatalf("unknown flag: exit %d, want 2", code)
	}
	if _, errs, code := runTagger(t, "eval", "--model", filepath.Join(dir, "missing.model"), data); code != 1 || !strings.Contains(errs, "missing.model") {
		t.Fatalf("missing model: exit %d, stderr %q", code, errs)
	}
}

// TestSequenceLengthLimit: a file without blank lines between sentences
// becomes one huge sequence; it is refused with file and line.
func TestSequenceLengthLimit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "long.txt")
	var b strings.Builder
	b.WriteString("\n\n")
	for i := 0; i <= dataset.MaxSequenceLen; i++ {
		b.WriteString("w N O\n")
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errs, code := runTagger(t, "train", "--format", "conll", "--quiet", "--model", filepath.Join(t.TempDir(), "m"), path)
	if code != 1 || !strings.Contains(errs, path+":3: sequence of 100001 positions") {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
}
