package corpora

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

// Every fuzz target checks that a reader never panics, that it fails only
// with a *ParseError, and that what it accepts satisfies the documented
// invariants; the column readers also round-trip through their writer. Seed
// corpora live in testdata/fuzz/<Target>.

// small limits keep the fuzzers fast.
const fuzzMaxLine = 4096

func checkParseError(t *testing.T, err error) {
	t.Helper()
	var pe *ParseError
	if err != nil && (!errors.As(err, &pe) || pe.Line < 1 || pe.Column < 0) {
		t.Fatalf("error %v (%T) is not a positioned *ParseError", err, err)
	}
}

func FuzzCoNLL(f *testing.F) {
	f.Add([]byte("He PRP B-NP\nran VBD B-VP\n\n-DOCSTART- -X- O\n\nOK UH O\n"), false)
	f.Add([]byte("a b\r\nc d\r\n"), true)
	f.Fuzz(func(t *testing.T, in []byte, unlabeled bool) {
		opts := CoNLLOptions{Unlabeled: unlabeled, MaxLineBytes: fuzzMaxLine}
		requireSameCoNLL(t, in, opts) // the reader it replaced, on the same bytes
		seqs, err := ReadCoNLL("f", bytes.NewReader(in), opts)
		checkParseError(t, err)
		if err != nil {
			return
		}
		var buf bytes.Buffer
		for _, s := range seqs {
			if len(s.Tokens) == 0 || (s.Labels == nil) != unlabeled || (!unlabeled && len(s.Labels) != len(s.Tokens)) {
				t.Fatalf("bad sequence %+v", s)
			}
			for _, row := range s.Tokens {
				if len(row) != len(s.Tokens[0]) {
					t.Fatalf("ragged rows %q", s.Tokens)
				}
			}
			if err := WriteCoNLL(&buf, s); err != nil {
				t.Fatalf("WriteCoNLL of a read sequence: %v", err)
			}
		}
		again, err := ReadCoNLL("f", &buf, opts)
		if err != nil || len(again) != len(seqs) {
			t.Fatalf("round trip: %d sequences, %v", len(again), err)
		}
		for i := range seqs {
			require.Equal(t, seqs[i].Labels, again[i].Labels, "round trip of sequence %d", i)
			require.Equal(t, seqs[i].Tokens, again[i].Tokens, "round trip of sequence %d", i)
		}
	})
}

func FuzzCRFsuite(f *testing.F) {
	f.Add([]byte("B-NP\tw=He\tpos=PRP:0.5\nO\n\nI\tw\\:x\\\\y:-2e-3\n"), false)
	f.Add([]byte("a\tb:NaN\n"), true)
	f.Fuzz(func(t *testing.T, in []byte, unlabeled bool) {
		opts := CRFsuiteOptions{Unlabeled: unlabeled, MaxLineBytes: fuzzMaxLine}
		seqs, err := ReadCRFsuite("f", bytes.NewReader(in), opts)
		checkParseError(t, err)
		if err != nil {
			return
		}
		// The bytes read hold what the strings do.
		r := NewCRFsuiteReader("f", bytes.NewReader(in), opts)
		for i := 0; r.Next(); i++ {
			rawMatches(t, r.Raw(), seqs[i])
		}
		var buf bytes.Buffer
		for _, s := range seqs {
			if len(s.Attrs) == 0 || s.Tokens != nil || (!unlabeled && len(s.Labels) != len(s.Attrs)) {
				t.Fatalf("bad sequence %+v", s)
			}
			if err := WriteCRFsuite(&buf, s); err != nil {
				if unlabeled {
					// An unlabeled position with only blank names cannot be
					// written back; the writer must say so, not corrupt.
					continue
				}
				t.Fatalf("WriteCRFsuite of a read sequence: %v", err)
			}
		}
		if unlabeled {
			return
		}
		// Ignoring the labels reads the same attributes.
		ign, err := ReadCRFsuite("f", bytes.NewReader(in), CRFsuiteOptions{IgnoreLabels: true, MaxLineBytes: fuzzMaxLine})
		if err != nil || len(ign) != len(seqs) {
			t.Fatalf("IgnoreLabels: %d sequences, %v", len(ign), err)
		}
		for i := range seqs {
			require.Nil(t, ign[i].Labels)
			require.Equal(t, seqs[i].Attrs, ign[i].Attrs, "IgnoreLabels attrs of sequence %d", i)
		}
		again, err := ReadCRFsuite("f", &buf, opts)
		if err != nil || len(again) != len(seqs) {
			t.Fatalf("round trip: %d sequences, %v\n%q", len(again), err, buf.String())
		}
		for i := range seqs {
			require.Equal(t, seqs[i].Labels, again[i].Labels, "round trip labels")
			for p := range seqs[i].Attrs {
				if len(again[i].Attrs[p]) != len(seqs[i].Attrs[p]) {
					t.Fatalf("round trip attrs %v vs %v", again[i].Attrs[p], seqs[i].Attrs[p])
				}
				for j, a := range seqs[i].Attrs[p] {
					if again[i].Attrs[p][j] != a {
						t.Fatalf("round trip attr %v vs %v", again[i].Attrs[p][j], a)
					}
				}
			}
		}
	})
}

