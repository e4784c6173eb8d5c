package main

import (
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/dataset"
	"github.com/sparsetag/sparsetag/sparse"
)

// TestExplainGolden compares explain's output with
// testdata/tag/explain.stdout (numbers to 2e-3, see TestTagGolden).
func TestExplainGolden(t *testing.T) {
	model := trainTagModel(t)
	in := filepath.Join(tagData, "input.txt")
	stdout, stderr, code := tagRun(t, model, "", "explain", "--model", "$MODEL", "--top", "3", in)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	golden(t, filepath.Join(tagData, "explain.stdout"), stdout)
	golden(t, filepath.Join(tagData, "explain.stderr"), stderr)

	_, stderr, code = tagRun(t, model, "", "explain", "--model", "$MODEL", "--top", "-1", in)
	if code != 2 || !strings.Contains(stderr, "--top") {
		t.Fatalf("--top -1: exit %d, stderr %q; want a usage error", code, stderr)
	}
}

// TestExplainSumsToScore: with --top 0 every contribution is listed, and
// for each token the listed contributions add up to the state score, and
// state scores plus transitions add up to the Viterbi score of the path
// (from chain.Tagger.Decode, an independent computation).
func TestExplainSumsToScore(t *testing.T) {
	model := trainTagModel(t)
	in := filepath.Join(tagData, "input.txt")
	stdout, stderr, code := tagRun(t, model, "", "explain", "--model", "$MODEL", "--top", "0", in)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	m, err := chain.LoadFile(model)
	if err != nil {
		t.Fatal(err)
	}
	tg := chain.NewTagger(m)
	exs, err := readExamples(in, dataFlags{format: "conll"}, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	blocks := strings.Split(strings.TrimSuffix(stdout, "\n\n"), "\n\n")
	if len(blocks) != len(exs) {
		t.Fatalf("%d blocks for %d sequences", len(blocks), len(exs))
	}
	parse := func(s string) float64 {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("bad number %q", s)
		}
		return v
	}
	for i, block := range blocks {
		path, err := tg.Tag(nil, exs[i].Input())
		if err != nil {
			t.Fatal(err)
		}
		// Viterbi score from the weights directly.
		var total, state, sum float64
		tokens := 0
		check := func() {
			if tokens > 0 && math.Abs(sum-state) > 5e-4 {
				t.Fatalf("sequence %d token %d: contributions sum to %v, state score %v", i+1, tokens, sum, state)
			}
		}
		for _, line := range strings.Split(block, "\n")[1:] {
			f := strings.Split(line, "\t")
			switch {
			case f[0] != "": // token line
				check()
				tokens++
				state = parse(strings.TrimPrefix(f[4], "state "))
				if f[2] != m.Labels[path[tokens-1]] {
					t.Fatalf("sequence %d token %d: label %s, Tag says %s", i+1, tokens, f[2], m.Labels[path[tokens-1]])
				}
				total += state
				sum = 0
			case strings.HasPrefix(f[1], "trans ") || strings.HasPrefix(f[1], "pair "):
				total += parse(f[2])
			default:
				sum += parse(f[1])
			}
		}
		check()
		var d chain.Decoding
		if err := tg.Decode(&d, chain.Encoded{Corpus: encodeForTest(t, m, &exs[i])}, chain.DecodeOptions{}); err != nil {
			t.Fatal(err)
		}
		score := d.Scores[0]
		if math.Abs(total-score) > 1e-3 {
			t.Fatalf("sequence %d: explained score %v, Viterbi score %v", i+1, total, score)
		}
	}
}

func encodeForTest(t *testing.T, m *chain.Model, ex *dataset.Example) *sparse.Corpus {
	t.Helper()
	c := &sparse.Corpus{}
	if err := dataset.Encode(m.Encoder, c, ex, nil, false); err != nil {
		t.Fatal(err)
	}
	return c
}
