package corpora

// This file is the only one that imports github.com/sugarme/tokenizer. It
// uses the library's normalizer and BERT pre-tokenizer on one string at a
// time; it never calls the batch functions (EncodeBatch/DecodeBatch race), nor
// anything that reads or downloads pretrained files (CachedPath, pretrained).

import (
	"fmt"
	"unicode"
	"unicode/utf8"

	"github.com/sugarme/tokenizer"
	"github.com/sugarme/tokenizer/normalizer"
	"github.com/sugarme/tokenizer/pretokenizer"
)

// Token is a token of raw text with its byte offsets: Text == text[Start:End].
type Token struct {
	Text       string
	Start, End int
}

// Tokenize splits text into words and punctuation marks, with byte offsets
// into text. It uses the BERT pre-tokenizer of github.com/sugarme/tokenizer on
// a normalized copy of text: control and format characters (Unicode Cc, Cf
// other than TAB/CR/LF) and U+FFFD are dropped, every Unicode space becomes a
// separator, each CJK ideograph is a token of its own, and every punctuation
// character (ASCII symbols and Unicode P*) is a token of its own. No case
// folding or accent stripping: Text is always the original bytes
// text[Start:End] (which may contain dropped characters, such as a zero-width
// space, between kept ones).
//
// text must be valid UTF-8: otherwise Tokenize returns an error wrapping
// ErrInvalidUTF8 (offsets in invalid text would be meaningless). A failure of
// the library (a panic, or offsets that do not tile text) is returned as an
// error wrapping ErrTokenizer. Tokenize is safe for concurrent use. The
// library allocates heavily (several slices per input byte), so Tokenize is
// meant for raw text, not for bulk corpora.
func Tokenize(text string) (toks []Token, err error) {
	if !utf8.ValidString(text) {
		i := 0
		for i < len(text) {
			r, n := utf8.DecodeRuneInString(text[i:])
			if r == utf8.RuneError && n <= 1 {
				break
			}
			i += n
		}
		return nil, errorf(ErrInvalidUTF8, "invalid UTF-8 at byte %d", i)
	}
	defer func() {
		if p := recover(); p != nil {
			toks, err = nil, errorf(ErrTokenizer, "tokenizer panicked: %v", p)
		}
	}()
	// Spaces first: U+0085 is both a space and a control character, and
	// must separate words rather than vanish.
	n := mapSpaces(normalizer.NewNormalizedFrom(text))
	n, err = normalizer.NewBertNormalizer(true, false, true, false).Normalize(n)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrTokenizer, err)
	}
	pt := tokenizer.NewPreTokenizedStringFromNS(n)
	pt, err = pretokenizer.NewBertPreTokenizer().PreTokenize(pt)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrTokenizer, err)
	}
	splits := pt.GetSplits(normalizer.OriginalTarget, tokenizer.Byte)
	toks = make([]Token, 0, len(splits))
	prev := 0
	for _, s := range splits {
		if len(s.Offsets) != 2 {
			return nil, errorf(ErrTokenizer, "tokenizer returned %d offsets for %q", len(s.Offsets), s.Value)
		}
		start, end := s.Offsets[0], s.Offsets[1]
		if start < prev || end <= start || end > len(text) {
			return nil, errorf(ErrTokenizer, "tokenizer returned offsets [%d,%d) after %d in a text of %d bytes", start, end, prev, len(text))
		}
		toks = append(toks, Token{Text: text[start:end], Start: start, End: end})
		prev = end
	}
	return toks, nil
}

// mapSpaces replaces every Unicode space by ' ', rune for rune, so that the
// pre-tokenizer (whose \s is ASCII only) splits on it; the one-to-one change
// map keeps the alignments to the original text.
func mapSpaces(n *normalizer.NormalizedString) *normalizer.NormalizedString {
	s := n.GetNormalized()
	found := false
	for _, r := range s {
		if r != ' ' && unicode.IsSpace(r) {
			found = true
			break
		}
	}
	if !found {
		return n
	}
	m := make([]normalizer.ChangeMap, 0, len(s))
	for _, r := range s {
		if unicode.IsSpace(r) {
			r = ' '
		}
		m = append(m, normalizer.ChangeMap{RuneVal: string(r), Changes: 0})
	}
	return n.Transform(m, 0)
}
