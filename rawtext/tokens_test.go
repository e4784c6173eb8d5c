package rawtext

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDocumentIssueExample(t *testing.T) {
	text := "Mr. Smith went to Washington on Tuesday. He paid $5.50 for it."
	var d Doc
	require.NoError(t, Document(&d, text, PTB{}))
	require.Len(t, d.Sentences, 2)
	var words []string
	for _, tok := range d.Sentences[0].Tokens {
		words = append(words, tok.Word)
	}
	assert.Equal(t, []string{"Mr.", "Smith", "went", "to", "Washington", "on", "Tuesday", "."}, words)
	s1 := d.Sentences[1]
	assert.Equal(t, "He paid $5.50 for it.", text[s1.StartByte:s1.EndByte])
	assert.Equal(t, 41, s1.Start)
	dollar := s1.Tokens[2]
	assert.Equal(t, Token{Word: "$", Start: 49, End: 50, StartByte: 49, EndByte: 50}, dollar)
}

func TestDocumentCodePoints(t *testing.T) {
	text := "Zoë paid €5 for “Café” (naïve). 東京 is big."
	var d Doc
	require.NoError(t, Document(&d, text, PTB{}))
	runes := []rune(text)
	got := map[string]string{}
	for _, s := range d.Sentences {
		assert.Equal(t, text[s.StartByte:s.EndByte], string(runes[s.Start:s.End]))
		for _, tok := range s.Tokens {
			got[tok.Word] = string(runes[tok.Start:tok.End])
			assert.Equal(t, text[tok.StartByte:tok.EndByte], string(runes[tok.Start:tok.End]))
		}
	}
	assert.Equal(t, "“", got["``"], "the normalised quote maps back to the typed one")
	assert.Equal(t, "(", got["-LRB-"])
	assert.Equal(t, "€5", got["€5"])
}

func TestDocumentRejects(t *testing.T) {
	var d Doc
	for _, text := range []string{"bad \xff byte", "nul \x00 byte"} {
		err := Document(&d, text, PTB{})
		assert.True(t, errors.Is(err, ErrInvalidText), "%q: %v", text, err)
	}
}

// badTokenizer returns offsets outside its sentence.
type badTokenizer struct{}

func (badTokenizer) Name() string { return "bad" }
func (badTokenizer) Tokenize(dst []Token, s string) ([]Token, error) {
	return append(dst, Token{Word: "x", StartByte: 0, EndByte: len(s) + 1}), nil
}

func TestDocumentBadTokenizer(t *testing.T) {
	var d Doc
	err := Document(&d, "A b.", badTokenizer{})
	assert.True(t, errors.Is(err, ErrTokenizer), "%v", err)
}

// randomText returns text of n runes drawn from ASCII letters and
// punctuation, spaces, and multi-byte runes of every UTF-8 length.
func randomText(rng *rand.Rand, n int) string {
	alphabet := []rune("aB.,?!'\"()$%-:;  \n\té€東𝄞“”’…\u00a0\u200dÅ")
	var b strings.Builder
	for range n {
		b.WriteRune(alphabet[rng.IntN(len(alphabet))])
	}
	return b.String()
}

// checkOffsets checks the offset invariants of d for text.
func checkOffsets(t *testing.T, d *Doc, text string) {
	runes := []rune(text)
	prevStart := 0
	for _, s := range d.Sentences {
		require.True(t, utf8.ValidString(text[s.StartByte:s.EndByte]))
		require.Equal(t, text[s.StartByte:s.EndByte], string(runes[s.Start:s.End]))
		for _, tok := range s.Tokens {
			require.GreaterOrEqual(t, tok.StartByte, prevStart)
			require.GreaterOrEqual(t, tok.StartByte, s.StartByte)
			require.LessOrEqual(t, tok.EndByte, s.EndByte)
			require.Equal(t, text[tok.StartByte:tok.EndByte], string(runes[tok.Start:tok.End]), "%q", tok.Word)
			prevStart = tok.StartByte
		}
	}
}

func TestDocumentOffsetsRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	var d Doc
	for range 2000 {
		text := randomText(rng, rng.IntN(80))
		require.NoError(t, Document(&d, text, PTB{}))
		checkOffsets(t, &d, text)
	}
}

func FuzzDocumentOffsets(f *testing.F) {
	f.Add("Mr. Smith went to Washington on Tuesday. He paid $5.50 for it.")
	f.Add("“Café” (naïve)… U.S. 東京. don't")
	f.Fuzz(func(t *testing.T, text string) {
		var d Doc
		if err := Document(&d, text, PTB{}); err != nil {
			require.ErrorIs(t, err, ErrInvalidText)
			return
		}
		checkOffsets(t, &d, text)
	})
}

func TestReader(t *testing.T) {
	in := "\xef\xbb\xbfFirst doc. Two.\r\n\n  \nSecond doc\n"
	r := NewReader("in.txt", strings.NewReader(in), Options{})
	var docs []string
	var lines []int
	for r.Next() {
		docs = append(docs, r.Text())
		lines = append(lines, r.Line())
	}
	require.NoError(t, r.Err())
	assert.Equal(t, []string{"First doc. Two.", "Second doc"}, docs)
	assert.Equal(t, []int{1, 4}, lines)

	r = NewReader("in.txt", strings.NewReader(in), Options{PerInput: true})
	require.True(t, r.Next())
	assert.Equal(t, "First doc. Two.\r\n\n  \nSecond doc\n", r.Text())
	assert.False(t, r.Next())
	require.NoError(t, r.Err())
}

func TestReaderErrors(t *testing.T) {
	r := NewReader("in.txt", strings.NewReader("ok\nbad \xff\n"), Options{})
	require.True(t, r.Next())
	require.False(t, r.Next())
	assert.ErrorIs(t, r.Err(), ErrInvalidText)
	assert.Contains(t, r.Err().Error(), "in.txt:2: ")

	r = NewReader("big", strings.NewReader(strings.Repeat("x", 1000)+"\n"), Options{MaxDocumentBytes: 100})
	require.False(t, r.Next())
	assert.ErrorIs(t, r.Err(), ErrTooLong)

	r = NewReader("empty", strings.NewReader(""), Options{})
	require.False(t, r.Next())
	require.NoError(t, r.Err())
}

func TestDetokenizeRoundTrip(t *testing.T) {
	words := []string{"``", "We", "do", "n't", "know", ",", "''", "Mr.", "Smith", "-LRB-", "D.", "-RRB-", "said", "of", "the", "U.S.", "$", "5.50", "deal", "at", "9:30", "."}
	text := Detokenize(words)
	assert.Equal(t, `"We don't know," Mr. Smith (D.) said of the U.S. $5.50 deal at 9:30.`, text)
	var d Doc
	require.NoError(t, Document(&d, text, PTB{}))
	require.Len(t, d.Sentences, 1)
	var got []string
	for _, tok := range d.Sentences[0].Tokens {
		got = append(got, tok.Word)
	}
	assert.Equal(t, words, got)
}
