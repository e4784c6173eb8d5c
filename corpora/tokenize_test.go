package corpora

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTokenizePTB checks Tokenize on the Penn Treebank conventions. The
// expected forms follow the Treebank's tokenization guidelines
// (https://www.cis.upenn.edu/~treebank/tokenization.html) and the rules of its
// tokenizer.sed (Robert MacIntyre, 1995), quoted as "sed:"; where the script
// is cruder than the Treebank's own WSJ text, the case cites what the
// CoNLL-2000 corpus (WSJ sections 15-18 and 20, embedded in data/) holds, as
// "corpus:" with the count of that token in train.txt.
func TestTokenizePTB(t *testing.T) {
	for _, c := range []struct {
		name, text, want string // want: the forms, separated by single spaces
	}{
		// sed: "split FINAL periods only"; corpus: 1.8-like decimals are one token.
		{"decimal", "Growth was 1.8% in 1989.", "Growth was 1.8 % in 1989 ."},
		// corpus: 11:13, 5:04 are one token (sed would split the colon).
		{"time", "It opens at 9:30 sharp.", "It opens at 9:30 sharp ."},
		// sed: s=[,;:@#$%&]= & =g splits $ off; corpus: 2106 "$".
		{"dollar", "It costs $5.50.", "It costs $ 5.50 ."},
		// corpus: US$ (11), C$ (6), M$ (9) are one token.
		{"currency prefix", "a US$5 bond", "a US$ 5 bond"},
		// corpus: commas inside numbers stay (1,000); sed: others split.
		{"thousands", "1,000,000 shares, roughly", "1,000,000 shares , roughly"},
		// sed: only the final period is split; corpus: U.S. (272), Mr. (785).
		{"abbreviation inside", "Mr. Lee's U.S. unit grew.", "Mr. Lee 's U.S. unit grew ."},
		// corpus: every sentence-final U.S. is "U.S. ." (12 of 12).
		{"final acronym", "He lives in the U.S.", "He lives in the U.S. ."},
		{"final a.m.", "It ends at 3 a.m.", "It ends at 3 a.m. ."},
		// corpus: sentence-final Inc. is "Inc ." (39), never "Inc. .".
		{"final abbreviation", "He joined Acme Inc.", "He joined Acme Inc ."},
		// guidelines: hyphenated words are not split; corpus: so-called.
		{"hyphen", "Send an e-mail to the so-called expert.", "Send an e-mail to the so-called expert ."},
		// guidelines: don't is do n't, won't is wo n't, I'm is I 'm.
		{"n't", "I don't know.", "I do n't know ."},
		{"can't", "You can't go", "You ca n't go"},
		{"won't", "It won't work", "It wo n't work"},
		{"I'm", "I'm here", "I 'm here"},
		// guidelines: children's is children 's, parents' is parents '.
		{"possessive", "John's book", "John 's book"},
		{"plural possessive", "the parents' car", "the parents ' car"},
		// sed: 'll 're 've 'd and their capitals.
		{"contractions", "We'll see, they're sure I've seen what he'd done", "We 'll see , they 're sure I 've seen what he 'd done"},
		{"capitals", "DON'T SHOUT, WE'RE HERE", "DO N'T SHOUT , WE 'RE HERE"},
		// sed: apostrophes inside names stay; corpus: D'Arcy (6), '80s (4).
		{"apostrophe inside", "D'Arcy O'Brien's '80s", "D'Arcy O'Brien 's '80s"},
		// sed: opening " at the start or after a space or bracket, '' elsewhere.
		{"quotes", `He said, "I'm fine."`, "He said , `` I 'm fine . ''"},
		{"quote after bracket", `("quoted")`, "-LRB- `` quoted '' -RRB-"},
		{"typed quotes", "``Yes,'' he said", "`` Yes , '' he said"},
		// guidelines: brackets in parsed files; corpus: -LRB- (299), -LCB- (52).
		{"brackets", "[a] {b} (c) <d>", "-LSB- a -RSB- -LCB- b -RCB- -LRB- c -RRB- < d >"},
		// sed: ... and -- wherever they are; ? and ! always.
		{"ellipsis", "Wait... what?!", "Wait ... what ? !"},
		{"ellipsis and period", "Wait....", "Wait ... ."},
		{"dashes", "now--or never", "now -- or never"},
		{"semicolon colon", "a; b: c", "a ; b : c"},
		// sed: the special words.
		{"special words", "I cannot stop, gonna try; wanna go? Lemme see", "I can not stop , gon na try ; wan na go ? Lem me see"},
		{"'tis", "'Tis true", "'T is true"},
		// corpus: AT&T (15), S&P (19), & alone (270); 81%-owned (1).
		{"ampersand", "AT&T and S&P rose & fell", "AT&T and S&P rose & fell"},
		{"percent", "an 81%-owned unit, 5% more", "an 81%-owned unit , 5 % more"},
		{"hash at", "#1 @ 5", "# 1 @ 5"},
		// sed: the final period before closing brackets and quotes.
		{"period in brackets", "(See above.)", "-LRB- See above . -RRB-"},
		{"period in single quotes", "'Stop.'", "'Stop . '"},
		{"two periods", "Hmm..", "Hmm.."},
		{"question", "Really?", "Really ?"},
		// Unicode forms of the same conventions.
		{"typographic", "He said \u201cdon\u2019t\u201d \u2014 then left\u2026", "He said `` do n't '' -- then left ..."},
		{"single quotes", "\u2018Hello,\u2019 said O\u2019Brien", "` Hello , ' said O'Brien"},
		{"en dash", "in 1990\u201391 \u2013 not later", "in 1990-91 -- not later"},
		// Links stay whole, less the sentence's punctuation.
		{"url", "See http://example.com/a?b=c.", "See http://example.com/a?b=c ."},
		{"www", "(www.example.org)", "-LRB- www.example.org -RRB-"},
		{"email", "Mail john.doe@example.com, please", "Mail john.doe@example.com , please"},
		// Beyond ASCII: Unicode punctuation and CJK ideographs are isolated.
		{"cjk", "\u6771\u4eac\u30bf\u30ef\u30fc!", "\u6771 \u4eac \u30bf\u30ef\u30fc !"},
		{"guillemets", "\u00abna\u00efve caf\u00e9\u00bb", "\u00ab na\u00efve caf\u00e9 \u00bb"},
		{"spaces", "  a\tb\u00a0c  ", "a b c"},
	} {
		t.Run(c.name, func(t *testing.T) {
			toks, err := Tokenize(c.text)
			require.NoError(t, err)
			checkTokens(t, c.text, toks)
			var forms []string
			for _, tok := range toks {
				forms = append(forms, tok.Word)
			}
			assert.Equal(t, c.want, strings.Join(forms, " "), "%q", c.text)
		})
	}
}

