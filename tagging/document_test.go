package tagging

import (
	"bytes"
	"encoding/json"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/rawtext"
	"github.com/sparsetag/sparsetag/scheme"
)

func wordsChunkerSpans(t testing.TB) (Tagger, chain.DecodeOptions) {
	m, err := Load(wordsChunker)
	require.NoError(t, err)
	l, err := scheme.NewLabels(scheme.IOB2, m.Labels())
	require.NoError(t, err)
	return m, chain.DecodeOptions{Constraints: chain.SchemeConstraints(l), Spans: l}
}

// TestTagDocumentsOrderAndThreads: one object per document, in input
// order, the same bytes on 1 and 4 threads and with batches smaller than
// a document.
func TestTagDocumentsOrderAndThreads(t *testing.T) {
	m, opt := wordsChunkerSpans(t)
	text, _ := runningText(t, "conll2000/test.txt.gz", 7)
	run := func(threads, batch int) string {
		var out bytes.Buffer
		r := rawtext.NewReader("test", bytes.NewReader(text), rawtext.Options{})
		require.NoError(t, TagDocuments(&out, m, r, "test", DocumentOptions{Output: Spans, Decode: opt, Threads: threads, Batch: batch}))
		return out.String()
	}
	one := run(1, 0)
	assert.Equal(t, one, run(4, 0))
	assert.Equal(t, one, run(3, 2))
	lines := strings.Split(strings.TrimSuffix(one, "\n"), "\n")
	assert.Len(t, lines, bytes.Count(text, []byte("\n")))
	for k, line := range lines {
		var d struct{ Line int }
		require.NoError(t, json.Unmarshal([]byte(line), &d))
		assert.Equal(t, k+1, d.Line)
	}
}

// TestTagDocumentsErrors: errors name the input and the document's line.
func TestTagDocumentsErrors(t *testing.T) {
	m, opt := wordsChunkerSpans(t)
	r := rawtext.NewReader("in.txt", strings.NewReader("Fine.\nBad \xff.\n"), rawtext.Options{})
	var out bytes.Buffer
	err := TagDocuments(&out, m, r, "in.txt", DocumentOptions{Output: Spans, Decode: opt})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "in.txt:2: rawtext: invalid text: invalid UTF-8 at byte 4")
	assert.Equal(t, 1, strings.Count(out.String(), "\n"), "the document before the error is written")

	// a megabyte without a sentence end is one sentence of 200,000 tokens
	long := "Intro.\n" + strings.Repeat("word ", 200000) + "\n"
	err = TagDocuments(io.Discard, m, rawtext.NewReader("long.txt", strings.NewReader(long), rawtext.Options{}), "long.txt", DocumentOptions{Output: Spans, Decode: opt})
	assert.ErrorContains(t, err, "long.txt:2: sentence 1 has 200000 tokens, more than the limit 100000")

	err = TagDocuments(io.Discard, m, rawtext.NewReader("x", strings.NewReader("a"), rawtext.Options{}), "x", DocumentOptions{Output: Spans})
	assert.ErrorContains(t, err, "spans output needs a label scheme")
	err = TagDocuments(io.Discard, m, rawtext.NewReader("x", strings.NewReader("a"), rawtext.Options{}), "x", DocumentOptions{Output: "xml"})
	assert.ErrorContains(t, err, `unknown output format "xml"`)
}

// endlessDocs generates n documents of running text, never holding more
// than one.
type endlessDocs struct {
	n, i int
	buf  []byte
	doc  []byte
}

func (e *endlessDocs) Read(p []byte) (int, error) {
	for len(e.buf) == 0 {
		if e.i == e.n {
			return 0, io.EOF
		}
		e.i++
		e.buf = e.doc
	}
	k := copy(p, e.buf)
	e.buf = e.buf[k:]
	return k, nil
}

// TestTagDocumentsBoundedMemory: 10 MB of documents stream through with a
// heap that stays within a few MB (a batch), not the input's size.
func TestTagDocumentsBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("tags 10 MB of text")
	}
	m, opt := wordsChunkerSpans(t)
	doc := []byte(strings.Repeat("Mr. Smith went to Washington on Tuesday. He paid $5.50 for it. ", 40) + "\n")
	src := &endlessDocs{n: 10 << 20 / len(doc), doc: doc}
	// Collect the earlier tests' garbage first (TestTagDocumentsErrors
	// tokenizes a sentence of 200,000 tokens): until the next collection
	// it counts as heap in use, and a loaded machine delays that cycle.
	runtime.GC()
	var peak uint64
	w := &sampler{every: 1, peak: &peak}
	r := rawtext.NewReader("gen", src, rawtext.Options{})
	require.NoError(t, TagDocuments(w, m, r, "gen", DocumentOptions{Output: Spans, Decode: opt, Threads: 2}))
	t.Logf("%d documents, %d MB; peak heap in use %.1f MB", src.n, src.n*len(doc)>>20, float64(peak)/(1<<20))
	assert.Less(t, peak, uint64(64<<20))
}

// sampler is an io.Writer that records the peak heap in use every
// `every` writes.
type sampler struct {
	every, n int
	peak     *uint64
}

func (s *sampler) Write(p []byte) (int, error) {
	s.n++
	if s.n%s.every == 0 {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		*s.peak = max(*s.peak, ms.HeapInuse)
	}
	return len(p), nil
}
