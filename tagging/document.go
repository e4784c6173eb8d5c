package tagging

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/dataset"
	"github.com/sparsetag/sparsetag/rawtext"
	"github.com/sparsetag/sparsetag/scheme"
)

// Spans is the output format of TagDocuments that gives each document's
// chunks as spans of its text.
const Spans = "spans"

// DocumentOptions are the options of TagDocuments.
type DocumentOptions struct {
	// Output is Spans (one JSON object per document), JSON (one per
	// sentence, with the tokens' offsets), CoNLL or Slash (as Stream
	// writes them, one sequence per sentence).
	Output string
	// Tokenizer splits sentences into tokens; nil means rawtext.PTB.
	Tokenizer rawtext.Tokenizer
	// Decode are the decoding options of every sentence. For Spans output,
	// Decode.Spans must be set (with constraints of its scheme).
	Decode    chain.DecodeOptions
	Marginals bool // conll and slash output: also write marginals
	Threads   int  // goroutines; <= 0: 1
	// Batch is the number of sentences decoded together (whole documents,
	// at least one); <= 0: DefaultBatch. Memory is bounded by a batch and
	// its documents.
	Batch int
}

// docSentence is one sentence in flight: its example, buffers and
// decoding.
type docSentence struct {
	doc, index int // document in the batch, sentence in the document
	ex         dataset.Example
	rows       [][]string
	words      []string
	dec        chain.Decoding
}

// docBatch is the documents in flight and their sentences.
type docBatch struct {
	docs  []rawtext.Doc
	lines []int
	sents []docSentence
	n     int // sentences used
}

// TagDocuments reads the documents of r, splits them into sentences and
// tokens (rawtext.Document), decodes every sentence with m on o.Threads
// goroutines, and writes the results to out in input order, a batch of
// sentences at a time. Errors name the input, the document's line and the
// sentence. A sentence longer than dataset.MaxSequenceLen tokens is an
// error, as a sequence of any other format is: memory stays bounded by a
// batch.
func TagDocuments(out io.Writer, m Tagger, r *rawtext.Reader, name string, o DocumentOptions) error {
	if o.Tokenizer == nil {
		o.Tokenizer = rawtext.PTB{}
	}
	switch o.Output {
	case Spans:
		if o.Decode.Spans == nil {
			return fmt.Errorf("tagging: spans output needs a label scheme (DecodeOptions.Spans)")
		}
	case JSON, CoNLL, Slash:
	default:
		return fmt.Errorf("unknown output format %q (want spans, json, conll or slash)", o.Output)
	}
	if o.Batch <= 0 {
		o.Batch = DefaultBatch
	}
	threads := max(o.Threads, 1)
	w := bufio.NewWriterSize(out, 64<<10)
	tw := NewWriter(m, StreamOptions{Output: o.Output, Decode: o.Decode, Marginals: o.Marginals})
	var b docBatch
	for {
		more, err := b.fill(r, o.Tokenizer, o.Batch, name)
		if err != nil {
			w.Flush()
			return err
		}
		if b.n > 0 {
			if err := b.decode(m, o.Decode, threads, name); err != nil {
				w.Flush()
				return err
			}
			first := 0
			for d := range b.docs {
				if err := writeDocument(w, tw, &b, d, first, &o); err != nil {
					return err
				}
				first += len(b.docs[d].Sentences)
			}
		}
		if !more {
			break
		}
		if err := w.Flush(); err != nil {
			return err
		}
	}
	if err := r.Err(); err != nil {
		w.Flush()
		return err
	}
	return w.Flush()
}

