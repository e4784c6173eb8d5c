package corpora

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTokenizeSimple(t *testing.T) {
	toks, err := Tokenize("  Don't stop--now, 東京タワー!")
	require.NoError(t, err)
	want := []Token{
		{"Don", 2, 5}, {"'", 5, 6}, {"t", 6, 7}, {"stop", 8, 12}, {"-", 12, 13}, {"-", 13, 14},
		{"now", 14, 17}, {",", 17, 18}, {"東", 19, 22}, {"京", 22, 25}, {"タワー", 25, 34}, {"!", 34, 35},
	}
	assert.Equal(t, want, toks)
}

// checkTokens verifies the documented invariants of Tokenize on valid text:
// offsets increase, Text == text[Start:End], no kept character is lost, and
// no token holds a space.
func checkTokens(t *testing.T, text string, toks []Token) {
	t.Helper()
	covered := make([]bool, len(text))
	prev := 0
	for _, tok := range toks {
		if tok.Start < prev || tok.End <= tok.Start || tok.End > len(text) || text[tok.Start:tok.End] != tok.Text {
			t.Fatalf("%q: bad token %+v after %d", text, tok, prev)
		}
		if !utf8.ValidString(tok.Text) {
			t.Fatalf("%q: token %+v splits a character", text, tok)
		}
		for _, r := range tok.Text {
			if unicode.IsSpace(r) {
				t.Fatalf("%q: token %+v holds a space", text, tok)
			}
		}
		for i := tok.Start; i < tok.End; i++ {
			covered[i] = true
		}
		prev = tok.End
	}
	for i, r := range text {
		dropped := unicode.IsSpace(r) || unicode.Is(unicode.Cc, r)
		if !dropped && !covered[i] {
			t.Fatalf("%q: character %q at %d is in no token (tokens %v)", text, r, i, toks)
		}
	}
}

func TestTokenizeOddUnicode(t *testing.T) {
	for _, text := range []string{
		"", " ", "\t\r\n", "a", "a\u00a0b\u3000c\u2028d\u0085e", // Unicode spaces separate
		"x\u200by\u200dz", // zero-width space and joiner (Cf) stay in the token
		"e\u0301t\u00e9 naïve",
		"😀👍🏽 ok 🇫🇷",
		"مرحبا، عالم!", "שלום\u200f עולם",
		"\ufffd\ufffdab\ufffd", "a\x00b\x01c\x7f",
		"日本語のテキスト。", "𠀀𠀁 \U0002A700", // CJK extension B, C
		"...!!!", "«quoted» ‘x’ — y…",
		"\ufeffBOM", strings.Repeat("ab ", 1000),
	} {
		toks, err := Tokenize(text)
		if err != nil {
			t.Errorf("%q: %v", text, err)
			continue
		}
		checkTokens(t, text, toks)
	}
	if toks, _ := Tokenize("a\u00a0b"); len(toks) != 2 {
		t.Errorf("NBSP did not separate: %v", toks)
	}
	if toks, _ := Tokenize("x\u200by"); len(toks) != 1 || toks[0].Text != "x\u200by" {
		t.Errorf("zero-width space: %v", toks)
	}
	// The inputs that broke the library's BERT normalizer.
	for _, c := range []struct {
		text string
		want []string
	}{
		{"\u0080ab c", []string{"ab", "c"}},
		{"\u0080\U0001F44D\u033d ", []string{"\U0001F44D\u033d"}},
		{"\u0080éa c", []string{"éa", "c"}},
		{"\x00\x00abc d", []string{"abc", "d"}},
	} {
		toks, err := Tokenize(c.text)
		var got []string
		for _, tok := range toks {
			got = append(got, tok.Text)
		}
		assert.NoError(t, err, "%q", c.text)
		assert.Equal(t, c.want, got, "%q", c.text)
	}
}

func TestTokenizeInvalidUTF8(t *testing.T) {
	for _, text := range []string{"\xff", "ab\xfe c", "a\xc3", "\xed\xa0\x80"} {
		_, err := Tokenize(text)
		assert.ErrorIs(t, err, ErrInvalidUTF8, "%q", text)
	}
}

func TestTextReader(t *testing.T) {
	in := "Hello, world!\r\n\n   \nSecond line\n"
	r := NewTextReader("t.txt", strings.NewReader(in), TextOptions{})
	var got [][]string
	var lines []int
	for r.Next() {
		s := r.Sequence()
		if s.Labels != nil {
			t.Error("labels set")
		}
		var words []string
		for _, row := range s.Tokens {
			if len(row) != 1 {
				t.Fatalf("row %v", row)
			}
			words = append(words, row[0])
		}
		got = append(got, words)
		lines = append(lines, s.Line)
		if s.Line == 1 && (len(r.Offsets()) != 4 || r.Offsets()[3] != Token{"!", 12, 13}) {
			t.Errorf("offsets %v", r.Offsets())
		}
	}
	require.NoError(t, r.Err())
	require.Len(t, got, 2)
	assert.Equal(t, []string{"Hello", ",", "world", "!"}, got[0])
	assert.Equal(t, []string{"Second", "line"}, got[1])
	assert.Equal(t, 4, lines[1], "line of the second sequence")
	for _, c := range []struct {
		in        string
		sentinel  error
		line, col int
	}{
		{"ok\nbad \xff\n", ErrInvalidUTF8, 2, 5},
		{"\n \n", ErrEmpty, 2, 0},
		{"", ErrEmpty, 1, 0},
		{"ok\n" + strings.Repeat("a", 2<<20), ErrLineTooLong, 2, 0},
	} {
		r := NewTextReader("t.txt", strings.NewReader(c.in), TextOptions{})
		for r.Next() {
		}
		wantParseError(t, r.Err(), c.sentinel, "t.txt", c.line, c.col)
	}
}
