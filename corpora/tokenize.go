package corpora

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Token is a token of raw text.
//
// Word is what a model reads: the token as the Penn Treebank writes it,
// which is what a model trained on PTB-tokenized corpora (CoNLL-2000, WSJ)
// must be given. Surface == text[Start:End] is the token as it appears in
// the text (Start and End are byte offsets), for showing results or
// marking them in the original; never give it to a model. Word is Surface
// except where the Treebank escapes or normalizes a character:
//
//	"            two backquotes where a quote opens, two apostrophes elsewhere
//	( ) [ ] { }  -LRB- -RRB- -LSB- -RSB- -LCB- -RCB-
//	U+201C U+201E, U+201D  two backquotes, two apostrophes
//	U+2018       a backquote where a quote opens, an apostrophe in a word
//	U+2019       an apostrophe
//	U+2014 U+2013  -- (em and en dash); - for an en dash between digits
//	U+2026       ... (ellipsis)
//	U+2010 U+2011  - (hyphen, non-breaking hyphen)
type Token struct {
	Word       string // what the model reads (the Treebank form)
	Surface    string // text[Start:End], the token as written
	Start, End int    // byte offsets of Surface in the text
}

// Tokenize splits one sentence of raw text into tokens following the Penn
// Treebank conventions, with byte offsets into text.
//
// The rules are those of the Treebank's tokenizer.sed (Robert MacIntyre,
// University of Pennsylvania, 1995; the conventions are described at
// https://www.cis.upenn.edu/~treebank/tokenization.html), refined where the
// WSJ text of the Treebank, and so CoNLL-2000, is finer than the script:
//   - every Unicode space and control character separates tokens;
//   - ? ! ; @ # and the brackets ( ) [ ] { } < > are tokens of their own
//     (brackets in their parsed-file forms -LRB- ... -RCB-); so are ... and
//     --, wherever they occur;
//   - a double quote is an opening quote at the start of a word or after an
//     opening bracket and a closing quote elsewhere; doubled backquotes and
//     doubled apostrophes typed as such are quote tokens, as is a
//     backquote (see [Token] for the forms);
//   - , and : are split off except between digits (1,000 and 9:30 stay
//     whole, as in the Treebank; the script splits them);
//   - $ is split off ($5.50 is $ 5.50) except after one to three capitals
//     (US$ C$ HK$ stay, as in the Treebank); % is split off (5% is 5 %)
//     except before a hyphen (81%-owned, as in the Treebank); & is split
//     off except between letters or digits (AT&T, S&P, as in the Treebank);
//   - only the sentence's final period is split off (Mr. U.S. 1.8 stay
//     whole inside the sentence), also before closing brackets and quotes,
//     and not after another period (a.. stays); an acronym of single
//     letters (U.S., a.m., D.C.) keeps its period and the sentence period
//     follows as a second token sharing that byte, as the Treebank writes
//     it (U.S. .), while Inc. and etc. end as Inc . and etc . (the corpus
//     has no Inc. . at all);
//   - contractions and the possessive are split: 's 'S 'm 'M 'd 'D 'll 're
//     've 'LL 'RE 'VE n't N'T (don't is do n't, can't is ca n't, I'm is I 'm,
//     John's is John 's); a final apostrophe after a non-apostrophe is split
//     off (parents' is parents '); cannot d'ye gimme gonna gotta lemme
//     more'n 'tis 'twas wanna are split as the script splits them (can not,
//     gon na, 't is, ...);
//   - hyphens stay inside words (e-mail, so-called); so do periods (e.g.),
//     slashes and the other ASCII symbols the script leaves alone;
//   - URLs (scheme://... or www....) and e-mail addresses are one token,
//     less trailing punctuation;
//   - beyond ASCII, where the Treebank has no rule: every other Unicode
//     punctuation character and every CJK ideograph (as BERT's
//     pre-tokenizer isolates them) is a token of its own; format characters
//     such as a zero-width joiner stay inside their token. No case folding
//     or accent stripping.
//
// The input is one sentence (the script's "ONE SENTENCE TOKEN PER LINE"):
// a period is split off only at its end. Offsets increase and tokens do not
// overlap, except that the period after a sentence-final acronym shares its
// byte with the acronym. Every character other than separators is in a
// token.
//
// text must be valid UTF-8: otherwise Tokenize returns an error wrapping
// ErrInvalidUTF8 (offsets in invalid text would be meaningless). Tokenize is
// safe for concurrent use.
func Tokenize(text string) ([]Token, error) {
	if !utf8.ValidString(text) {
		return nil, invalidUTF8(text)
	}
	ps := scanLine(text)
	toks := make([]Token, 0, len(ps))
	var parts []piece
	for _, p := range ps {
		if p.punct {
			toks = append(toks, p.token(text))
			continue
		}
		parts = splitWord(parts[:0], text, p)
		for _, w := range parts {
			toks = append(toks, w.token(text))
		}
	}
	return toks, nil
}

