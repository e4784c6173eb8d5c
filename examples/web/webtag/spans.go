package webtag

import (
	"errors"
	"fmt"
	"time"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/dataset"
	"github.com/sparsetag/sparsetag/rawtext"
	"github.com/sparsetag/sparsetag/scheme"
)

// Offsets place a sentence or a span in the text: Start and End in
// UTF-16 code units (JavaScript string indices, for slicing the text in
// the page), CodeStart and CodeEnd in code points and StartByte and
// EndByte in UTF-8 bytes (the offsets of tagger tag --output spans).
type Offsets struct {
	Start     int `json:"start"`
	End       int `json:"end"`
	CodeStart int `json:"codeStart"`
	CodeEnd   int `json:"codeEnd"`
	StartByte int `json:"startByte"`
	EndByte   int `json:"endByte"`
}

// Span is one chunk of the text.
type Span struct {
	Offsets
	Label      string  `json:"label"`
	Text       string  `json:"text"`
	Confidence float64 `json:"confidence"` // its marginal probability
}

// SpansResult is the chunks of a text, as tagger tag --format document
// --output spans finds them.
type SpansResult struct {
	Scheme    string    `json:"scheme"`
	Sentences []Offsets `json:"sentences"`
	Spans     []Span    `json:"spans"`
	Millis    float64   `json:"millis"`
}

// Spans splits text into sentences and tokens (rawtext, Penn Treebank
// tokens), decodes every sentence with model id under the constraints of
// the label scheme (schemeName: iob1, iob2, iobes or bilou; "" detects it
// from the labels) and returns the chunks with their offsets and
// confidences. The model must read words alone (Info.Text).
func (s *Session) Spans(id int, text, schemeName string) (*SpansResult, error) {
	e, err := s.model(id)
	if err != nil {
		return nil, err
	}
	if !e.info.Text {
		return nil, errors.New("spans: this model does not read raw text (it reads more than the words)")
	}
	sch := scheme.Detect(e.info.Labels)
	if schemeName != "" {
		if sch, err = scheme.Parse(schemeName); err != nil {
			return nil, err
		}
	}
	l, err := scheme.NewLabels(sch, e.info.Labels)
	if err != nil {
		return nil, fmt.Errorf("spans: %w", err)
	}
	t0 := time.Now()
	var d rawtext.Doc
	if err := rawtext.Document(&d, text, rawtext.PTB{}); err != nil {
		return nil, err
	}
	u := newUTF16Index(text)
	at := func(c0, c1, b0, b1 int) Offsets {
		return Offsets{Start: u.offset(b0), End: u.offset(b1), CodeStart: c0, CodeEnd: c1, StartByte: b0, EndByte: b1}
	}
	r := &SpansResult{Scheme: sch.String(), Sentences: []Offsets{}, Spans: []Span{}}
	opt := chain.DecodeOptions{Constraints: chain.SchemeConstraints(l), Spans: l}
	var dec chain.Decoding
	for i, sent := range d.Sentences {
		r.Sentences = append(r.Sentences, at(sent.Start, sent.End, sent.StartByte, sent.EndByte))
		words := make([]string, len(sent.Tokens))
		rows := make([][]string, len(sent.Tokens))
		for t, tok := range sent.Tokens {
			words[t] = tok.Word
			rows[t] = words[t : t+1]
		}
		if len(words) > dataset.MaxSequenceLen {
			return nil, fmt.Errorf("sentence %d: %d tokens, more than %d", i+1, len(words), dataset.MaxSequenceLen)
		}
		ex := dataset.Example{Tokens: rows, Text: words, File: "input", Line: 1}
		if err := e.m.Decode(&dec, &ex, opt); err != nil {
			return nil, fmt.Errorf("sentence %d: %w", i+1, err)
		}
		for _, sp := range dec.Spans {
			a, z := sent.Tokens[sp.Start], sent.Tokens[sp.End-1]
			r.Spans = append(r.Spans, Span{
				Offsets:    at(a.Start, z.End, a.StartByte, z.EndByte),
				Label:      l.Types()[sp.Type],
				Text:       text[a.StartByte:z.EndByte],
				Confidence: sp.Prob,
			})
		}
	}
	r.Millis = millis(time.Since(t0))
	return r, nil
}
