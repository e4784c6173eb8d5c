package tagging

import (
	"bufio"
	"bytes"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/corpora"
	"github.com/sparsetag/sparsetag/rawtext"
	"github.com/sparsetag/sparsetag/scheme"
)

// wordsChunker is the words-only CoNLL-2000 chunker of the browser example.
const wordsChunker = "../examples/web/models/chunk-words.model.gz"

// runningText returns the sentences of an embedded CoNLL file detokenized
// (rawtext.Detokenize) and joined into documents of perDoc sentences, one
// per line, and the number of tokens the PTB tokenizer finds in them.
func runningText(tb testing.TB, name string, perDoc int) ([]byte, int) {
	rc, err := corpora.OpenEmbedded(name)
	if err != nil {
		tb.Fatal(err)
	}
	defer rc.Close()
	var out bytes.Buffer
	var words []string
	n := 0
	flush := func() {
		if len(words) == 0 {
			return
		}
		if n > 0 {
			if n%perDoc == 0 {
				out.WriteByte('\n')
			} else {
				out.WriteByte(' ')
			}
		}
		out.WriteString(rawtext.Detokenize(words))
		words = words[:0]
		n++
	}
	sc := bufio.NewScanner(rc)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			flush()
			continue
		}
		words = append(words, f[0])
	}
	flush()
	out.WriteByte('\n')
	tokens := 0
	r := rawtext.NewReader("text", bytes.NewReader(out.Bytes()), rawtext.Options{})
	var d rawtext.Doc
	for r.Next() {
		if err := rawtext.Document(&d, r.Text(), rawtext.PTB{}); err != nil {
			tb.Fatal(err)
		}
		for _, s := range d.Sentences {
			tokens += len(s.Tokens)
		}
	}
	return out.Bytes(), tokens
}

// BenchmarkDocumentSpans measures raw text to spans (sentence split, PTB
// tokenization, feature extraction, constrained forward-backward, span
// confidences, JSON output to io.Discard) with the words-only chunker on
// the CoNLL-2000 training sentences rejoined into running text (20
// sentences per document), and the same with the built-in POS tagger
// then chunker (a pipeline), and reports tokens/s:
//
//	go test -run NONE -bench DocumentSpans -benchtime 5x ./tagging
func BenchmarkDocumentSpans(b *testing.B) {
	m, err := Load(wordsChunker)
	if err != nil {
		b.Fatal(err)
	}
	text, tokens := runningText(b, "conll2000/train.txt.gz", 20)
	l, err := scheme.NewLabels(scheme.IOB2, m.Labels())
	if err != nil {
		b.Fatal(err)
	}
	// The built-in POS tagger then chunker (models/), on the same text.
	pos, err := Load("embedded:models/en-pos.model")
	if err != nil {
		b.Fatal(err)
	}
	chunk, err := Load("embedded:models/en-chunk.model")
	if err != nil {
		b.Fatal(err)
	}
	pipe, err := NewPipeline([]Tagger{pos, chunk}, []string{"en-pos", "en-chunk"})
	if err != nil {
		b.Fatal(err)
	}
	pl, err := scheme.NewLabels(scheme.IOB2, pipe.Labels())
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		m      Tagger
		output string
		opt    chain.DecodeOptions
	}{
		{"spans", m, Spans, chain.DecodeOptions{Constraints: chain.SchemeConstraints(l), Spans: l}},
		{"conll-viterbi", m, CoNLL, chain.DecodeOptions{}},
		{"pos-chunk-spans", pipe, Spans, chain.DecodeOptions{Constraints: chain.SchemeConstraints(pl), Spans: pl}},
	} {
		for _, threads := range []int{1, 2} {
			b.Run(c.name+"/threads="+strconv.Itoa(threads), func(b *testing.B) {
				b.ReportAllocs()
				cpu0 := cpuSeconds()
				for range b.N {
					r := rawtext.NewReader("text", bytes.NewReader(text), rawtext.Options{})
					if err := TagDocuments(io.Discard, c.m, r, "text", DocumentOptions{Output: c.output, Decode: c.opt, Threads: threads}); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.N*tokens)/b.Elapsed().Seconds(), "tokens/s")
				// On a shared machine the wall clock counts other
				// processes' time; the process's CPU time (all its
				// threads, the garbage collector's included) does not.
				b.ReportMetric(float64(b.N*tokens)/(cpuSeconds()-cpu0), "tokens/cpu-s")
			})
		}
	}
}