// invalidUTF8 returns the ErrInvalidUTF8 error for text, naming the byte
// where it stops being UTF-8.
func invalidUTF8(text string) error {
	i := 0
	for i < len(text) {
		r, n := utf8.DecodeRuneInString(text[i:])
		if r == utf8.RuneError && n <= 1 {
			break
		}
		i += n
	}
	return errorf(ErrInvalidUTF8, "invalid UTF-8 at byte %d", i)
}

// scanLine splits text into its runs of non-separators, each into pieces
// (scanChunk), and splits the sentence's final period off the last run.
func scanLine(text string) []piece {
	var ps []piece
	last := 0 // index in ps of the last run's first piece
	for cs := 0; cs < len(text); {
		r, n := utf8.DecodeRuneInString(text[cs:])
		if isSeparator(r) {
			cs += n
			continue
		}
		ce := chunkEnd(text, cs)
		last = len(ps)
		ps = scanChunk(ps, text, cs, ce)
		cs = ce
	}
	return splitFinalPeriod(ps, last, text)
}

// isSeparator reports whether r separates tokens: a Unicode space or a
// control character (Cc).
func isSeparator(r rune) bool { return unicode.IsSpace(r) || unicode.Is(unicode.Cc, r) }

// chunkEnd returns the end of the run of non-separators starting at cs.
func chunkEnd(text string, cs int) int {
	for i, r := range text[cs:] {
		if isSeparator(r) {
			return cs + i
		}
	}
	return len(text)
}

// piece is a token in the making: the bytes [start, end) of the text, its
// Penn Treebank form when it differs from what formOf makes of the bytes,
// and whether it is split-off punctuation (never a word for the
// contraction rules).
type piece struct {
	start, end int
	form       string
	punct      bool
}

func (p piece) token(text string) Token {
	form := p.form
	if form == "" {
		form = formOf(text[p.start:p.end])
	}
	return Token{Word: form, Surface: text[p.start:p.end], Start: p.start, End: p.end}
}

// formOf returns the Treebank form of a word: typographic apostrophes as
// ' and the Unicode hyphens U+2010 and U+2011 and an en dash between digits
// as -, one rune for one rune.
func formOf(s string) string {
	if !strings.ContainsAny(s, "\u2018\u2019\u2010\u2011\u2013") {
		return s
	}
	return wordForms.Replace(s)
}

var wordForms = strings.NewReplacer("\u2018", "'", "\u2019", "'", "\u2010", "-", "\u2011", "-", "\u2013", "-")

// Punctuation forms: ASCII tokens that are split off wherever they occur,
// with the parsed-file forms of the brackets.
var punctForm = map[rune]string{
	'?': "?", '!': "!", ';': ";", '@': "@", '#': "#", '<': "<", '>': ">",
	'(': "-LRB-", ')': "-RRB-", '[': "-LSB-", ']': "-RSB-", '{': "-LCB-", '}': "-RCB-",
	'\u201c': "``", '\u201e': "``", '\u201d': "''", '\u2026': "...", '\u2014': "--",
}

// Multi-byte ASCII punctuation tokens, longest first where they share a
// prefix.
var punctSeqs = []string{"...", "--", "``", "''", "`"}

// chunkScanner splits one chunk (a run of non-separators) into pieces.
type chunkScanner struct {
	text      string
	cs, ce    int // the chunk
	wordStart int // start of the word being scanned, -1 if none
	out       []piece
}

// scanChunk appends the pieces of text[cs:ce] to ps.
func scanChunk(ps []piece, text string, cs, ce int) []piece {
	s := chunkScanner{text: text, cs: cs, ce: ce, wordStart: -1, out: ps}
	for i := cs; i < ce; {
		i = s.step(i)
	}
	s.flush(ce)
	return s.out
}

