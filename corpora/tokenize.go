package corpora

// This file is the only one that imports github.com/sugarme/tokenizer. It
// uses the library's pre-tokenization machinery on one string at a time; it
// never calls the batch functions (EncodeBatch/DecodeBatch race), nor anything
// that reads or downloads pretrained files (CachedPath, pretrained), nor the
// normalizers (see Tokenize).

import (
	"fmt"
	"unicode"
	"unicode/utf8"

	"github.com/sugarme/tokenizer"
	"github.com/sugarme/tokenizer/normalizer"
)

// Token is a token of raw text with its byte offsets: Text == text[Start:End].
type Token struct {
	Text       string
	Start, End int
}

// Tokenize splits text into words and punctuation marks, with byte offsets
// into text. It is the BERT pre-tokenizer of github.com/sugarme/tokenizer
// rebuilt from that library's own splitting machinery
// (PreTokenizedString.Split, NormalizedString.Split and FnPattern) with two
// changes: every Unicode space and every control character (Cc) separates
// tokens (the library's BERT pre-tokenizer only knows ASCII spaces), and every
// CJK ideograph is a token of its own (what its BERT normalizer does). Every
// punctuation character (ASCII symbols and Unicode P*) is a token of its own.
// Format characters such as a zero-width joiner stay inside their token. No
// case folding or accent stripping: Text is always the original bytes
// text[Start:End].
//
// The library's normalizers are deliberately not used: their removal of
// control characters corrupts offsets and text (for instance "\u0080ab c"
// comes out as "ab cab c") and can panic.
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
	pt := tokenizer.NewPreTokenizedString(text)
	pt, err = preTokenizer{}.PreTokenize(pt)
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
		if start < prev || end <= start || end > len(text) || text[start:end] != s.Value {
			return nil, errorf(ErrTokenizer, "tokenizer returned %q at [%d,%d) after %d in a text of %d bytes", s.Value, start, end, prev, len(text))
		}
		toks = append(toks, Token{Text: text[start:end], Start: start, End: end})
		prev = end
	}
	return toks, nil
}

// preTokenizer is the library's BertPreTokenizer with Unicode-aware
// separators and isolated CJK ideographs.
type preTokenizer struct{}

var _ tokenizer.PreTokenizer = preTokenizer{}

func isSeparator(r rune) bool { return unicode.IsSpace(r) || unicode.Is(unicode.Cc, r) }

func isIsolated(r rune) bool { return normalizer.IsBertPunctuation(r) || normalizer.IsChinese(r) }

// PreTokenize implements tokenizer.PreTokenizer.
func (preTokenizer) PreTokenize(pt *tokenizer.PreTokenizedString) (*tokenizer.PreTokenizedString, error) {
	sep := normalizer.NewFnPattern(isSeparator)
	iso := normalizer.NewFnPattern(isIsolated)
	return pt.Split(func(_ int, sub *normalizer.NormalizedString) []tokenizer.SplitIdx {
		var out []tokenizer.SplitIdx
		for _, word := range sub.Split(sep, normalizer.RemovedBehavior) {
			for _, piece := range word.Split(iso, normalizer.IsolatedBehavior) {
				out = append(out, tokenizer.SplitIdx{Normalized: &piece})
			}
		}
		return out
	}), nil
}
