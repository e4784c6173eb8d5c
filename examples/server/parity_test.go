package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/features"
	"github.com/sparsetag/sparsetag/tagging"
)

// The tests of this file hold the service to what tagger tag does: its
// usage line, its refusal of invalid UTF-8, n-best lists and IOB2
// constrained decoding.

func TestUsage(t *testing.T) {
	var stderr syncBuffer
	err := run(context.Background(), []string{"-h"}, &stderr)
	mustCheck(t, errors.Is(err, flag.ErrHelp), "err = %v, want flag.ErrHelp", err)
	help := stderr.String()
	mustCheck(t, strings.HasPrefix(help, usageLine+"\n"), "-h does not start with the usage line:\n%s", help)
	// The flag package names an argument after the back-quoted word of its
	// help: the model flag once read "-model tagger train".
	for _, want := range []string{"-model file", "-addr address", "-max-body bytes", "-max-tokens tokens", "-max-nbest n"} {
		contains(t, help, want)
	}
	check(t, !strings.Contains(help, "-model tagger"), "-h names the model's argument wrongly:\n%s", help)
}

func TestInvalidUTF8(t *testing.T) {
	words := newTestServer(t, trainToy(t, wordTemplate), Limits{})
	pos := newTestServer(t, trainToy(t, posTemplate), Limits{})
	for _, tc := range []struct {
		name, body, msg string
		srv             any
	}{
		{"byte in text", "{\"text\": \"The dog\xff barks.\"}", "invalid UTF-8 in the request body at offset 17: byte 0xff is not UTF-8", words},
		{"byte in tokens", "{\"tokens\": [[\"The\", \"DT\"], [\"d\xc3og\", \"NN\"]]}", "invalid UTF-8 in the request body at offset 30", pos},
		{"truncated sequence at the end", "{\"text\": \"dog\xe2\x82\"}", "at offset 13", words},
		{"lone high surrogate", `{"text": "dog \ud800 barks"}`, `\uD800 is a high surrogate without its low half`, words},
		{"high surrogate then a letter", `{"text": "\ud83d\u0041"}`, `\uD83D is a high surrogate`, words},
		{"lone low surrogate", `{"text": "\udc00"}`, `\uDC00 is a low surrogate without its high half`, words},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := words
			if tc.srv == pos {
				srv = pos
			}
			status, msg := post(t, srv, "application/json", tc.body, nil)
			equal(t, http.StatusBadRequest, status, msg)
			contains(t, msg, tc.msg)
		})
	}
	// Valid escapes and characters pass: a surrogate pair, an escaped
	// backslash before a u, U+FFFD itself.
	for _, body := range []string{`{"text": "dog \ud83d\ude00 barks"}`, `{"text": "a\\ud800 b"}`, `{"text": "dog ` + "\uFFFD" + ` barks"}`} {
		var r TagResponse
		status, msg := post(t, words, "application/json", body, &r)
		equal(t, http.StatusOK, status, "%s: %s", body, msg)
	}
}

func TestNBest(t *testing.T) {
	m := trainToy(t, posTemplate)
	srv := newTestServer(t, m, Limits{MaxNBest: 5})
	tokens := [][]string{{"The", "DT"}, {"cat", "NN"}, {"sees", "VBZ"}, {"a", "DT"}, {"dog", "NN"}}
	body, _ := json.Marshal(TagRequest{Tokens: tokens, N: 4})
	var r TagResponse
	status, msg := post(t, srv, "application/json", string(body), &r)
	mustEqual(t, http.StatusOK, status, msg)
	checkResponse(t, m, tokens, r)

	// The list is the tagger's own n-best list.
	var d chain.Decoding
	noErr(t, chain.NewTagger(m).Decode(&d, features.Columns(tokens), chain.DecodeOptions{N: 4}))
	mustEqual(t, len(d.Paths), len(r.NBest), "len(nbest)")
	mustEqual(t, 4, len(r.NBest), "len(nbest)")
	equal(t, r.Labels, r.NBest[0].Labels, "the first of the list is the best path")
	equal(t, r.SequenceProb, r.NBest[0].Prob)
	for k, c := range r.NBest {
		equal(t, m.Labels[d.Paths[k][0]], c.Labels[0], "candidate %d", k)
		check(t, math.Abs(c.Prob-d.Probs[k]) <= 1e-12, "candidate %d: prob %v, tagger %v", k, c.Prob, d.Probs[k])
		if k > 0 {
			check(t, c.Prob <= r.NBest[k-1].Prob, "candidate %d more probable than %d", k, k-1)
			check(t, !slices.Equal(c.Labels, r.NBest[k-1].Labels), "candidates %d and %d are equal", k-1, k)
		}
	}
	// n 0 and 1 answer without a list.
	for _, n := range []int{0, 1} {
		body, _ := json.Marshal(TagRequest{Tokens: tokens, N: n})
		r = TagResponse{}
		status, msg = post(t, srv, "application/json", string(body), &r)
		mustEqual(t, http.StatusOK, status, msg)
		check(t, r.NBest == nil, "n = %d: nbest %v", n, r.NBest)
	}
	for _, n := range []int{-1, 6} {
		body, _ := json.Marshal(TagRequest{Tokens: tokens, N: n})
		status, msg = post(t, srv, "application/json", string(body), nil)
		equal(t, http.StatusBadRequest, status, msg)
		contains(t, msg, `"n" must be from 1 to 5 (-max-nbest)`)
	}
}