// flush ends the word being scanned at end.
func (s *chunkScanner) flush(end int) {
	if s.wordStart >= 0 && end > s.wordStart {
		s.out = append(s.out, piece{start: s.wordStart, end: end})
	}
	s.wordStart = -1
}

// punct ends the current word and appends a punctuation piece.
func (s *chunkScanner) punct(start, end int, form string) int {
	s.flush(start)
	s.out = append(s.out, piece{start: start, end: end, form: form, punct: true})
	return end
}

// word continues (or starts) the current word with the n bytes at i.
func (s *chunkScanner) word(i, n int) int {
	if s.wordStart < 0 {
		s.wordStart = i
	}
	return i + n
}

// step scans the token material at i and returns where to continue.
func (s *chunkScanner) step(i int) int {
	if s.wordStart < 0 {
		if j := matchLink(s.text, i, s.ce); j > i {
			s.out = append(s.out, piece{start: i, end: j})
			return j
		}
	}
	for _, q := range punctSeqs {
		if strings.HasPrefix(s.text[i:s.ce], q) {
			return s.punct(i, i+len(q), q)
		}
	}
	r, n := utf8.DecodeRuneInString(s.text[i:])
	if form, ok := punctForm[r]; ok {
		return s.punct(i, i+n, form)
	}
	if next, ok := s.contextual(i, r, n); ok {
		return next
	}
	if r >= utf8.RuneSelf && r != '\u2019' && r != '\u2010' && r != '\u2011' {
		switch {
		case isCJK(r):
			s.flush(i)
			s.out = append(s.out, piece{start: i, end: i + n})
			return i + n
		case unicode.IsPunct(r):
			return s.punct(i, i+n, "")
		}
	}
	return s.word(i, n)
}

// contextual scans the characters that are split off or kept in the word
// depending on their neighbours, and reports false for any other.
func (s *chunkScanner) contextual(i int, r rune, n int) (next int, ok bool) {
	text, inWord := s.text, s.wordStart >= 0
	switch r {
	case '"':
		if i == s.cs || strings.ContainsRune("([{<", rune(text[i-1])) {
			return s.punct(i, i+n, "``"), true
		}
		return s.punct(i, i+n, "''"), true
	case '\u2018':
		if !inWord {
			return s.punct(i, i+n, "`"), true
		}
	case ',', ':':
		if !inWord || !isDigitAt(text, i-1) || i+1 >= s.ce || !isDigitAt(text, i+1) {
			return s.punct(i, i+n, string(r)), true
		}
	case '$':
		if !inWord || !isCurrencyPrefix(text[s.wordStart:i]) {
			return s.punct(i, i+n, "$"), true
		}
		s.flush(i + n) // US$ is a word of its own
		return i + n, true
	case '%':
		if i+1 >= s.ce || text[i+1] != '-' {
			return s.punct(i, i+n, "%"), true
		}
	case '\u2013':
		// An en dash in a range of numbers (1990–91) is the Treebank's
		// hyphen, inside the word; elsewhere a dash.
		if !inWord || !isDigitAt(text, i-1) || i+n >= s.ce || !isDigitAt(text, i+n) {
			return s.punct(i, i+n, "--"), true
		}
	case '&':
		if !inWord || !isAlnumBefore(text, i) || !isAlnumAfter(text, i+n, s.ce) {
			return s.punct(i, i+n, "&"), true
		}
	default:
		return 0, false
	}
	return s.word(i, n), true
}

func isDigitAt(text string, i int) bool {
	return i >= 0 && i < len(text) && '0' <= text[i] && text[i] <= '9'
}

