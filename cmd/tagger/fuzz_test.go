package main

import (
	"context"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/corpora"
	"github.com/sparsetag/sparsetag/features"
	"github.com/sparsetag/sparsetag/sparse"
	"github.com/sparsetag/sparsetag/train"
)

var (
	textTaggerOnce sync.Once
	textTagger     *chain.Tagger
)

// wordsTagger trains a tiny words-only model (template over column 0), so
// that raw text can be tagged.
func wordsTagger(t testing.TB) *chain.Tagger {
	textTaggerOnce.Do(func() {
		enc := features.NewTemplateEncoder(features.MustCompile("U00:%x[-1,0]\nU01:%x[0,0]\nU02:%x[1,0]\nB\n"))
		c := &sparse.Corpus{}
		sents := [][]string{{"The", "dog", "barks", "."}, {"A", "cat", "sleeps", "."}, {"He", "sees", "the", "cat", "."}}
		tags := [][]int32{{0, 1, 2, 3}, {0, 1, 2, 3}, {1, 2, 0, 1, 3}}
		for i, s := range sents {
			cols := make([][]string, len(s))
			for k, w := range s {
				cols[k] = []string{w}
			}
			if err := enc.Encode(c, features.Columns(cols), tags[i], true); err != nil {
				panic(err)
			}
		}
		enc.Freeze(0)
		m, err := chain.NewModel([]string{"DT", "NN", "VB", "."}, enc.Unary().Len(), 0, true, enc)
		if err != nil {
			panic(err)
		}
		if _, err := train.Train(context.Background(), m, c, train.Options{Problem: train.Problem{BetaRatio: 0.05}}); err != nil {
			panic(err)
		}
		textTagger = chain.NewTagger(m)
	})
	return textTagger
}

// FuzzTagText tokenizes arbitrary text and tags it: never a panic, one label
// per token, and offsets inside the text.
func FuzzTagText(f *testing.F) {
	for _, s := range []string{"The dog barks.", "", "  \t\n", "naïve café — “quotes” 東京 123,456.7", "\x00\xff\xfe", "a\u0301b\u200bc"} {
		f.Add(s)
	}
	tg := wordsTagger(f)
	f.Fuzz(func(t *testing.T, text string) {
		toks, err := corpora.Tokenize(text)
		if err != nil {
			if utf8.ValidString(text) {
				t.Fatalf("valid UTF-8 %q: %v", text, err)
			}
			return
		}
		cols := make([][]string, len(toks))
		for i, tok := range toks {
			if tok.Start < 0 || tok.End > len(text) || tok.Start >= tok.End || text[tok.Start:tok.End] != tok.Surface {
				t.Fatalf("token %d %+v does not match the text %q", i, tok, text)
			}
			cols[i] = []string{tok.Word}
		}
		ids, err := tg.Tag(nil, features.Columns(cols))
		if err != nil {
			t.Fatal(err)
		}
		if len(ids) != len(toks) {
			t.Fatalf("%d labels for %d tokens", len(ids), len(toks))
		}
	})
}