// iNPModel returns a model over B-NP, I-NP and O whose unconstrained best
// path tags "x" I-NP wherever it is: IOB2 forbids it at the start and
// after O.
func iNPModel(t *testing.T) *chain.Model {
	t.Helper()
	enc := features.NewTemplateEncoder(features.MustCompile("U00:%x[0,0]\nB\n"))
	noErr(t, enc.Count(features.Columns{{"x"}, {"y"}}))
	enc.Freeze(1)
	labels := []string{"B-NP", "I-NP", "O"}
	m, err := chain.NewModel(labels, enc.Unary().Len(), 0, true, enc)
	noErr(t, err)
	L := len(labels)
	x, ok := enc.Unary().ID("U00:x")
	mustCheck(t, ok, "no attribute U00:x")
	y, ok := enc.Unary().ID("U00:y")
	mustCheck(t, ok, "no attribute U00:y")
	m.State[int(x)*L+1] = 3 // x: I-NP
	m.State[int(x)*L+0] = 1 // then B-NP
	m.State[int(y)*L+2] = 3 // y: O
	return m
}

func TestSchemeIOB2(t *testing.T) {
	m := iNPModel(t)
	srv := newTestServer(t, m, Limits{})
	tokens := [][]string{{"x"}, {"y"}, {"x"}, {"x"}}
	var free, iob2 TagResponse
	body, _ := json.Marshal(TagRequest{Tokens: tokens})
	status, msg := post(t, srv, "application/json", string(body), &free)
	mustEqual(t, http.StatusOK, status, msg)
	equal(t, []string{"I-NP", "O", "I-NP", "I-NP"}, free.Labels, "unconstrained: the model's own preference")

	for _, scheme := range []string{"iob2", "IOB2", "bio"} {
		body, _ = json.Marshal(TagRequest{Tokens: tokens, Scheme: scheme, N: 3, All: true})
		iob2 = TagResponse{}
		status, msg = post(t, srv, "application/json", string(body), &iob2)
		mustEqual(t, http.StatusOK, status, msg)
		equal(t, []string{"B-NP", "O", "B-NP", "I-NP"}, iob2.Labels, "scheme %q", scheme)
		// Every candidate is valid IOB2, and the probabilities are
		// conditional on the constraint: the marginals of a position
		// sum to 1 over the labels allowed there.
		for k, c := range iob2.NBest {
			for i, l := range c.Labels {
				prev := "O"
				if i > 0 {
					prev = c.Labels[i-1]
				}
				if strings.HasPrefix(l, "I-") {
					check(t, prev == "B-"+l[2:] || prev == l, "candidate %d: %s after %s at %d", k, l, prev, i)
				}
			}
		}
		check(t, iob2.Distributions[0]["I-NP"] == 0, "I-NP at the start has probability %v", iob2.Distributions[0]["I-NP"])
	}

	// What tagger tag --bio gives.
	var d chain.Decoding
	noErr(t, chain.NewTagger(m).Decode(&d, features.Columns(tokens), chain.DecodeOptions{Constraints: chain.BIOConstraints(m.Labels)}))
	equal(t, iob2.Labels, chain.NewTagger(m).AppendLabels(nil, d.Best()))

	status, msg = post(t, srv, "application/json", `{"tokens": [["x"]], "scheme": "ioe"}`, nil)
	equal(t, http.StatusBadRequest, status, msg)
	contains(t, msg, `unknown "scheme" "ioe": want "iob2", "iob1", "iobes" or "bilou"`)
	// IOB2 labels read as IOBES could never close a chunk: refused.
	status, msg = post(t, srv, "application/json", `{"tokens": [["x"]], "scheme": "iobes"}`, nil)
	equal(t, http.StatusBadRequest, status, msg)
	contains(t, msg, `"scheme" iobes: the model's labels do not fit`)
	// IOB1 reads the same labels: I-X may start a chunk, B-X only after one.
	var iob1 TagResponse
	status, msg = post(t, srv, "application/json", `{"tokens": [["The","DT"],["dog","NN"]], "scheme": "iob1"}`, &iob1)
	equal(t, http.StatusOK, status, msg)
	check(t, iob1.Labels[0] != "B-NP", "IOB1 forbids B-X first: %v", iob1.Labels)

	// A model whose labels are no chunk tags cannot honour the scheme.
	words := newTestServer(t, trainToy(t, wordTemplate), Limits{})
	status, msg = post(t, words, "application/json", `{"text": "a dog", "scheme": "iob2"}`, nil)
	equal(t, http.StatusOK, status, msg) // the toy labels are chunk tags
	pos := newTestServer(t, posLabelsModel(t), Limits{})
	status, msg = post(t, pos, "application/json", `{"text": "a dog", "scheme": "iob2"}`, nil)
	equal(t, http.StatusBadRequest, status, msg)
	contains(t, msg, "not IOB2 chunk tags")
}