func isAlnumBefore(text string, i int) bool {
	r, _ := utf8.DecodeLastRuneInString(text[:i])
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

func isAlnumAfter(text string, i, end int) bool {
	if i >= end {
		return false
	}
	r, _ := utf8.DecodeRuneInString(text[i:end])
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// isCurrencyPrefix reports whether s is one to three ASCII capitals, as the
// US of US$ or the HK of HK$.
func isCurrencyPrefix(s string) bool {
	if len(s) < 1 || len(s) > 3 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 'A' || s[i] > 'Z' {
			return false
		}
	}
	return true
}

// cjk is the CJK Unified Ideographs blocks that BERT's pre-tokenizer (and
// github.com/sugarme/tokenizer, which this package used before) isolates.
var cjk = &unicode.RangeTable{
	R16: []unicode.Range16{{Lo: 0x3400, Hi: 0x4dbf, Stride: 1}, {Lo: 0x4e00, Hi: 0x9fff, Stride: 1}, {Lo: 0xf900, Hi: 0xfaff, Stride: 1}},
	R32: []unicode.Range32{{Lo: 0x20000, Hi: 0x2a6df, Stride: 1}, {Lo: 0x2a700, Hi: 0x2b73f, Stride: 1},
		{Lo: 0x2b740, Hi: 0x2b81f, Stride: 1}, {Lo: 0x2b820, Hi: 0x2ceaf, Stride: 1}, {Lo: 0x2f800, Hi: 0x2fa1f, Stride: 1}},
}

func isCJK(r rune) bool { return unicode.Is(cjk, r) }

// matchLink returns the end of a URL or e-mail address starting at i
// (inside the chunk ending at end), or i if there is none.
func matchLink(text string, i, end int) int {
	s := text[i:end]
	if j := schemeEnd(s); j > 0 || strings.HasPrefix(s, "www.") {
		if k := trimLinkEnd(s); k > max(j, len("www.")) {
			return i + k
		}
		return i
	}
	return i + emailEnd(s)
}

// Bounds on the parts of a link, which keep Tokenize linear: the scans
// from successive word starts cover at most these many bytes. A scheme is
// a short name; RFC 5321 bounds an address's local part to 64 bytes and
// RFC 1035 a domain name to 255.
const (
	maxScheme = 32
	maxLocal  = 64
	maxDomain = 255
)

// schemeEnd returns the length of a leading "scheme://", 0 if none.
func schemeEnd(s string) int {
	for j := 0; j < min(len(s), maxScheme); j++ {
		c := s[j]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
		case j > 0 && ('0' <= c && c <= '9' || c == '+' || c == '.' || c == '-'):
		case j > 0 && strings.HasPrefix(s[j:], "://"):
			return j + 3
		default:
			return 0
		}
	}
	return 0
}

// trimLinkEnd returns the length of s less trailing punctuation, which
// belongs to the sentence rather than to the link.
func trimLinkEnd(s string) int {
	for len(s) > 0 {
		r, n := utf8.DecodeLastRuneInString(s)
		if !strings.ContainsRune(".,;:!?'\")]}>\u2019\u201d", r) {
			break
		}
		s = s[:len(s)-n]
	}
	return len(s)
}

// emailEnd returns the length of a leading e-mail address local@domain.tld
// (ASCII), 0 if none.
func emailEnd(s string) int {
	at := 0
	for at < min(len(s), maxLocal+1) && (isAlnumASCII(s[at]) || strings.IndexByte("._%+-", s[at]) >= 0) {
		at++
	}
	if at == 0 || at > maxLocal || at >= len(s) || s[at] != '@' {
		return 0
	}
	j := at + 1
	for j < min(len(s), at+1+maxDomain) && (isAlnumASCII(s[j]) || s[j] == '.' || s[j] == '-') {
		j++
	}
	for j > at+1 && (s[j-1] == '.' || s[j-1] == '-') {
		j--
	}
	if dot := strings.LastIndexByte(s[at+1:j], '.'); dot <= 0 || at+1+dot == j-1 {
		return 0
	}
	return j
}

