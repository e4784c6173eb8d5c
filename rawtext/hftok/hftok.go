package hftok

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode"
	"unicode/utf8"

	tok "github.com/sugarme/tokenizer"
	"github.com/sugarme/tokenizer/normalizer"
	"github.com/sugarme/tokenizer/pretokenizer"
	"golang.org/x/text/unicode/norm"

	"github.com/sparsetag/sparsetag/rawtext"
)

// MaxFileBytes bounds a tokenizer.json (real ones, vocabulary included,
// are a few MB).
const MaxFileBytes = 64 << 20

// MaxSentenceBytes bounds a sentence: the library's pre-tokenizers keep
// two small slices per byte of their input, about 40 bytes per byte.
const MaxSentenceBytes = 1 << 20

// Limits on the configuration: nesting of Sequence and components per
// Sequence.
const (
	maxDepth = 4
	maxItems = 32
)

// ErrUnsupported is wrapped by the error for a tokenizer.json of a kind
// this package does not support; ErrFormat by the error for a malformed
// one.
var (
	ErrUnsupported = errors.New("hftok: unsupported tokenizer.json")
	ErrFormat      = errors.New("hftok: malformed tokenizer.json")
)

// Tokenizer splits sentences into the words of a tokenizer.json's
// normalizer and pre-tokenizer. It is safe for concurrent use.
type Tokenizer struct {
	name  string
	norm  []normStep // in order; none: identity
	pre   tok.PreTokenizer
	ascii [128]string // the normalized form of each ASCII character
}

// normStep is one normalizer: a function of a cluster.
type normStep func(string) string

// Load reads the tokenizer.json at path.
func Load(path string) (*Tokenizer, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return Parse(path, data)
}