// TestTokenizeOffsets checks Surface, Start and End where Word differs from
// the text: split contractions with a typographic apostrophe, escaped
// quotes, and the period that a sentence-final acronym shares.
func TestTokenizeOffsets(t *testing.T) {
	toks, err := Tokenize("  don\u2019t \u201cgo\u201d to the U.S.")
	require.NoError(t, err)
	want := []Token{
		{"do", "do", 2, 4}, {"n't", "n\u2019t", 4, 9}, {"``", "\u201c", 10, 13}, {"go", "go", 13, 15},
		{"''", "\u201d", 15, 18}, {"to", "to", 19, 21}, {"the", "the", 22, 25}, {"U.S.", "U.S.", 26, 30}, {".", ".", 29, 30},
	}
	assert.Equal(t, want, toks)
}

// TestTokenizeLinear: on lines of 256 KiB that restart a word every few
// bytes inside one run of non-spaces (where the link scans start again),
// Tokenize takes time linear in the line: well under 10 s where a
// quadratic scan would take minutes (10^10 to 10^11 steps). Each line
// tokenizes to the pieces the pattern's repetition implies: a-- is a and
// --; x.y@ units pair into the address x.y@x.y and @; http:/ is http, :
// and /http.
func TestTokenizeLinear(t *testing.T) {
	const n = 1 << 18
	for _, c := range []struct {
		unit string
		toks int // tokens per unit
	}{
		{"a--", 2}, {"a...", 2}, {"ab-%", 2}, {"b@a--", 4}, {"x.y@", 1}, {"http:/", 2}, {"a(", 2},
	} {
		text := strings.Repeat(c.unit, n/len(c.unit))
		start := time.Now()
		toks, err := Tokenize(text)
		require.NoError(t, err)
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("%q x %d: %v", c.unit, n/len(c.unit), d)
		}
		// The last unit may differ (a final period, a trailing -), so
		// compare up to one unit.
		if got, want := len(toks), c.toks*(n/len(c.unit)); got < want-c.toks || got > want+c.toks {
			t.Errorf("%q x %d: %d tokens, want about %d", c.unit, n/len(c.unit), got, want)
		}
	}
}

// checkTokens verifies the documented invariants of Tokenize on valid text:
// Text == text[Start:End], offsets increase and tokens do not overlap (but
// for the period a sentence-final acronym shares), no kept character is
// lost, and neither Surface nor Word is empty or holds a separator.
func checkTokens(t *testing.T, text string, toks []Token) {
	t.Helper()
	covered := make([]bool, len(text))
	prev := 0
	for i, tok := range toks {
		shared := i > 0 && tok.Surface == "." && tok.Start == prev-1 && strings.HasSuffix(toks[i-1].Surface, ".")
		if (tok.Start < prev && !shared) || tok.End <= tok.Start || tok.End > len(text) || text[tok.Start:tok.End] != tok.Surface {
			t.Fatalf("%q: bad token %+v after %d", text, tok, prev)
		}
		if !utf8.ValidString(tok.Surface) {
			t.Fatalf("%q: token %+v splits a character", text, tok)
		}
		if tok.Word == "" || strings.IndexFunc(tok.Surface+tok.Word, isSeparator) >= 0 {
			t.Fatalf("%q: token %+v is empty or holds a space", text, tok)
		}
		for i := tok.Start; i < tok.End; i++ {
			covered[i] = true
		}
		prev = tok.End
	}
	for i, r := range text {
		if !isSeparator(r) && !covered[i] {
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
	if toks, _ := Tokenize("x\u200by"); len(toks) != 1 || toks[0].Surface != "x\u200by" {
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
			got = append(got, tok.Surface)
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
		if s.Line == 1 && (len(r.Offsets()) != 4 || r.Offsets()[3] != Token{Word: "!", Surface: "!", Start: 12, End: 13}) {
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

// TestTextReaderCodePoints: the offsets of raw text tokens in code points
// and bytes select the same characters.
func TestTextReaderCodePoints(t *testing.T) {
	line := "Zoë paid €5 (“cash”), 東京."
	r := NewTextReader("t", strings.NewReader(line+"\nok\n"), TextOptions{})
	require.True(t, r.Next())
	runes := []rune(line)
	offs := r.CodePoints()
	require.Len(t, offs, len(r.Offsets()))
	for k, o := range offs {
		tok := r.Offsets()[k]
		assert.Equal(t, tok.Start, o.StartByte)
		assert.Equal(t, tok.End, o.EndByte)
		assert.Equal(t, tok.Surface, string(runes[o.Start:o.End]))
	}
	require.True(t, r.Next())
	assert.Equal(t, []Offsets{{0, 2, 0, 2}}, r.CodePoints())
}
