package features

import (
	"bufio"
	"compress/gzip"
	"os"
	"strings"
	"testing"

	"github.com/sparsetag/sparsetag/sparse"
)

const conllTrain = "../corpora/data/conll2000/train.txt.gz" // the embedded copy

// conllSentence is one sentence of CoNLL-2000: columns (word, POS) and chunk
// label ids.
type conllSentence struct {
	cols   [][]string
	labels []int32
}

// readCoNLL is a tiny reader for "word POS chunk" lines with blank lines
// between sentences (package corpora has the real one; features must not
// import it). It returns the sentences and the number of distinct labels.
func readCoNLL(tb testing.TB, path string) ([]conllSentence, int) {
	f, err := os.Open(path)
	if err != nil {
		tb.Skipf("CoNLL-2000 data not available: %v", err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		tb.Fatal(err)
	}
	labelIDs := map[string]int32{}
	var out []conllSentence
	var cur conllSentence
	sc := bufio.NewScanner(zr)
	line := 0
	for sc.Scan() {
		line++
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			if len(cur.cols) > 0 {
				out = append(out, cur)
				cur = conllSentence{}
			}
			continue
		}
		if len(fields) != 3 {
			tb.Fatalf("%s:%d: want 3 columns, got %d", path, line, len(fields))
		}
		y, ok := labelIDs[fields[2]]
		if !ok {
			y = int32(len(labelIDs))
			labelIDs[fields[2]] = y
		}
		cur.cols = append(cur.cols, fields[:2])
		cur.labels = append(cur.labels, y)
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	if len(cur.cols) > 0 {
		out = append(out, cur)
	}
	return out, len(labelIDs)
}

func readTemplate(tb testing.TB, path string) *Template {
	src, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	tm, err := Compile(string(src))
	if err != nil {
		tb.Fatal(err)
	}
	return tm
}

// BenchmarkEncodeCoNLL2000 encodes the whole CoNLL-2000 training set with the
// CRF++ chunking template, growing the dictionary from empty (training).
func BenchmarkEncodeCoNLL2000(b *testing.B) {
	sents, numLabels := readCoNLL(b, conllTrain)
	tm := readTemplate(b, "testdata/chunking.template")
	var e *Encoder
	var c sparse.Corpus
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		e = NewTemplateEncoder(tm)
		c = sparse.Corpus{}
		for _, s := range sents {
			if err := e.Encode(&c, Columns(s.cols), s.labels, true); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.StopTimer()
	A, L := e.Unary().Len(), numLabels
	b.ReportMetric(float64(len(sents)), "sentences")
	b.ReportMetric(float64(c.Positions()), "tokens")
	b.ReportMetric(float64(A), "attributes")
	b.ReportMetric(float64(A*L+L*L), "weights")
	b.ReportMetric(float64(ObservedPairs(&c, L).Count()+L*L), "observed-weights")
}

// BenchmarkEncodeCoNLL2000Frozen re-encodes the training set with a frozen
// dictionary into a reused corpus (tagging-time steady state).
func BenchmarkEncodeCoNLL2000Frozen(b *testing.B) {
	sents, _ := readCoNLL(b, conllTrain)
	tm := readTemplate(b, "testdata/chunking.template")
	e := NewTemplateEncoder(tm)
	var c sparse.Corpus
	for _, s := range sents {
		if err := e.Encode(&c, Columns(s.cols), s.labels, true); err != nil {
			b.Fatal(err)
		}
	}
	e.Freeze(0)
	c.Reset()
	if err := e.Encode(&c, Columns(sents[0].cols), sents[0].labels, false); err != nil {
		b.Fatal(err) // the first frozen encode builds the lookup: keep it out of the timing
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		c.Reset()
		for _, s := range sents {
			if err := e.Encode(&c, Columns(s.cols), s.labels, false); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.N*c.Positions())/b.Elapsed().Seconds(), "tokens/s")
}

// TestChunkingTemplate checks the shipped template file: 19 U lines and the
// bare B line.
func TestChunkingTemplate(t *testing.T) {
	tm := readTemplate(t, "testdata/chunking.template")
	if tm.NumUnary() != 19 || tm.NumPair() != 0 || !tm.HasTransitions() || tm.Columns() != 2 {
		t.Errorf("NumUnary=%d NumPair=%d HasTransitions=%v Columns=%d, want 19 0 true 2",
			tm.NumUnary(), tm.NumPair(), tm.HasTransitions(), tm.Columns())
	}
}

// BenchmarkFrozenIndex builds the frozen lookup of the CoNLL-2000 chunking
// dictionary (every attribute of the training set, no cutoff): the one-off
// cost of the first tagging call after loading a model.
func BenchmarkFrozenIndex(b *testing.B) {
	sents, _ := readCoNLL(b, conllTrain)
	tm := readTemplate(b, "testdata/chunking.template")
	e := NewTemplateEncoder(tm)
	for _, s := range sents {
		if err := e.Count(Columns(s.cols)); err != nil {
			b.Fatal(err)
		}
	}
	e.Freeze(0)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		newFrozenIndex(tm, e.Unary(), e.Pair())
	}
}

// BenchmarkEncodeCoNLL2000Floor is the floor of BenchmarkEncodeCoNLL2000's
// dictionary work: the same attribute strings (built beforehand, one per U
// line and position, in encoding order) through a map, without templates,
// rows or counts. "lookup" finds each in a map that holds them all already
// (the map look-ups alone); "grow" interns them into an empty map in
// first-seen order, as the training encoder's dictionary does (a look-up
// per string, an insertion per new one).
func BenchmarkEncodeCoNLL2000Floor(b *testing.B) {
	sents, _ := readCoNLL(b, conllTrain)
	tm := readTemplate(b, "testdata/chunking.template")
	var names []string
	var buf []byte
	for _, s := range sents {
		for t := range s.cols {
			for k := range tm.unary {
				buf = appendRule(buf[:0], &tm.unary[k], s.cols, t)
				names = append(names, string(buf))
			}
		}
	}
	full := map[string]int32{}
	for _, s := range names {
		if _, ok := full[s]; !ok {
			full[s] = int32(len(full))
		}
	}
	b.Run("lookup", func(b *testing.B) {
		for b.Loop() {
			sum := int32(0)
			for _, s := range names {
				sum += full[s]
			}
			if sum < 0 {
				b.Fatal(sum)
			}
		}
		b.ReportMetric(float64(len(names)), "lookups")
	})
	b.Run("grow", func(b *testing.B) {
		for b.Loop() {
			m := map[string]int32{}
			for _, s := range names {
				if _, ok := m[s]; !ok {
					m[s] = int32(len(m))
				}
			}
			if len(m) != len(full) {
				b.Fatal(len(m))
			}
		}
		b.ReportMetric(float64(len(full)), "names")
	})
}