func FuzzCoNLLU(f *testing.F) {
	f.Add([]byte(conlluSample), uint8(0))
	f.Add([]byte("1\ta\ta\t_\tX\t_\t0\troot\t_\t_\n"), uint8(3))
	f.Fuzz(func(t *testing.T, in []byte, mode uint8) {
		opts := CoNLLUOptions{Label: CoNLLULabel(mode & 1), Unlabeled: mode&2 != 0, MaxLineBytes: fuzzMaxLine}
		seqs, err := ReadCoNLLU("f", bytes.NewReader(in), opts)
		checkParseError(t, err)
		for _, s := range seqs {
			if len(s.Tokens) == 0 || (s.Labels == nil) != opts.Unlabeled {
				t.Fatalf("bad sentence %+v", s)
			}
			for t2, row := range s.Tokens {
				if len(row) != 4 {
					t.Fatalf("row %d has %d columns", t2, len(row))
				}
			}
			for _, l := range s.Labels {
				if l == "" || l == "_" {
					t.Fatalf("empty label accepted")
				}
			}
		}
	})
}

func FuzzOCR(f *testing.F) {
	f.Add([]byte(ocrLine(1, "a", 2, 1, 1, 0, diag) + ocrLine(2, "b", -1, 1, 2, 0, diag)))
	f.Add([]byte(ocrLine(1, "a", 1, 1, 1, 0, diag)))
	f.Fuzz(func(t *testing.T, in []byte) {
		words, err := ReadOCR("f", bytes.NewReader(in), OCROptions{MaxLineBytes: fuzzMaxLine})
		checkParseError(t, err)
		for _, w := range words {
			if len(w.Labels) == 0 || len(w.Labels) != len(w.Pixels) {
				t.Fatalf("bad word %+v", w)
			}
			for i, px := range w.Pixels {
				if len(px) != OCRPixels || len(w.Labels[i]) != 1 {
					t.Fatalf("bad letter %q %v", w.Labels[i], px)
				}
				for _, p := range px {
					if p > 1 {
						t.Fatalf("pixel %d", p)
					}
				}
			}
		}
	})
}

func FuzzTokenize(f *testing.F) {
	f.Add("Hello, world!")
	f.Add("a\u00a0b\u3000c 東京 😀👍🏽 e\u0301 \u200b\ufffd\x00")
	f.Add("\xff\xfe")
	f.Fuzz(func(t *testing.T, text string) {
		if len(text) > fuzzMaxLine {
			return
		}
		toks, err := Tokenize(text)
		if !utf8.ValidString(text) {
			if !errors.Is(err, ErrInvalidUTF8) {
				t.Fatalf("invalid UTF-8 %q: err = %v", text, err)
			}
			return
		}
		if err != nil {
			t.Fatalf("%q: %v", text, err)
		}
		checkTokens(t, text, toks)
		// The reader must agree with Tokenize on a line without breaks.
		if !strings.ContainsAny(text, "\r\n") && len(toks) > 0 && !strings.HasPrefix(text, "\ufeff") {
			r := NewTextReader("f", strings.NewReader(text), TextOptions{})
			if !r.Next() || len(r.Sequence().Tokens) != len(toks) {
				t.Fatalf("TextReader disagrees on %q: %v", text, r.Err())
			}
		}
	})
}
