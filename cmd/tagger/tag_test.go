package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/internal/numtest"
)

var updateTag = flag.Bool("update-tag", false, "rewrite the golden files of testdata/tag")

const tagData = "testdata/tag"

// trainTagModel trains the model of the tag and explain tests from
// testdata/tag/train.txt (a few toy chunking sentences) into a temporary
// directory and returns its path.
func trainTagModel(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "toy.model")
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"train", "--quiet", "--format", "conll", "--beta-ratio", "0.01",
		"--epsilon", "1e-9", "--model", path, filepath.Join(tagData, "train.txt")}, strings.NewReader(""), &out, &errb)
	if code != 0 {
		t.Fatalf("training the test model: exit %d: %s", code, errb.String())
	}
	return path
}

// tagRun runs the command line in-process with stdin and returns the
// streams and exit status, with the model's path replaced by $MODEL.
func tagRun(t *testing.T, model, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	for i, a := range args {
		args[i] = strings.ReplaceAll(a, "$MODEL", model)
	}
	var out, errb bytes.Buffer
	code = run(context.Background(), args, strings.NewReader(stdin), &out, &errb)
	return strings.ReplaceAll(out.String(), model, "$MODEL"), strings.ReplaceAll(errb.String(), model, "$MODEL"), code
}

// TestTagGolden runs tag with each combination of flags and compares
// stdout and stderr with testdata/tag/NAME.stdout and NAME.stderr (run
// with -update-tag to rewrite them after checking the change by eye).
// Numbers are compared to 2e-3 so that a trainer change within its
// stopping tolerance does not break the test; everything else exactly.
func TestTagGolden(t *testing.T) {
	in := filepath.Join(tagData, "input.txt")
	partial := filepath.Join(tagData, "partial.txt")
	stdinText, err := os.ReadFile(in)
	if err != nil {
		t.Fatal(err)
	}
	model := trainTagModel(t)
	for _, tc := range []struct {
		name  string
		stdin string
		args  []string
		code  int
	}{
		{"conll", "", []string{"tag", "--model", "$MODEL", in}, 0},
		{"conll-stdin", string(stdinText), []string{"tag", "--model", "$MODEL", "-"}, 0},
		{"conll-marginals", "", []string{"tag", "--model", "$MODEL", "--marginals", in}, 0},
		{"conll-nbest", "", []string{"tag", "--model", "$MODEL", "--nbest", "3", "--marginals", in}, 0},
		{"slash", "", []string{"tag", "--model", "$MODEL", "--output", "slash", in}, 0},
		{"slash-marginals", "", []string{"tag", "--model", "$MODEL", "--output", "slash", "--marginals", in}, 0},
		{"slash-nbest", "", []string{"tag", "--model", "$MODEL", "--output", "slash", "--nbest", "3", in}, 0},
		{"json", "", []string{"tag", "--model", "$MODEL", "--output", "json", in}, 0},
		{"json-nbest-bio", "", []string{"tag", "--model", "$MODEL", "--output", "json", "--nbest", "2", "--bio", in}, 0},
		{"forced", "", []string{"tag", "--model", "$MODEL", "--forced", "--marginals", partial}, 0},
		{"forced-bio-slash", "", []string{"tag", "--model", "$MODEL", "--forced", "--bio", "--output", "slash", partial}, 0},
		{"forced-bad-label", "", []string{"tag", "--model", "$MODEL", "--forced", filepath.Join(tagData, "badlabel.txt")}, 1},
		{"forced-text", "", []string{"tag", "--model", "$MODEL", "--forced", "--format", "text", in}, 2},
		{"bad-output", "", []string{"tag", "--model", "$MODEL", "--output", "xml", in}, 2},
		{"bad-nbest", "", []string{"tag", "--model", "$MODEL", "--nbest", "0", in}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := tagRun(t, model, tc.stdin, tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstderr:\n%s", code, tc.code, stderr)
			}
			golden(t, filepath.Join(tagData, tc.name+".stdout"), stdout)
			golden(t, filepath.Join(tagData, tc.name+".stderr"), stderr)
		})
	}
}

func golden(t *testing.T, path, got string) {
	t.Helper()
	if *updateTag {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run TestTagGolden -update-tag to create it)", err)
	}
	if msg := sameUpToNumbers(string(want), got, 2e-3); msg != "" {
		t.Errorf("%s: %s\ngot:\n%s\nwant:\n%s", path, msg, got, want)
	}
}

var numberRE = regexp.MustCompile(`-?[0-9]+\.[0-9]+`)

// sameUpToNumbers compares a and b exactly outside decimal numbers, and
// their decimal numbers to tol. It returns "" when they agree.
func sameUpToNumbers(a, b string, tol float64) string {
	na, nb := numberRE.FindAllString(a, -1), numberRE.FindAllString(b, -1)
	if sa, sb := numberRE.ReplaceAllString(a, "#"), numberRE.ReplaceAllString(b, "#"); sa != sb {
		return "text differs"
	}
	for i := range na {
		x, _ := strconv.ParseFloat(na[i], 64)
		y, _ := strconv.ParseFloat(nb[i], 64)
		if math.Abs(x-y) > tol {
			return "number " + strconv.Itoa(i+1) + " is " + nb[i] + ", want " + na[i]
		}
	}
	return ""
}

