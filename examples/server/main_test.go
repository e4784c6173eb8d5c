package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/dataset"
	"github.com/sparsetag/sparsetag/features"
	"github.com/sparsetag/sparsetag/tagging"
	"github.com/sparsetag/sparsetag/train"
)

// toy is a tiny chunking corpus: word, POS, chunk tag.
const toy = `
The DT B-NP
dog NN I-NP
barks VBZ B-VP
. . O

A DT B-NP
cat NN I-NP
sleeps VBZ B-VP
. . O

The DT B-NP
big JJ I-NP
dog NN I-NP
sees VBZ B-VP
a DT B-NP
cat NN I-NP
. . O

Dogs NNS B-NP
run VBP B-VP
fast RB B-ADVP
. . O
`

const (
	wordTemplate = "U00:%x[0,0]\nU01:%x[-1,0]\nU02:%x[1,0]\nB\n"
	posTemplate  = "U00:%x[0,0]\nU01:%x[0,1]\nU02:%x[-1,1]/%x[0,1]\nB\n"
)

// trainToy trains a model on toy with the given template (a word-only
// template simply does not read the POS column).
func trainToy(t *testing.T, template string) *chain.Model {
	t.Helper()
	tmpl, err := features.Compile(template)
	noErr(t, err)
	exs, err := dataset.Read("toy", strings.NewReader(toy), dataset.Options{Format: dataset.CoNLL, Labeled: true})
	noErr(t, err)
	enc := features.NewTemplateEncoder(tmpl)
	m, c, err := dataset.NewTrainingModel(enc, exs, 1)
	noErr(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err = train.Train(ctx, m, c, train.Options{Problem: train.Problem{BetaRatio: 0.01}, Resources: train.Resources{Threads: 1}})
	noErr(t, err)
	return m
}

// newTestServer serves a handler for m on a loopback httptest server.
func newTestServer(t *testing.T, m *chain.Model, lim Limits) *httptest.Server {
	t.Helper()
	h, err := NewHandler(tagging.NewTagger(chain.NewTagger(m)), lim)
	noErr(t, err)
	srv := httptest.NewServer(h) // listens on 127.0.0.1 only
	t.Cleanup(srv.Close)
	return srv
}

var client = &http.Client{Timeout: 10 * time.Second}

// post sends body to /tag and decodes the JSON answer into out (when not nil).
func post(t *testing.T, srv *httptest.Server, contentType, body string, out any) (int, string) {
	t.Helper()
	resp, err := client.Post(srv.URL+"/tag", contentType, strings.NewReader(body))
	noErr(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	noErr(t, err)
	equal(t, "application/json; charset=utf-8", resp.Header.Get("Content-Type"))
	if resp.StatusCode != http.StatusOK {
		var e struct{ Error string }
		noErr(t, json.Unmarshal(b, &e), "error bodies are JSON: %s", b)
		mustCheck(t, e.Error != "", "empty error message in %s", b)
		return resp.StatusCode, e.Error
	}
	if out != nil {
		noErr(t, json.Unmarshal(b, out), "%s", b)
	}
	return resp.StatusCode, ""
}

// checkResponse checks the probabilities of r against each other and
// against the tagger called directly.
func checkResponse(t *testing.T, m *chain.Model, tokens [][]string, r TagResponse) {
	t.Helper()
	T := len(tokens)
	mustEqual(t, T, len(r.Tokens), "len(r.Tokens)")
	mustEqual(t, T, len(r.Labels), "len(r.Labels)")
	mustEqual(t, T, len(r.Marginals), "len(r.Marginals)")

	tg := chain.NewTagger(m)
	ids, err := tg.Tag(nil, features.Columns(tokens))
	noErr(t, err)
	equal(t, tg.AppendLabels(nil, ids), r.Labels, "labels must be the Viterbi path")

	mustCheck(t, r.SequenceProb > 0 && r.SequenceProb <= 1, "sequence_prob %v", r.SequenceProb)
	for i := range T {
		equal(t, tokens[i][0], r.Tokens[i])
		p := r.Marginals[i]
		mustCheck(t, !math.IsNaN(p), "NaN")
		check(t, p > 0 && p <= 1, "marginal %d = %v", i, p)
		// The path is one of the sequences with label r.Labels[i] at i, so
		// its probability cannot exceed that marginal.
		check(t, r.SequenceProb <= p+1e-12, "sequence_prob %v > marginal %d = %v", r.SequenceProb, i, p)
	}
	if r.Distributions != nil {
		mustEqual(t, T, len(r.Distributions), "len(r.Distributions)")
		for i, d := range r.Distributions {
			mustEqual(t, len(m.Labels), len(d), "len(d)")
			sum := 0.0
			best, bestP := "", -1.0
			for _, l := range m.Labels {
				p, ok := d[l]
				mustCheck(t, ok, "label %s missing", l)
				mustCheck(t, !math.IsNaN(p), "NaN")
				sum += p
				if p > bestP {
					best, bestP = l, p
				}
			}
			check(t, math.Abs(sum-1) <= 1e-9, "distribution %d sums to %v", i, sum)
			equal(t, r.Marginals[i], d[r.Labels[i]])
			// On this well-separated toy data the most probable label
			// of each token is also the Viterbi label.
			equal(t, best, r.Labels[i], "token %d", i)
		}
	}
}

func TestTagTokens(t *testing.T) {
	m := trainToy(t, posTemplate)
	srv := newTestServer(t, m, Limits{})

	tokens := [][]string{{"The", "DT"}, {"cat", "NN"}, {"sees", "VBZ"}, {"a", "DT"}, {"dog", "NN"}, {".", "."}}
	body, _ := json.Marshal(TagRequest{Tokens: tokens, All: true})
	var r TagResponse
	status, msg := post(t, srv, "application/json", string(body), &r)
	mustEqual(t, http.StatusOK, status, msg)
	checkResponse(t, m, tokens, r)
	// The toy data make this sentence easy: it is the gold chunking.
	equal(t, []string{"B-NP", "I-NP", "B-VP", "B-NP", "I-NP", "O"}, r.Labels)
	check(t, r.Offsets == nil, "offsets %v for token input", r.Offsets)

	// Without "all" there are no distributions; the Content-Type does not
	// matter (curl -d sends a form type).
	body, _ = json.Marshal(TagRequest{Tokens: tokens})
	r = TagResponse{}
	status, msg = post(t, srv, "application/x-www-form-urlencoded", string(body), &r)
	mustEqual(t, http.StatusOK, status, msg)
	check(t, r.Distributions == nil, "distributions without \"all\"")
	checkResponse(t, m, tokens, r)
}

func TestTagText(t *testing.T) {
	m := trainToy(t, wordTemplate)
	srv := newTestServer(t, m, Limits{})

	text := "The dog sees a cat."
	var r TagResponse
	status, msg := post(t, srv, "application/json; charset=utf-8", `{"text": "`+text+`", "all": true}`, &r)
	mustEqual(t, http.StatusOK, status, msg)
	want := []string{"The", "dog", "sees", "a", "cat", "."}
	mustEqual(t, want, r.Tokens)
	mustEqual(t, len(want), len(r.Offsets), "len(r.Offsets)")
	for i, o := range r.Offsets {
		equal(t, want[i], text[o[0]:o[1]], "offsets of token %d", i)
	}
	tokens := make([][]string, len(want))
	for i, w := range want {
		tokens[i] = []string{w}
	}
	checkResponse(t, m, tokens, r)
}

// TestTagTextTreebankForms: the model reads each token's Treebank form
// (corpora.Token.Word), not its surface: quotes and brackets reach it as
// “ ” -LRB- -RRB-, as in the training data, and the offsets still mark
// the surface in the text.
func TestTagTextTreebankForms(t *testing.T) {
	m := trainToy(t, wordTemplate)
	srv := newTestServer(t, m, Limits{})
	text := `He said "(no)".`
	var r TagResponse
	status, msg := post(t, srv, "application/json", `{"text": `+strconv.Quote(text)+`}`, &r)
	mustEqual(t, http.StatusOK, status, msg)
	want := []string{"He", "said", "``", "-LRB-", "no", "-RRB-", "''", "."}
	mustEqual(t, want, r.Tokens)
	surface := []string{"He", "said", `"`, "(", "no", ")", `"`, "."}
	for i, o := range r.Offsets {
		equal(t, surface[i], text[o[0]:o[1]], "offsets of token %d", i)
	}
	tokens := make([][]string, len(want))
	for i, w := range want {
		tokens[i] = []string{w}
	}
	checkResponse(t, m, tokens, r)
}

func TestTagErrors(t *testing.T) {
	pos := newTestServer(t, trainToy(t, posTemplate), Limits{MaxBody: 512, MaxTokens: 10})
	words := newTestServer(t, trainToy(t, wordTemplate), Limits{MaxTokens: 3})
	long := `{"tokens": [` + strings.Repeat(`["dog","NN"],`, 60) + `["dog","NN"]]}`
	for _, tc := range []struct {
		name        string
		srv         *httptest.Server
		contentType string
		body        string
		status      int
		msg         string
	}{
		{"text with a two-column template", pos, "application/json", `{"text": "The dog barks."}`, 400, "reads 2 token columns"},
		{"both tokens and text", words, "application/json", `{"tokens": [["a"]], "text": "a"}`, 400, "not both"},
		{"neither", words, "application/json", `{"all": true}`, 400, `missing "tokens" or "text"`},
		{"empty tokens", words, "application/json", `{"tokens": []}`, 400, "no tokens"},
		{"empty text", words, "application/json", `{"text": "  "}`, 400, "no tokens"},
		{"too few columns", pos, "application/json", `{"tokens": [["The","DT"],["dog"]]}`, 400, "tokens[1] has 1 columns; this model reads 2"},
		{"empty body", words, "application/json", ``, 400, "empty request body"},
		{"malformed JSON", words, "application/json", `{"tokens": [["a"]`, 400, "malformed JSON"},
		{"wrong type", words, "application/json", `{"tokens": "a b"}`, 400, "malformed JSON"},
		{"unknown field", words, "application/json", `{"token": [["a"]]}`, 400, `unknown field "token"`},
		{"trailing data", words, "application/json", `{"text": "a"} {"text": "b"}`, 400, "after the JSON object"},
		{"trailing garbage", words, "application/json", `{"text": "a"} x`, 400, "malformed JSON"},
		{"body too large", pos, "application/json", long, 413, "larger than 512 bytes"},
		{"too many tokens", words, "application/json", `{"tokens": [["a"],["b"],["c"],["d"]]}`, 413, "4 tokens, more than the limit 3"},
		{"too many text tokens", words, "application/json", `{"text": "a b c d"}`, 413, "4 tokens, more than the limit 3"},
		{"form, not JSON", words, "application/x-www-form-urlencoded", `text=a`, 400, "malformed JSON"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, msg := post(t, tc.srv, tc.contentType, tc.body, nil)
			equal(t, tc.status, status, msg)
			contains(t, msg, tc.msg)
		})
	}
}

func TestMethodsAndHealth(t *testing.T) {
	m := trainToy(t, wordTemplate)
	srv := newTestServer(t, m, Limits{})

	resp, err := client.Get(srv.URL + "/tag")
	noErr(t, err)
	resp.Body.Close()
	equal(t, http.StatusMethodNotAllowed, resp.StatusCode)
	equal(t, "POST", resp.Header.Get("Allow"))

	resp, err = client.Post(srv.URL+"/healthz", "application/json", strings.NewReader("{}"))
	noErr(t, err)
	resp.Body.Close()
	equal(t, http.StatusMethodNotAllowed, resp.StatusCode)

	resp, err = client.Get(srv.URL + "/nope")
	noErr(t, err)
	resp.Body.Close()
	equal(t, http.StatusNotFound, resp.StatusCode)

	resp, err = client.Get(srv.URL + "/healthz")
	noErr(t, err)
	defer resp.Body.Close()
	mustEqual(t, http.StatusOK, resp.StatusCode)
	var h Health
	noErr(t, json.NewDecoder(resp.Body).Decode(&h))
	equal(t, Health{Status: "ok", Labels: m.Labels, Columns: 1, Text: true}, h)
}

func TestNewHandlerRejectsOtherModels(t *testing.T) {
	m, err := chain.NewModel([]string{"a", "b"}, 128, 0, true, features.NewPixelEncoder(0))
	noErr(t, err)
	_, err = NewHandler(tagging.NewTagger(chain.NewTagger(m)), Limits{})
	mustCheck(t, err != nil, "no error")
	contains(t, err.Error(), "pixels")

	m, err = chain.NewModel([]string{"a", "b"}, 3, 0, true, nil)
	noErr(t, err)
	_, err = NewHandler(tagging.NewTagger(chain.NewTagger(m)), Limits{})
	check(t, errors.Is(err, chain.ErrNoEncoder), "err = %v, want ErrNoEncoder", err)
}

// TestRunAndShutdown runs the whole program on a model file and a loopback
// port, tags one request, then cancels the context (what SIGINT does) and
// checks that run returns cleanly.
func TestRunAndShutdown(t *testing.T) {
	m := trainToy(t, wordTemplate)
	path := filepath.Join(t.TempDir(), "toy.model")
	noErr(t, m.SaveFile(path))

	// Find a free loopback port, then let run listen on it.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	noErr(t, err)
	addr := ln.Addr().String()
	noErr(t, ln.Close())

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stderr syncBuffer
	done := make(chan error, 1)
	go func() { done <- run(ctx, []string{"-model", path, "-addr", addr, "-grace", "5s"}, &stderr) }()

	var resp *http.Response
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp, err = client.Post("http://"+addr+"/tag", "application/json", strings.NewReader(`{"text": "The dog barks."}`))
		if err == nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	noErr(t, err, "server did not come up; stderr:\n%s", stderr.String())
	var r TagResponse
	noErr(t, json.NewDecoder(resp.Body).Decode(&r))
	resp.Body.Close()
	equal(t, []string{"The", "dog", "barks", "."}, r.Tokens)
	equal(t, []string{"B-NP", "I-NP", "B-VP", "O"}, r.Labels)

	cancel()
	select {
	case err := <-done:
		noErr(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("run did not return after cancel")
	}
	contains(t, stderr.String(), "listening on http://"+addr)
	contains(t, stderr.String(), "shutting down")
}

func TestRunFlagErrors(t *testing.T) {
	var stderr syncBuffer
	err := run(context.Background(), nil, &stderr)
	mustCheck(t, err != nil, "no error")
	contains(t, err.Error(), "-model is required")

	missing := filepath.Join(t.TempDir(), "missing.model")
	err = run(context.Background(), []string{"-model", missing}, &stderr)
	mustCheck(t, err != nil, "no error")
	contains(t, err.Error(), "missing.model")

	err = run(context.Background(), []string{"-model", missing, "extra"}, &stderr)
	mustCheck(t, err != nil, "no error")
	contains(t, err.Error(), "unexpected arguments")
}

// TestServeReturnsListenerError checks that serve reports a failing
// listener instead of waiting for the context.
func TestServeReturnsListenerError(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	noErr(t, err)
	noErr(t, ln.Close())
	logger := log.New(io.Discard, "", 0)
	err = serve(context.Background(), ln, http.NotFoundHandler(), time.Second, logger)
	mustCheck(t, err != nil, "no error")
}

// syncBuffer is a bytes.Buffer safe for the concurrent writes of the
// server's logger and the test's reads.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Small assertion helpers (the module does not depend on testify's own
// dependencies, and these cases need nothing more).

func noErr(t *testing.T, err error, msgAndArgs ...any) {
	t.Helper()
	if err != nil {
		t.Fatalf("unexpected error: %v %s", err, describe(msgAndArgs))
	}
}

func check(t *testing.T, ok bool, msgAndArgs ...any) {
	t.Helper()
	if !ok {
		t.Errorf("check failed: %s", describe(msgAndArgs))
	}
}

func mustCheck(t *testing.T, ok bool, msgAndArgs ...any) {
	t.Helper()
	if !ok {
		t.Fatalf("check failed: %s", describe(msgAndArgs))
	}
}

func equal(t *testing.T, want, got any, msgAndArgs ...any) {
	t.Helper()
	if !reflect.DeepEqual(want, got) {
		t.Errorf("got %#v, want %#v %s", got, want, describe(msgAndArgs))
	}
}

func mustEqual(t *testing.T, want, got any, msgAndArgs ...any) {
	t.Helper()
	if !reflect.DeepEqual(want, got) {
		t.Fatalf("got %#v, want %#v %s", got, want, describe(msgAndArgs))
	}
}

func contains(t *testing.T, s, sub string) {
	t.Helper()
	if !strings.Contains(s, sub) {
		t.Errorf("%q does not contain %q", s, sub)
	}
}

func describe(msgAndArgs []any) string {
	if len(msgAndArgs) == 0 {
		return ""
	}
	if f, ok := msgAndArgs[0].(string); ok {
		return "(" + fmt.Sprintf(f, msgAndArgs[1:]...) + ")"
	}
	return fmt.Sprint(msgAndArgs...)
}

// postSpans sends body to /spans and decodes the answer.
func postSpans(t *testing.T, srv *httptest.Server, body string, out *SpansResponse) (int, string) {
	t.Helper()
	resp, err := client.Post(srv.URL+"/spans", "application/json", strings.NewReader(body))
	noErr(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	noErr(t, err)
	if resp.StatusCode != http.StatusOK {
		var e struct{ Error string }
		noErr(t, json.Unmarshal(b, &e), "error bodies are JSON: %s", b)
		return resp.StatusCode, e.Error
	}
	noErr(t, json.Unmarshal(b, out), "%s", b)
	return resp.StatusCode, ""
}

// TestSpans: /spans splits running text into sentences and answers the
// chunks with offsets (code points and bytes) that select their text, and
// confidences in (0, 1]; bad requests get clear errors.
func TestSpans(t *testing.T) {
	m := trainToy(t, wordTemplate)
	srv := newTestServer(t, m, Limits{MaxTokens: 50})
	text := "The big dög sees a cat. A cat sleeps."
	var r SpansResponse
	status, msg := postSpans(t, srv, `{"text": "`+text+`"}`, &r)
	mustEqual(t, http.StatusOK, status, msg)
	equal(t, text, r.Text)
	mustEqual(t, 2, len(r.Sentences), "sentences")
	equal(t, "A cat sleeps.", text[r.Sentences[1].StartByte:r.Sentences[1].EndByte])
	mustCheck(t, len(r.Spans) > 0, "no spans")
	runes := []rune(text)
	for _, sp := range r.Spans {
		equal(t, sp.Text, text[sp.StartByte:sp.EndByte])
		equal(t, sp.Text, string(runes[sp.Start:sp.End]))
		check(t, sp.Confidence > 0 && sp.Confidence <= 1, "confidence %v", sp.Confidence)
	}
	equal(t, "The big dög", r.Spans[0].Text)
	equal(t, "NP", r.Spans[0].Label)

	for _, c := range []struct {
		body   string
		status int
		msg    string
	}{
		{`{}`, http.StatusBadRequest, `missing "text"`},
		{`{"text": "a b", "scheme": "ioe"}`, http.StatusBadRequest, "unknown label scheme"},
		{`{"text": "a b", "scheme": "iobes"}`, http.StatusBadRequest, "do not fit"},
		{`{"text": "a\u0000b"}`, http.StatusBadRequest, "NUL byte"},
		{`{"text": "   "}`, http.StatusBadRequest, "no tokens"},
		{`{"text": "` + strings.Repeat("a ", 51) + `"}`, http.StatusRequestEntityTooLarge, "more than the limit 50"},
	} {
		status, msg := postSpans(t, srv, c.body, &r)
		equal(t, c.status, status, c.body)
		check(t, strings.Contains(msg, c.msg), "%s: %q does not contain %q", c.body, msg, c.msg)
	}
}
