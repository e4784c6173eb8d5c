package main

import (
	"bufio"
	"compress/gzip"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// peerData holds the models of CRFsuite, CRF++ and Wapiti and their own
// tagging outputs (peer/testdata/README.peer-models.md).
const peerData = "../../peer/testdata"

// lastFields returns the last whitespace-separated field of every
// non-blank line: the label of a conll-style output line.
func lastFields(text string) []string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "@") {
			continue
		}
		out = append(out, f[len(f)-1])
	}
	return out
}

func gunzipFile(t *testing.T, name string) string {
	t.Helper()
	f, err := os.Open(filepath.Join(peerData, name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if _, err := bufio.NewReader(zr).WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestTagPeerModels: tag --model with a model of each peer toolkit prints
// exactly the labels the toolkit's own tagger printed, from a file and from
// standard input, on one and two threads.
func TestTagPeerModels(t *testing.T) {
	colInput := filepath.Join(peerData, "test.txt.gz")
	for _, tc := range []struct {
		name, model, input, want string
		extra                    []string
	}{
		{"crfsuite", "conll.crfsuite.gz", filepath.Join(peerData, "test.crfsuite.gz"), "crfsuite.tags.gz", nil},
		{"crfsuite-format", "conll.crfsuite.gz", filepath.Join(peerData, "test.crfsuite.gz"), "crfsuite.tags.gz", []string{"--format", "crfsuite"}},
		{"crfpp-binary", "conll.crfpp.gz", colInput, "crfpp.labels.gz", nil},
		{"crfpp-text", "conll.crfpp.txt.gz", colInput, "crfpp.labels.gz", []string{"--threads", "1"}},
		{"wapiti", "conll.wapiti.gz", colInput, "wapiti.labels.gz", nil},
		{"wapiti-stdin", "conll.wapiti.gz", "", "wapiti.labels.gz", []string{"--threads", "2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdin := ""
			args := append([]string{"tag", "--model", filepath.Join(peerData, tc.model)}, tc.extra...)
			if tc.input == "" {
				stdin = gunzipFile(t, "test.txt.gz")
			} else {
				args = append(args, tc.input)
			}
			stdout, stderr, code := tagRun(t, "$NONE", stdin, args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			got, want := lastFields(stdout), lastFields(gunzipFile(t, tc.want))
			if len(got) != len(want) || len(want) != 4916 {
				t.Fatalf("%d labels, the tool printed %d (want 4916)", len(got), len(want))
			}
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("token %d: label %s, the tool printed %s", i+1, got[i], want[i])
				}
			}
		})
	}
}

// TestTagPeerProbabilities: the sequence probabilities of --marginals for a
// CRFsuite model are those of crfsuite tag -p (to the 4 decimals printed).
func TestTagPeerProbabilities(t *testing.T) {
	stdout, stderr, code := tagRun(t, "$NONE", "", "tag", "--model", filepath.Join(peerData, "conll.crfsuite.gz"),
		"--marginals", filepath.Join(peerData, "test.crfsuite.gz"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var got, want []string
	for _, line := range strings.Split(stdout, "\n") {
		if p, ok := strings.CutPrefix(line, "# prob "); ok {
			got = append(got, p)
		}
	}
	for _, line := range strings.Split(gunzipFile(t, "crfsuite.tags-prob-marginal.gz"), "\n") {
		if p, ok := strings.CutPrefix(line, "@probability\t"); ok {
			want = append(want, p)
		}
	}
	if len(got) != 200 || len(want) != 200 {
		t.Fatalf("%d probabilities, crfsuite printed %d (want 200)", len(got), len(want))
	}
	for i := range want {
		// crfsuite prints 6 decimals, tag 4: equal after rounding.
		g, _ := strconv.ParseFloat(got[i], 64)
		w, _ := strconv.ParseFloat(want[i], 64)
		if math.Abs(g-w) > 0.5e-4+1e-6 {
			t.Errorf("sequence %d: prob %s, crfsuite %s", i+1, got[i], want[i])
		}
	}
}

// TestDumpPeerModel: dump lists a peer model's labels and says clearly that
// its weights are not available.
func TestDumpPeerModel(t *testing.T) {
	stdout, stderr, code := tagRun(t, "$NONE", "", "dump", "--model", filepath.Join(peerData, "conll.wapiti.gz"))
	if code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	if !strings.HasPrefix(stdout, "format\tWapiti\nlabel\t") || !strings.Contains(stdout, "\nlabel\tB-NP\n") || !strings.Contains(stdout, "\ntemplate\t") {
		t.Errorf("stdout:\n%s", stdout)
	}
	if !strings.Contains(stderr, "weights of Wapiti models are not available") {
		t.Errorf("stderr: %s", stderr)
	}
}

// TestTagPeerUsage: flags that need a model of this toolkit, and a format
// the peer model does not read, are usage errors.
func TestTagPeerUsage(t *testing.T) {
	model := filepath.Join(peerData, "conll.crfpp.gz")
	for _, args := range [][]string{
		{"tag", "--model", model, "--bio", "x"},
		{"tag", "--model", model, "--format", "crfsuite", "x"},
		{"tag", "--model", model, "a", "b"},
	} {
		_, stderr, code := tagRun(t, "$NONE", "", args...)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2 (%s)", args, code, stderr)
		}
	}
}

// TestEvalPeerModel: eval streams labeled input through a peer model and
// prints the usual report lines.
func TestEvalPeerModel(t *testing.T) {
	stdout, stderr, code := tagRun(t, "$NONE", "", "eval", "--model", filepath.Join(peerData, "conll.crfpp.txt.gz"),
		"--threads", "2", filepath.Join(peerData, "test.txt.gz"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"sequences: 200, ", "processed 4916 tokens", "\naccuracy: 0.", "\nf1: 0."} {
		if !strings.Contains(stdout, want) {
			t.Errorf("missing %q in\n%s", want, stdout)
		}
	}
}