// fill reads documents into b until it holds at least batch sentences or
// the input ends, and reports whether the input may hold more.
func (b *docBatch) fill(r *rawtext.Reader, tok rawtext.Tokenizer, batch int, name string) (bool, error) {
	b.docs, b.lines, b.n = b.docs[:0], b.lines[:0], 0
	for b.n < batch {
		if !r.Next() {
			return false, nil
		}
		if len(b.docs) < cap(b.docs) {
			b.docs = b.docs[:len(b.docs)+1]
		} else {
			b.docs = append(b.docs, rawtext.Doc{})
		}
		d := len(b.docs) - 1
		doc := &b.docs[d]
		if err := rawtext.Document(doc, r.Text(), tok); err != nil {
			return false, fmt.Errorf("%s:%d: %w", name, r.Line(), err)
		}
		b.lines = append(b.lines, r.Line())
		for i := range doc.Sentences {
			if n := len(doc.Sentences[i].Tokens); n > dataset.MaxSequenceLen {
				return false, fmt.Errorf("%s:%d: sentence %d has %d tokens, more than the limit %d (text without sentence ends?)", name, r.Line(), i+1, n, dataset.MaxSequenceLen)
			}
		}
		for i := range doc.Sentences {
			if b.n == len(b.sents) {
				b.sents = append(b.sents, docSentence{})
			}
			s := &b.sents[b.n]
			b.n++
			s.doc, s.index = d, i
			s.setTokens(doc.Sentences[i].Tokens, name, r.Line())
		}
	}
	return true, nil
}

// setTokens makes s's example of the words of toks.
func (s *docSentence) setTokens(toks []rawtext.Token, name string, line int) {
	n := len(toks)
	if cap(s.words) < n {
		s.words = make([]string, n)
		s.rows = make([][]string, n)
	}
	s.words, s.rows = s.words[:n], s.rows[:n]
	for t := range toks {
		s.words[t] = toks[t].Word
		s.rows[t] = s.words[t : t+1 : t+1]
	}
	s.ex = dataset.Example{Tokens: s.rows, Text: s.words, File: name, Line: line}
}