// posLabelsModel returns a words-only model whose labels are POS tags.
func posLabelsModel(t *testing.T) *chain.Model {
	t.Helper()
	enc := features.NewTemplateEncoder(features.MustCompile("U00:%x[0,0]\nB\n"))
	noErr(t, enc.Count(features.Columns{{"a"}, {"dog"}}))
	enc.Freeze(1)
	m, err := chain.NewModel([]string{"DT", "NN"}, enc.Unary().Len(), 0, true, enc)
	noErr(t, err)
	return m
}

// TestEmbeddedModels serves the English models built into the binary:
// the POS tagger tags raw text (tokenized into Penn Treebank forms, as
// tagger tag --format text does), the chunker tokens with their POS tags.
func TestEmbeddedModels(t *testing.T) {
	pos, err := loadModel("embedded:models/en-pos.model")
	noErr(t, err)
	h, err := NewHandler(pos, Limits{})
	noErr(t, err)
	srv := httptest.NewServer(h)
	defer srv.Close()
	var r TagResponse
	status, msg := post(t, srv, "application/json", `{"text": "He said \"it won't fall.\""}`, &r)
	mustEqual(t, http.StatusOK, status, msg)
	equal(t, []string{"He", "said", "``", "it", "wo", "n't", "fall", ".", "''"}, r.Tokens, "Penn Treebank forms")
	equal(t, []string{"PRP", "VBD", "``", "PRP", "MD", "RB", "VB", ".", "''"}, r.Labels)

	chunk, err := loadModel("embedded:models/en-chunk.model")
	noErr(t, err)
	h, err = NewHandler(chunk, Limits{})
	noErr(t, err)
	srv2 := httptest.NewServer(h)
	defer srv2.Close()
	r = TagResponse{}
	status, msg = post(t, srv2, "application/json", `{"tokens": [["The","DT"],["pound","NN"],["fell","VBD"],[".","."]], "n": 2, "scheme": "iob2"}`, &r)
	mustEqual(t, http.StatusOK, status, msg)
	equal(t, []string{"B-NP", "I-NP", "B-VP", "O"}, r.Labels)
	mustEqual(t, 2, len(r.NBest), "len(nbest)")
}

// TestPipeline serves the English POS tagger and chunker as a pipeline
// (-model twice): raw text gets chunks, with the POS tags the chunker read,
// and the run function takes the repeated flag.
func TestPipeline(t *testing.T) {
	var models []tagging.Tagger
	paths := []string{"embedded:models/en-pos.model", "embedded:models/en-chunk.model"}
	for _, p := range paths {
		m, err := loadModel(p)
		noErr(t, err)
		models = append(models, m)
	}
	p, err := tagging.NewPipeline(models, paths)
	noErr(t, err)
	h, err := NewHandler(p, Limits{})
	noErr(t, err)
	srv := httptest.NewServer(h)
	defer srv.Close()
	var r TagResponse
	status, msg := post(t, srv, "application/json", `{"text": "The pound fell.", "scheme": "iob2", "n": 2}`, &r)
	mustEqual(t, http.StatusOK, status, msg)
	equal(t, []string{"The", "pound", "fell", "."}, r.Tokens)
	equal(t, []string{"B-NP", "I-NP", "B-VP", "O"}, r.Labels)
	equal(t, [][]string{{"The", "DT"}, {"pound", "NN"}, {"fell", "VBD"}, {".", "."}}, r.Columns)
	mustEqual(t, 2, len(r.NBest), "len(nbest)")

	// The chunker first reads two columns: a request of words alone is
	// refused.
	wrong, err := tagging.NewPipeline([]tagging.Tagger{models[1], models[0]}, []string{paths[1], paths[0]})
	noErr(t, err)
	h, err = NewHandler(wrong, Limits{})
	noErr(t, err)
	srv2 := httptest.NewServer(h)
	defer srv2.Close()
	status, msg = post(t, srv2, "application/json", `{"tokens": [["The"], ["pound"]]}`, nil)
	equal(t, http.StatusBadRequest, status, msg)
	contains(t, msg, "tokens[0] has 1 columns; this model reads 2")

	// -model twice on the command line.
	var stderr syncBuffer
	err = run(context.Background(), []string{"-model", paths[0], "-model", "embedded:models/nope.model"}, &stderr)
	mustCheck(t, err != nil, "no error")
	contains(t, err.Error(), `no embedded model "nope.model"`)
}