func isAlnumASCII(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// closers are the forms that may follow a sentence's final period (the
// script's [])}>"']).
var closers = map[string]bool{"-RRB-": true, "-RSB-": true, "-RCB-": true, ">": true, "''": true, "'": true}

// splitFinalPeriod splits the sentence's final period off the last word of
// ps (whose last chunk starts at index first), as the script does: a period
// followed only by closing brackets and quotes, not preceded by another
// period. An acronym of single letters keeps its period and the sentence
// period follows as a token of its own over the same byte.
func splitFinalPeriod(ps []piece, first int, text string) []piece {
	k := len(ps) - 1
	for k >= first && ps[k].punct && closers[ps[k].form] {
		k--
	}
	if k < first || ps[k].punct {
		return ps
	}
	w := ps[k]
	e := w.end
	for e > w.start && isApostrophe(text[w.start:e]) {
		_, n := utf8.DecodeLastRuneInString(text[w.start:e])
		e -= n
	}
	if e-w.start < 2 || text[e-1] != '.' || text[e-2] == '.' {
		return ps
	}
	period := piece{start: e - 1, end: e, form: ".", punct: true}
	var repl []piece
	if isAcronym(text[w.start : e-1]) {
		repl = []piece{{start: w.start, end: e}, period}
	} else {
		repl = []piece{{start: w.start, end: e - 1}, period}
	}
	if e < w.end {
		repl = append(repl, piece{start: e, end: w.end})
	}
	return append(ps[:k], append(repl, ps[k+1:]...)...)
}

// isApostrophe reports whether s ends with ' or ’.
func isApostrophe(s string) bool { return strings.HasSuffix(s, "'") || strings.HasSuffix(s, "\u2019") }

// isAcronym reports whether s is single ASCII letters joined by periods,
// at least two of them: the U.S of U.S., the a.m of a.m.
func isAcronym(s string) bool {
	if len(s) < 3 || len(s)%2 == 0 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		letter := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
		if (i%2 == 0) != letter || (i%2 == 1 && c != '.') {
			return false
		}
	}
	return true
}

// Contraction suffixes split off a word, as the script lists them.
var contractions = []string{"'s", "'S", "'m", "'M", "'d", "'D", "'ll", "'re", "'ve", "'LL", "'RE", "'VE", "n't", "N'T"}

// specialWords are the script's whole-word splits, mapped to the number of
// runes of their first part (cannot is can not, 'tis is 't is). The letter
// the script matches in either case ([Cc]annot, '[Tt]is) is given in lower
// case; specialSplits adds the capital.
var specialWords = map[string]int{
	"cannot": 3, "d'ye": 2, "gimme": 3, "gonna": 3, "gotta": 3, "lemme": 3,
	"more'n": 4, "'tis": 2, "'twas": 2, "wanna": 3,
}

// specialSplits is specialWords with each word also in its capitalized form.
var specialSplits = func() map[string]int {
	m := make(map[string]int, 2*len(specialWords))
	for w, k := range specialWords {
		m[w] = k
		i := strings.IndexFunc(w, unicode.IsLetter)
		m[w[:i]+strings.ToUpper(w[i:i+1])+w[i+1:]] = k
	}
	return m
}()

// splitWord appends the parts of the word piece p to dst: the word, less a
// final closing quote and a contraction suffix, split further if it is one
// of the script's special words; then the suffix and the quote.
func splitWord(dst []piece, text string, p piece) []piece {
	var tail []piece
	if n := closingQuoteLen(text[p.start:p.end]); n > 0 {
		tail = append(tail, piece{start: p.end - n, end: p.end})
		p.end -= n
	}
	if n := contractionLen(text[p.start:p.end]); n > 0 {
		tail = append([]piece{{start: p.end - n, end: p.end}}, tail...)
		p.end -= n
	}
	w := text[p.start:p.end]
	if k, ok := specialSplits[formOf(w)]; ok {
		mid := p.start + prefixBytes(w, k)
		dst = append(dst, piece{start: p.start, end: mid}, piece{start: mid, end: p.end})
	} else {
		dst = append(dst, p)
	}
	return append(dst, tail...)
}

// closingQuoteLen returns the byte length of a final apostrophe of w that
// follows a character that is not one (the script's possessive or closing
// single quote), 0 if there is none.
func closingQuoteLen(w string) int {
	if !isApostrophe(w) {
		return 0
	}
	_, n := utf8.DecodeLastRuneInString(w)
	if rest := w[:len(w)-n]; rest == "" || isApostrophe(rest) {
		return 0
	}
	return n
}

// contractionLen returns the byte length of the contraction suffix of w, 0
// if it has none or is nothing but the suffix.
func contractionLen(w string) int {
	norm := formOf(w) // one rune of norm for each rune of w
	for _, c := range contractions {
		if len(norm) > len(c) && strings.HasSuffix(norm, c) {
			return len(w) - prefixBytes(w, utf8.RuneCountInString(norm)-len(c))
		}
	}
	return 0
}

// prefixBytes returns the byte length of the first n runes of w.
func prefixBytes(w string, n int) int {
	for i := range w {
		if n == 0 {
			return i
		}
		n--
	}
	return len(w)
}
