package webtag_test

import (
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/sparsetag/sparsetag/examples/web/webtag"
)

// TestSpans: the page's spans are the chunks with offsets in UTF-16 (for
// JavaScript), code points and bytes that all select the span's text,
// and confidences in (0, 1]; a model that does not read raw text, or whose
// labels do not fit the scheme, is refused.
func TestSpans(t *testing.T) {
	s := webtag.NewSession()
	info := loadEmbedded(t, s, "chunk-words.model.gz")
	text := "Zoë Müller went to 𝄞 Zürich on Tuesday. He paid $5.50 for it."
	r, err := s.Spans(info.ID, text, "")
	if err != nil {
		t.Fatal(err)
	}
	if r.Scheme != "iob2" || len(r.Sentences) != 2 || len(r.Spans) == 0 {
		t.Fatalf("scheme %s, %d sentences, %d spans", r.Scheme, len(r.Sentences), len(r.Spans))
	}
	u16 := utf16.Encode([]rune(text))
	runes := []rune(text)
	for _, sp := range r.Spans {
		if got := string(utf16.Decode(u16[sp.Start:sp.End])); got != sp.Text {
			t.Errorf("UTF-16 [%d, %d) is %q, want %q", sp.Start, sp.End, got, sp.Text)
		}
		if got := string(runes[sp.CodeStart:sp.CodeEnd]); got != sp.Text {
			t.Errorf("code points [%d, %d) are %q, want %q", sp.CodeStart, sp.CodeEnd, got, sp.Text)
		}
		if got := text[sp.StartByte:sp.EndByte]; got != sp.Text {
			t.Errorf("bytes [%d, %d) are %q, want %q", sp.StartByte, sp.EndByte, got, sp.Text)
		}
		if !(sp.Confidence > 0 && sp.Confidence <= 1) {
			t.Errorf("confidence %v", sp.Confidence)
		}
	}
	if _, err := s.Spans(info.ID, text, "iobes"); err == nil || !strings.Contains(err.Error(), "cannot mark") {
		t.Errorf("iobes on IOB2 labels: %v", err)
	}
	ocr := loadEmbedded(t, s, "ocr.model.gz")
	if _, err := s.Spans(ocr.ID, text, ""); err == nil {
		t.Error("spans from an OCR model")
	}
}
