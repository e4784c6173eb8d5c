package main

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/rawtext"
	"github.com/sparsetag/sparsetag/scheme"
	"github.com/sparsetag/sparsetag/tagging"
)

// SpansRequest is the body of POST /spans: running text (one document,
// split into sentences), and optionally the label scheme of the model's
// chunk labels (iob1, iob2, iobes, bilou; default: detected from the
// labels).
type SpansRequest struct {
	Text   *string `json:"text"`
	Scheme string  `json:"scheme,omitempty"`
}

// SpansResponse is the answer of POST /spans: the object tagger tag
// --format document --output spans writes for one document.
type SpansResponse struct {
	Line      int            `json:"line"`
	Text      string         `json:"text"`
	Sentences []SpanSentence `json:"sentences"`
	Spans     []SpanOfText   `json:"spans"`
}

// SpanSentence is a sentence's offsets: code points and UTF-8 bytes.
type SpanSentence struct {
	Start     int `json:"start"`
	End       int `json:"end"`
	StartByte int `json:"start_byte"`
	EndByte   int `json:"end_byte"`
}

// SpanOfText is one chunk: its offsets, label, text and confidence (its
// marginal probability).
type SpanOfText struct {
	SpanSentence
	Label      string  `json:"label"`
	Text       string  `json:"text"`
	Confidence float64 `json:"confidence"`
}

// spans serves POST /spans.
func (h *handler) spans(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		writeError(w, http.StatusMethodNotAllowed, `use POST /spans with a JSON body {"text": "..."}`)
		return
	}
	var req SpansRequest
	if status, err := decode(w, r, h.lim.MaxBody, &req); err != nil {
		writeError(w, status, err.Error())
		return
	}
	if req.Text == nil {
		writeError(w, http.StatusBadRequest, `missing "text"`)
		return
	}
	if h.textErr != "" {
		writeError(w, http.StatusBadRequest, h.textErr)
		return
	}
	sch := scheme.Detect(h.labels)
	if req.Scheme != "" {
		var err error
		if sch, err = scheme.Parse(req.Scheme); err != nil {
			writeError(w, http.StatusBadRequest, `"scheme": `+err.Error())
			return
		}
	}
	l, err := scheme.NewLabels(sch, h.labels)
	if err != nil {
		writeError(w, http.StatusBadRequest, fmt.Sprintf(`"scheme" %s: the model's labels do not fit: %v`, sch, err))
		return
	}
	// Count the tokens first: the limit holds before any decoding.
	var d rawtext.Doc
	if err := rawtext.Document(&d, *req.Text, rawtext.PTB{}); err != nil {
		writeError(w, http.StatusBadRequest, "text: "+err.Error())
		return
	}
	n := 0
	for _, s := range d.Sentences {
		n += len(s.Tokens)
	}
	if n > h.lim.MaxTokens {
		writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("text has %d tokens, more than the limit %d", n, h.lim.MaxTokens))
		return
	}
	if n == 0 {
		writeError(w, http.StatusBadRequest, "nothing to tag: no tokens")
		return
	}
	var out bytes.Buffer
	dr := rawtext.NewReader("text", strings.NewReader(*req.Text), rawtext.Options{PerInput: true, MaxDocumentBytes: int(h.lim.MaxBody)})
	opt := chain.DecodeOptions{Constraints: chain.SchemeConstraints(l), Spans: l}
	if err := tagging.TagDocuments(&out, h.m, dr, "text", tagging.DocumentOptions{Output: tagging.Spans, Decode: opt, Threads: 1}); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	w.Write(out.Bytes())
}