// decode decodes the sentences of b on threads goroutines.
func (b *docBatch) decode(m Tagger, opt chain.DecodeOptions, threads int, name string) error {
	errs := make([]error, threads)
	var next atomic.Int64
	work := func(w int) {
		for {
			k := int(next.Add(1) - 1)
			if k >= b.n {
				return
			}
			s := &b.sents[k]
			if err := m.Decode(&s.dec, &s.ex, opt); err != nil {
				errs[w] = fmt.Errorf("%s:%d: sentence %d: %w", name, b.lines[s.doc], s.index+1, err)
				return
			}
		}
	}
	if threads == 1 {
		work(0)
	} else {
		var wg sync.WaitGroup
		for w := range threads {
			wg.Add(1)
			go func() { defer wg.Done(); work(w) }()
		}
		wg.Wait()
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// writeDocument writes document d of b, whose sentences start at
// b.sents[first], in the output format.
func writeDocument(w *bufio.Writer, tw *Writer, b *docBatch, d, first int, o *DocumentOptions) error {
	doc := &b.docs[d]
	sents := b.sents[first : first+len(doc.Sentences)]
	if o.Output == Spans {
		writeSpans(w, doc, sents, b.lines[d], o.Decode.Spans, tw.labels)
		return nil
	}
	for i := range sents {
		s := &sents[i]
		if o.Output == JSON {
			if err := writeSentenceJSON(w, tw, doc, s, b.lines[d]); err != nil {
				return err
			}
			continue
		}
		if err := tw.write(w, &s.ex, &s.dec); err != nil {
			return err
		}
	}
	return nil
}

// writeSpans writes one document's spans object.
func writeSpans(w *bufio.Writer, doc *rawtext.Doc, sents []docSentence, line int, l *scheme.Labels, labels []string) {
	buf := w.AvailableBuffer()
	buf = append(buf, `{"line":`...)
	buf = strconv.AppendInt(buf, int64(line), 10)
	buf = append(buf, `,"text":`...)
	buf = appendJSONString(buf, doc.Text)
	buf = append(buf, `,"sentences":[`...)
	for i := range doc.Sentences {
		s := &doc.Sentences[i]
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = appendOffsets(buf, s.Start, s.End, s.StartByte, s.EndByte)
		buf = append(buf, '}')
	}
	buf = append(buf, `],"spans":[`...)
	n := 0
	types := l.Types()
	for i := range sents {
		toks := doc.Sentences[i].Tokens
		for _, sp := range sents[i].dec.Spans {
			a, z := toks[sp.Start], toks[sp.End-1]
			if n > 0 {
				buf = append(buf, ',')
			}
			n++
			buf = appendOffsets(buf, a.Start, z.End, a.StartByte, z.EndByte)
			buf = append(buf, `,"label":`...)
			buf = appendJSONString(buf, types[sp.Type])
			buf = append(buf, `,"text":`...)
			buf = appendJSONString(buf, doc.Text[a.StartByte:z.EndByte])
			buf = append(buf, `,"confidence":`...)
			buf = strconv.AppendFloat(buf, sp.Prob, 'f', 6, 64)
			buf = append(buf, '}')
		}
		if len(buf) > 32<<10 {
			w.Write(buf)
			buf = w.AvailableBuffer()
		}
	}
	buf = append(buf, "]}\n"...)
	w.Write(buf)
}

// appendOffsets appends `{"start":S,"end":E,"start_byte":SB,"end_byte":EB`
// (the object left open).
func appendOffsets(buf []byte, start, end, startByte, endByte int) []byte {
	buf = append(buf, `{"start":`...)
	buf = strconv.AppendInt(buf, int64(start), 10)
	buf = append(buf, `,"end":`...)
	buf = strconv.AppendInt(buf, int64(end), 10)
	buf = append(buf, `,"start_byte":`...)
	buf = strconv.AppendInt(buf, int64(startByte), 10)
	buf = append(buf, `,"end_byte":`...)
	return strconv.AppendInt(buf, int64(endByte), 10)
}

// writeSentenceJSON writes one sentence as --output json does, with the
// document's line, the sentence's offsets and each token's.
func writeSentenceJSON(w *bufio.Writer, tw *Writer, doc *rawtext.Doc, s *docSentence, line int) error {
	var obj []byte
	{
		var sb bufWriter
		if err := writeTagJSON(&sb, tw.labels, &s.ex, &s.dec, &tw.o); err != nil {
			return err
		}
		obj = sb.b
	}
	// obj is {...}\n: insert the offsets before the closing brace.
	obj = obj[:len(obj)-2]
	sent := &doc.Sentences[s.index]
	buf := w.AvailableBuffer()
	buf = append(buf, obj...)
	buf = append(buf, `,"line":`...)
	buf = strconv.AppendInt(buf, int64(line), 10)
	buf = append(buf, `,"sentence":`...)
	buf = appendOffsets(buf, sent.Start, sent.End, sent.StartByte, sent.EndByte)
	buf = append(buf, `},"offsets":[`...)
	for t, tok := range sent.Tokens {
		if t > 0 {
			buf = append(buf, ',')
		}
		buf = appendOffsets(buf, tok.Start, tok.End, tok.StartByte, tok.EndByte)
		buf = append(buf, '}')
	}
	buf = append(buf, "]}\n"...)
	_, err := w.Write(buf)
	return err
}

// bufWriter is an io.Writer into a byte slice.
type bufWriter struct{ b []byte }

func (w *bufWriter) Write(p []byte) (int, error) { w.b = append(w.b, p...); return len(p), nil }

// appendJSONString appends s (valid UTF-8) as a JSON string: quotes,
// backslashes and control characters escaped, and U+2028 and U+2029 (which
// JavaScript does not accept raw in strings).
func appendJSONString(buf []byte, s string) []byte {
	const hex = "0123456789abcdef"
	buf = append(buf, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			buf = append(buf, s[start:i]...)
			switch c {
			case '"', '\\':
				buf = append(buf, '\\', c)
			case '\n':
				buf = append(buf, '\\', 'n')
			case '\r':
				buf = append(buf, '\\', 'r')
			case '\t':
				buf = append(buf, '\\', 't')
			default:
				buf = append(buf, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == '\u2028' || r == '\u2029' {
			buf = append(buf, s[start:i]...)
			buf = append(buf, '\\', 'u', '2', '0', '2', hex[r&0xf])
			i += n
			start = i
			continue
		}
		i += n
	}
	buf = append(buf, s[start:]...)
	return append(buf, '"')
}
