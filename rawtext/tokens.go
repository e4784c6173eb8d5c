package rawtext

import (
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/sparsetag/sparsetag/corpora"
)

// Token is a token of a document with its place in it.
type Token struct {
	// Word is what a model reads: the tokenizer's form of the token (for
	// PTB, the Treebank form: -LRB- for "(", `` for an opening quote).
	Word string
	// Start and End are the token's code-point offsets in the document,
	// StartByte and EndByte its byte offsets: the document's
	// text[StartByte:EndByte] is the token as written.
	Start, End         int
	StartByte, EndByte int
}

// Tokenizer splits one sentence into tokens. A Tokenizer is safe for
// concurrent use by multiple goroutines.
type Tokenizer interface {
	// Tokenize appends the tokens of sentence to dst and returns dst: their
	// Word and their byte offsets in sentence (Token.StartByte, EndByte;
	// Start and End are left to [Document]). Offsets must not decrease
	// from one token to the next, and each token must lie within the
	// sentence.
	Tokenize(dst []Token, sentence string) ([]Token, error)
	// Name names the tokenizer in messages ("ptb", a tokenizer.json file).
	Name() string
}

// PTB is the Penn Treebank tokenizer of corpora.Tokenize, the tokenization
// of CoNLL-2000 and the WSJ.
type PTB struct{}

// Name returns "ptb".
func (PTB) Name() string { return "ptb" }

// Tokenize appends the Treebank tokens of sentence to dst.
func (PTB) Tokenize(dst []Token, sentence string) ([]Token, error) {
	toks, err := corpora.Tokenize(sentence)
	if err != nil {
		return dst, err
	}
	for _, t := range toks {
		dst = append(dst, Token{Word: t.Word, StartByte: t.Start, EndByte: t.End})
	}
	return dst, nil
}

// Errors of this package; test for them with errors.Is.
var (
	// ErrInvalidText: a document is not valid UTF-8 or holds a NUL byte.
	ErrInvalidText = errors.New("rawtext: invalid text")
	// ErrTooLong: a document is longer than the limit.
	ErrTooLong = errors.New("rawtext: document too long")
	// ErrTokenizer: a tokenizer returned offsets outside its sentence or
	// out of order.
	ErrTokenizer = errors.New("rawtext: bad tokenizer offsets")
)

// CheckText returns an error wrapping ErrInvalidText, naming the byte
// offset, if text is not valid UTF-8 or holds a NUL byte.
func CheckText(text string) error {
	for i := 0; i < len(text); {
		c := text[i]
		if c == 0 {
			return fmt.Errorf("%w: NUL byte at byte %d", ErrInvalidText, i)
		}
		if c < utf8.RuneSelf {
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(text[i:])
		if r == utf8.RuneError && n <= 1 {
			return fmt.Errorf("%w: invalid UTF-8 at byte %d", ErrInvalidText, i)
		}
		i += n
	}
	return nil
}

// Sentence is one sentence of a document: its offsets (as a Token's) and
// its tokens.
type Sentence struct {
	Start, End         int // code points
	StartByte, EndByte int // bytes
	Tokens             []Token
}

// Doc is a document split into sentences and tokens. Its slices are reused
// by the next Document call that gets the same Doc.
type Doc struct {
	Text      string
	Sentences []Sentence
	tokens    []Token // the tokens of every sentence, which Sentences slice
	spans     []Span
	ends      []int // ends[i]: the end of sentence i's tokens in tokens
}

// Document splits text into sentences (Sentences) and each sentence into
// tokens with tok, into d, with every offset in code points and bytes of
// text. Sentences without tokens are left out. text must pass CheckText.
func Document(d *Doc, text string, tok Tokenizer) error {
	if err := CheckText(text); err != nil {
		return err
	}
	d.Text = text
	d.spans = Sentences(d.spans[:0], text)
	d.tokens = d.tokens[:0]
	d.Sentences = d.Sentences[:0]
	d.ends = d.ends[:0]
	var err error
	for _, sp := range d.spans {
		first := len(d.tokens)
		if d.tokens, err = tok.Tokenize(d.tokens, text[sp.Start:sp.End]); err != nil {
			return err
		}
		if len(d.tokens) == first {
			continue
		}
		prev := 0
		for k := first; k < len(d.tokens); k++ {
			t := &d.tokens[k]
			if t.StartByte < prev || t.EndByte < t.StartByte || t.EndByte > sp.End-sp.Start {
				return fmt.Errorf("%w: %s gave token %q at bytes [%d, %d) of a sentence of %d bytes", ErrTokenizer, tok.Name(), t.Word, t.StartByte, t.EndByte, sp.End-sp.Start)
			}
			prev = t.StartByte
			t.StartByte += sp.Start
			t.EndByte += sp.Start
		}
		d.Sentences = append(d.Sentences, Sentence{StartByte: sp.Start, EndByte: sp.End})
		d.ends = append(d.ends, len(d.tokens))
	}
	// Slice the tokens by sentence only now: appends may have moved them.
	first := 0
	for i := range d.Sentences {
		d.Sentences[i].Tokens = d.tokens[first:d.ends[i]:d.ends[i]]
		first = d.ends[i]
	}
	codePoints(d)
	return nil
}

// codePoints sets the code-point offsets of d's sentences and tokens from
// their byte offsets in one pass over the text: byte offsets never
// decrease from one start to the next, and an end is counted from its
// start.
func codePoints(d *Doc) {
	c := cursor{text: d.Text}
	for i := range d.Sentences {
		s := &d.Sentences[i]
		s.Start = c.at(s.StartByte)
		for k := range s.Tokens {
			t := &s.Tokens[k]
			t.Start = c.at(t.StartByte)
			t.End = t.Start + runeCount(d.Text[t.StartByte:t.EndByte])
		}
		s.End = s.Start + runeCount(d.Text[s.StartByte:s.EndByte])
	}
}

// cursor converts increasing byte offsets into code-point offsets.
type cursor struct {
	text       string
	byte, rune int
}

// at returns the code-point offset of byte offset b >= the last one asked.
func (c *cursor) at(b int) int {
	c.rune += runeCount(c.text[c.byte:b])
	c.byte = b
	return c.rune
}

// runeCount is utf8.RuneCountInString with an ASCII fast path.
func runeCount(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return i + utf8.RuneCountInString(s[i:])
		}
	}
	return len(s)
}