// TestTagJSONAgainstDecode checks the JSON output against chain.Tagger.Decode
// on separately encoded input, outside the streaming pipeline (Viterbi plus
// forward-backward, no n-best or constraints code), and the n-best list for
// consistency.
func TestTagJSONAgainstDecode(t *testing.T) {
	in := filepath.Join(tagData, "input.txt")
	path := trainTagModel(t)
	stdout, stderr, code := tagRun(t, path, "", "tag", "--model", "$MODEL", "--output", "json", "--nbest", "64", in)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	m, err := chain.LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	tg := chain.NewTagger(m)
	exs, err := readExamples(in, dataFlags{format: "conll"}, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	if len(lines) != len(exs) {
		t.Fatalf("%d JSON lines for %d sequences", len(lines), len(exs))
	}
	type cand struct {
		Labels    []string  `json:"labels"`
		Marginals []float64 `json:"marginals"`
		Prob      float64   `json:"prob"`
		Score     float64   `json:"score"`
	}
	for i, line := range lines {
		var got struct {
			Tokens []string `json:"tokens"`
			cand
			NBest []cand `json:"nbest"`
		}
		if err := json.Unmarshal([]byte(line), &got); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		// Encoded separately and decoded without the streaming pipeline.
		var d chain.Decoding
		if err := tg.Decode(&d, chain.Encoded{Corpus: encodeForTest(t, m, &exs[i])}, chain.DecodeOptions{Posterior: true}); err != nil {
			t.Fatal(err)
		}
		p := struct {
			Path     []int
			Marginal []float64
			Prob     float64
		}{d.Best(), d.Marginal, d.Probs[0]}
		L := m.NumLabels()
		T := len(exs[i].Tokens)
		if len(got.Tokens) != T || len(got.Labels) != T || len(got.Marginals) != T {
			t.Fatalf("line %d: lengths %d %d %d, want %d", i+1, len(got.Tokens), len(got.Labels), len(got.Marginals), T)
		}
		for tt, y := range p.Path {
			if got.Labels[tt] != m.Labels[y] || got.Tokens[tt] != exs[i].Text[tt] {
				t.Fatalf("line %d token %d: %s/%s, want %s/%s", i+1, tt, got.Tokens[tt], got.Labels[tt], exs[i].Text[tt], m.Labels[y])
			}
			if !numtest.Equal(got.Marginals[tt], p.Marginal[tt*L+y], 2e-6, 0) {
				t.Fatalf("line %d token %d: marginal %v, want %v", i+1, tt, got.Marginals[tt], p.Marginal[tt*L+y])
			}
		}
		if !numtest.Equal(got.Prob, p.Prob, 2e-6, 0) {
			t.Fatalf("line %d: prob %v, want %v", i+1, got.Prob, p.Prob)
		}
		// With L^T ≤ 64 every sequence is listed: the probabilities sum to 1,
		// decrease, and each is exp(score - log Z) with one log Z.
		n := 1
		for range T {
			n *= L
		}
		if n > 64 {
			continue
		}
		if len(got.NBest) != n {
			t.Fatalf("line %d: %d n-best entries, want all %d", i+1, len(got.NBest), n)
		}
		sum := 0.0
		logZ := got.NBest[0].Score - math.Log(got.NBest[0].Prob)
		for k, c := range got.NBest {
			sum += c.Prob
			if k > 0 && c.Score > got.NBest[k-1].Score {
				t.Fatalf("line %d: n-best scores not decreasing at %d", i+1, k)
			}
			if c.Prob > 1e-3 && !numtest.Equal(c.Prob, math.Exp(c.Score-logZ), 1e-5, 1e-3) {
				t.Fatalf("line %d: n-best %d prob %v, exp(score - logZ) = %v", i+1, k, c.Prob, math.Exp(c.Score-logZ))
			}
		}
		if !numtest.Equal(sum, 1, 1e-4, 0) {
			t.Fatalf("line %d: n-best probabilities sum to %v over all %d sequences", i+1, sum, n)
		}
	}
}

// TestTagStdinWithoutFile: with no input file, tag and eval read standard
// input (echo ... | tagger tag --model m --format text), and --threads does
// not change the output.
func TestTagStdinWithoutFile(t *testing.T) {
	model := trainTagModel(t)
	in, err := os.ReadFile(filepath.Join(tagData, "input.txt"))
	if err != nil {
		t.Fatal(err)
	}
	want, _, code := tagRun(t, model, string(in), "tag", "--model", "$MODEL", "-")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, threads := range []string{"1", "2", "7"} {
		got, stderr, code := tagRun(t, model, string(in), "tag", "--model", "$MODEL", "--threads", threads)
		if code != 0 || got != want {
			t.Fatalf("--threads %s without a file: exit %d (%s), output\n%s\nwant\n%s", threads, code, stderr, got, want)
		}
	}
	got, stderr, code := tagRun(t, model, "the cat sees a dog\n", "tag", "--model", "$MODEL", "--format", "text", "--output", "slash")
	if code != 0 || !strings.HasPrefix(got, "the/") {
		t.Fatalf("text from stdin: exit %d (%s), output %q", code, stderr, got)
	}
	train, err := os.ReadFile(filepath.Join(tagData, "train.txt"))
	if err != nil {
		t.Fatal(err)
	}
	got, stderr, code = tagRun(t, model, string(train), "eval", "--model", "$MODEL")
	if code != 0 || !strings.Contains(got, "\naccuracy: ") {
		t.Fatalf("eval from stdin: exit %d (%s), output %q", code, stderr, got)
	}
}