// Parse reads a tokenizer.json from data; name names it in messages and is
// the Tokenizer's Name.
func Parse(name string, data []byte) (*Tokenizer, error) {
	if len(data) > MaxFileBytes {
		return nil, fmt.Errorf("%s: %w: more than %d bytes", name, ErrFormat, MaxFileBytes)
	}
	var file struct {
		Normalizer   json.RawMessage `json:"normalizer"`
		PreTokenizer json.RawMessage `json:"pre_tokenizer"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&file); err != nil {
		return nil, fmt.Errorf("%s: %w: %v", name, ErrFormat, err)
	}
	t := &Tokenizer{name: name}
	var err error
	if t.norm, err = buildNormalizer(nil, file.Normalizer, 0); err != nil {
		return nil, fmt.Errorf("%s: normalizer: %w", name, err)
	}
	if isNull(file.PreTokenizer) {
		return nil, fmt.Errorf("%s: %w: no pre_tokenizer (the words would be whole sentences)", name, ErrUnsupported)
	}
	if t.pre, err = buildPreTokenizer(file.PreTokenizer, 0); err != nil {
		return nil, fmt.Errorf("%s: pre_tokenizer: %w", name, err)
	}
	for c := range t.ascii {
		t.ascii[c] = t.normalize(string(rune(c)))
	}
	return t, nil
}

func isNull(m json.RawMessage) bool {
	s := bytes.TrimSpace(m)
	return len(s) == 0 || string(s) == "null"
}

// component is a normalizer or pre-tokenizer object: its type and fields.
type component struct {
	typ    string
	fields map[string]json.RawMessage
}

// readComponent reads a JSON object with a string "type".
func readComponent(m json.RawMessage) (component, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(m, &fields); err != nil {
		return component{}, fmt.Errorf("%w: not an object: %v", ErrFormat, err)
	}
	var typ string
	if err := json.Unmarshal(fields["type"], &typ); err != nil || typ == "" {
		return component{}, fmt.Errorf("%w: no string \"type\"", ErrFormat)
	}
	return component{typ: typ, fields: fields}, nil
}

// flag reads the boolean field name: def when absent or null.
func (c component) flag(name string, def bool) (bool, error) {
	m, ok := c.fields[name]
	if !ok || isNull(m) {
		return def, nil
	}
	var b bool
	if err := json.Unmarshal(m, &b); err != nil {
		return false, fmt.Errorf("%w: %s.%s is not a boolean", ErrFormat, c.typ, name)
	}
	return b, nil
}

// list reads the array field name of components.
func (c component) list(name string) ([]json.RawMessage, error) {
	var items []json.RawMessage
	if err := json.Unmarshal(c.fields[name], &items); err != nil {
		return nil, fmt.Errorf("%w: %s.%s is not an array", ErrFormat, c.typ, name)
	}
	if len(items) > maxItems {
		return nil, fmt.Errorf("%w: %s.%s has %d entries, more than %d", ErrUnsupported, c.typ, name, len(items), maxItems)
	}
	return items, nil
}

// buildNormalizer appends the steps of the normalizer m to steps.
func buildNormalizer(steps []normStep, m json.RawMessage, depth int) ([]normStep, error) {
	if isNull(m) {
		return steps, nil
	}
	if depth > maxDepth {
		return nil, fmt.Errorf("%w: Sequence nested more than %d deep", ErrUnsupported, maxDepth)
	}
	c, err := readComponent(m)
	if err != nil {
		return nil, err
	}
	switch c.typ {
	case "BertNormalizer":
		clean, err1 := c.flag("clean_text", true)
		chinese, err2 := c.flag("handle_chinese_chars", true)
		lower, err3 := c.flag("lowercase", true)
		strip, err4 := c.flag("strip_accents", lower) // null: as lowercase, as in HuggingFace
		if err := errors.Join(err1, err2, err3, err4); err != nil {
			return nil, err
		}
		if clean {
			steps = append(steps, cleanText)
		}
		if chinese {
			steps = append(steps, spaceChinese)
		}
		if strip {
			steps = append(steps, norm.NFD.String, removeMarks)
		}
		if lower {
			steps = append(steps, strings.ToLower)
		}
		return steps, nil
	case "Lowercase":
		return append(steps, strings.ToLower), nil
	case "StripAccents":
		return append(steps, removeMarks), nil
	case "NFC":
		return append(steps, norm.NFC.String), nil
	case "NFD":
		return append(steps, norm.NFD.String), nil
	case "NFKC":
		return append(steps, norm.NFKC.String), nil
	case "NFKD":
		return append(steps, norm.NFKD.String), nil
	case "Strip":
		_, err1 := c.flag("strip_left", true)
		_, err2 := c.flag("strip_right", true)
		return steps, errors.Join(err1, err2) // sentences come without surrounding spaces
	case "Sequence":
		items, err := c.list("normalizers")
		if err != nil {
			return nil, err
		}
		for _, it := range items {
			if steps, err = buildNormalizer(steps, it, depth+1); err != nil {
				return nil, err
			}
		}
		return steps, nil
	}
	return nil, fmt.Errorf("%w: normalizer %q (supported: BertNormalizer, Lowercase, StripAccents, NFC, NFD, NFKC, NFKD, Strip, Sequence)", ErrUnsupported, c.typ)
}

// cleanText is BertNormalizer's clean_text: NUL, U+FFFD and control
// characters removed, white space written as a space.
func cleanText(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == 0 || r == utf8.RuneError:
			return -1
		case r == '\t' || r == '\n' || r == '\r' || unicode.Is(unicode.Zs, r):
			return ' '
		case unicode.In(r, unicode.Cc, unicode.Cf, unicode.Co, unicode.Cs):
			return -1
		}
		return r
	}, s)
}

// spaceChinese is BertNormalizer's handle_chinese_chars: a space on each
// side of every CJK ideograph (the ranges of BERT's _is_chinese_char).
func spaceChinese(s string) string {
	if !strings.ContainsFunc(s, isChinese) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if isChinese(r) {
			b.WriteByte(' ')
			b.WriteRune(r)
			b.WriteByte(' ')
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

func isChinese(r rune) bool {
	return r >= 0x4e00 && r <= 0x9fff || r >= 0x3400 && r <= 0x4dbf || r >= 0x20000 && r <= 0x2a6df ||
		r >= 0x2a700 && r <= 0x2b73f || r >= 0x2b740 && r <= 0x2b81f || r >= 0x2b820 && r <= 0x2ceaf ||
		r >= 0xf900 && r <= 0xfaff || r >= 0x2f800 && r <= 0x2fa1f
}

// removeMarks removes non-spacing marks (Mn): StripAccents, after NFD.
func removeMarks(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.Is(unicode.Mn, r) {
			return -1
		}
		return r
	}, s)
}

func buildPreTokenizer(m json.RawMessage, depth int) (tok.PreTokenizer, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("%w: Sequence nested more than %d deep", ErrUnsupported, maxDepth)
	}
	c, err := readComponent(m)
	if err != nil {
		return nil, err
	}
	switch c.typ {
	case "BertPreTokenizer":
		return pretokenizer.NewBertPreTokenizer(), nil
	case "Whitespace":
		return pretokenizer.NewWhitespace(), nil
	case "WhitespaceSplit":
		return pretokenizer.NewWhitespaceSplit(), nil
	case "Digits":
		individual, err := c.flag("individual_digits", false)
		if err != nil {
			return nil, err
		}
		return pretokenizer.NewDigits(individual), nil
	case "Punctuation":
		var behavior string
		if m, ok := c.fields["behavior"]; ok && !isNull(m) {
			if err := json.Unmarshal(m, &behavior); err != nil {
				return nil, fmt.Errorf("%w: Punctuation.behavior is not a string", ErrFormat)
			}
		} else {
			behavior = "Isolated"
		}
		b, ok := map[string]normalizer.SplitDelimiterBehavior{
			"Removed": normalizer.RemovedBehavior, "Isolated": normalizer.IsolatedBehavior,
			"MergedWithNext": normalizer.MergedWithNextBehavior, "MergedWithPrevious": normalizer.MergedWithPreviousBehavior,
			"Contiguous": normalizer.ContiguousBehavior,
		}[behavior]
		if !ok {
			return nil, fmt.Errorf("%w: Punctuation.behavior %q", ErrUnsupported, behavior)
		}
		return pretokenizer.NewPunctuation(b), nil
	case "Sequence":
		items, err := c.list("pretokenizers")
		if err != nil {
			return nil, err
		}
		if len(items) == 0 {
			return nil, fmt.Errorf("%w: an empty Sequence of pre-tokenizers", ErrUnsupported)
		}
		var pres []tok.PreTokenizer
		for _, it := range items {
			p, err := buildPreTokenizer(it, depth+1)
			if err != nil {
				return nil, err
			}
			pres = append(pres, p)
		}
		return pretokenizer.NewSequence(pres), nil
	}
	return nil, fmt.Errorf("%w: pre-tokenizer %q (supported: BertPreTokenizer, Whitespace, WhitespaceSplit, Punctuation, Digits, Sequence)", ErrUnsupported, c.typ)
}

// Name returns the name the Tokenizer was loaded under (its file).
func (t *Tokenizer) Name() string { return t.name }

// normalize returns s as the normalizer writes it.
func (t *Tokenizer) normalize(s string) string {
	for _, f := range t.norm {
		s = f(s)
	}
	return s
}

// isContinuation reports whether r belongs to the cluster of the
// character before it: a combining mark, a zero-width joiner, or a Hangul
// vowel or final jamo (which NFC composes with the syllable before).
func isContinuation(r rune) bool {
	return unicode.In(r, unicode.Mn, unicode.Mc, unicode.Me) || r == '\u200d' || (r >= 0x1160 && r <= 0x11ff)
}

// Tokenize appends the words of sentence to dst with their byte offsets in
// sentence (rawtext.Tokenizer). sentence must be valid UTF-8.
func (t *Tokenizer) Tokenize(dst []rawtext.Token, sentence string) ([]rawtext.Token, error) {
	if !utf8.ValidString(sentence) {
		return dst, fmt.Errorf("%s: invalid UTF-8", t.name)
	}
	if len(sentence) > MaxSentenceBytes {
		return dst, fmt.Errorf("%s: a sentence of %d bytes, more than %d (text without sentence ends?)", t.name, len(sentence), MaxSentenceBytes)
	}
	// The normalized text, cluster by cluster: from[k] is the byte of
	// sentence where the cluster of normalized byte k starts, to[k] where
	// it ends.
	var norm strings.Builder
	var from, to []int
	for i := 0; i < len(sentence); {
		j := i + 1
		if sentence[i] >= utf8.RuneSelf {
			_, n := utf8.DecodeRuneInString(sentence[i:])
			j = i + n
		}
		for j < len(sentence) {
			r, n := utf8.DecodeRuneInString(sentence[j:])
			if !isContinuation(r) {
				break
			}
			j += n
		}
		var piece string
		if j == i+1 && sentence[i] < utf8.RuneSelf {
			piece = t.ascii[sentence[i]]
		} else {
			piece = t.normalize(sentence[i:j])
		}
		norm.WriteString(piece)
		for range len(piece) {
			from = append(from, i)
			to = append(to, j)
		}
		i = j
	}
	text := norm.String()
	pts, err := t.pre.PreTokenize(tok.NewPreTokenizedString(text))
	if err != nil {
		return dst, fmt.Errorf("%s: pre-tokenizer: %w", t.name, err)
	}
	cursor := 0
	for _, p := range pts.GetSplits(normalizer.NormalizedTarget, tok.Byte) {
		w := p.Value
		if w == "" {
			continue
		}
		k := strings.Index(text[cursor:], w)
		if k < 0 {
			return dst, fmt.Errorf("%w: %s: the pre-tokenizer gave %q, not in the normalized text", rawtext.ErrTokenizer, t.name, w)
		}
		start := cursor + k
		end := start + len(w)
		cursor = end
		dst = append(dst, rawtext.Token{Word: w, StartByte: from[start], EndByte: to[end-1]})
	}
	return dst, nil
}
