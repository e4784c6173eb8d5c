package rawtext

import (
	"unicode"
	"unicode/utf8"
)

// Span is a range of bytes [Start, End) of a text.
type Span struct {
	Start, End int
}

// Sentences appends to dst the sentences of text, as byte ranges without
// the spaces around them, in order, and returns dst. Text without any
// non-space character has no sentence.
//
// A sentence ends after a run of terminators (. ? ! and the ellipsis …),
// with the closing quotes and brackets that follow it (" ' ” ’ ) ] }), when
// a space follows and the next word could start a sentence; and at a blank
// line (two line breaks with nothing but spaces between them: a paragraph
// break). The next word could start a sentence when it starts with a
// capital letter, a digit, an opening quote or bracket, or a character of
// a script without case; a lower-case letter or other punctuation (a
// comma, a dash) continues the sentence. After a period, the word before
// it decides:
//
//   - a title that precedes a name (Mr. Mrs. Ms. Dr. Prof. Gen. Sen. Rep.
//     Gov. St. Messrs. ..., see titles) never ends a sentence;
//   - an initial (one capital letter: John F. Kennedy), an acronym of
//     single letters with periods (U.S. a.m.) and the other common
//     abbreviations (Inc. Corp. Co. Ltd. Jr. etc. Jan. ... Dec., Calif. and
//     the states' abbreviations, see abbreviations) end a sentence only
//     when the next word is one of the closed-class words that start most
//     sentences (The, But, He, In, ..., see starters): "Boeing Co. said"
//     goes on, "Boeing Co. The" ends;
//   - any other word ends the sentence (1989. Then; rose 5%. The), and so
//     does an ellipsis followed by such a next word.
//
// Numbers with a decimal point (5.50), e-mail addresses and URLs never end
// a sentence inside, since no space follows their periods.
func Sentences(dst []Span, text string) []Span {
	start := -1 // start of the current sentence, -1 before its first character
	for i := 0; i < len(text); {
		c := text[i]
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' {
			if c == '\n' && start >= 0 && blankLineAt(text, i) {
				dst = append(dst, Span{start, trimEnd(text, start, i)})
				start = -1
			}
			i++
			continue
		}
		r, n := rune(c), 1
		if c >= utf8.RuneSelf {
			r, n = utf8.DecodeRuneInString(text[i:])
			if unicode.IsSpace(r) {
				i += n
				continue
			}
		}
		if start < 0 {
			start = i
		}
		if !isTerminator(r) {
			i += n
			continue
		}
		end := endOfTerminators(text, i)
		if end < len(text) && !isSpaceAt(text, end) {
			i = end
			continue
		}
		if endsSentence(text, start, i, end) {
			dst = append(dst, Span{start, end})
			start = -1
		}
		i = end
	}
	if start >= 0 {
		dst = append(dst, Span{start, trimEnd(text, start, len(text))})
	}
	return dst
}

func isTerminator(r rune) bool { return r == '.' || r == '?' || r == '!' || r == '…' }

func isCloser(r rune) bool {
	switch r {
	case '"', '\'', ')', ']', '}', '”', '’', '»':
		return true
	}
	return false
}

// endOfTerminators returns the end of the run of terminators starting at i
// and of the closing quotes and brackets after it.
func endOfTerminators(text string, i int) int {
	for i < len(text) {
		r, n := utf8.DecodeRuneInString(text[i:])
		if !isTerminator(r) && !isCloser(r) {
			break
		}
		i += n
	}
	return i
}

func isSpaceAt(text string, i int) bool {
	r, _ := utf8.DecodeRuneInString(text[i:])
	return unicode.IsSpace(r)
}

// blankLineAt reports whether the line break at i is followed by only
// spaces and another line break.
func blankLineAt(text string, i int) bool {
	for j := i + 1; j < len(text); j++ {
		switch text[j] {
		case '\n':
			return true
		case ' ', '\t', '\r':
		default:
			return false
		}
	}
	return false
}

// trimEnd returns end less the spaces before it (down to start).
func trimEnd(text string, start, end int) int {
	for end > start {
		r, n := utf8.DecodeLastRuneInString(text[start:end])
		if !unicode.IsSpace(r) {
			break
		}
		end -= n
	}
	return end
}

// endsSentence decides whether the terminators at [i, end) (closers
// included) end the sentence that started at start.
func endsSentence(text string, start, i, end int) bool {
	next, nextWord := nextWordAt(text, end)
	if next == 0 {
		return true // end of text: the caller closes the sentence anyway
	}
	if !couldStart(next) {
		return false
	}
	if text[i] != '.' || end-i > 1 && text[i+1] == '.' {
		return true // ? ! … or an ellipsis of periods, before a possible start
	}
	w := wordBefore(text, start, i)
	switch {
	case titles[w]:
		return false
	case isInitial(w), isAcronymWord(w), abbreviations[w]:
		return starters[nextWord] || isOpener(next)
	}
	return true
}

// nextWordAt returns the first character after the spaces at i (0 at the
// end of text) and the word it starts (up to a space or punctuation other
// than an apostrophe or hyphen).
func nextWordAt(text string, i int) (rune, string) {
	for i < len(text) {
		r, n := utf8.DecodeRuneInString(text[i:])
		if !unicode.IsSpace(r) {
			break
		}
		i += n
	}
	if i >= len(text) {
		return 0, ""
	}
	first, _ := utf8.DecodeRuneInString(text[i:])
	j := i
	for j < len(text) {
		r, n := utf8.DecodeRuneInString(text[j:])
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			break
		}
		j += n
	}
	return first, text[i:j]
}

// couldStart reports whether a word starting with r could start a
// sentence.
func couldStart(r rune) bool {
	switch {
	case unicode.IsUpper(r), unicode.IsTitle(r), unicode.IsDigit(r):
		return true
	case unicode.IsLower(r):
		return false
	case unicode.IsLetter(r):
		return true // a script without case
	}
	switch r {
	case '"', '\'', '(', '[', '{', '“', '‘', '«', '¿', '¡', '$', '£', '€', '`':
		return true
	}
	return false
}

// wordBefore returns the word that ends at the period at i: from the last
// space (or the sentence start) less opening quotes and brackets.
func wordBefore(text string, start, i int) string {
	j := i
	for j > start {
		r, n := utf8.DecodeLastRuneInString(text[start:j])
		if unicode.IsSpace(r) {
			break
		}
		j -= n
	}
	for j < i {
		r, n := utf8.DecodeRuneInString(text[j:])
		if !isOpener(r) {
			break
		}
		j += n
	}
	return text[j:i]
}

func isOpener(r rune) bool {
	switch r {
	case '"', '\'', '(', '[', '{', '“', '‘', '«', '`':
		return true
	}
	return false
}

// isInitial reports whether w is one capital letter.
func isInitial(w string) bool {
	r, n := utf8.DecodeRuneInString(w)
	return n == len(w) && n > 0 && unicode.IsUpper(r)
}

// isAcronymWord reports whether w (the word before a final period) is
// single letters joined by periods: the U.S of U.S., the a.m of a.m.
func isAcronymWord(w string) bool {
	if len(w) < 3 || len(w)%2 == 0 {
		return false
	}
	for i := 0; i < len(w); i++ {
		c := w[i]
		letter := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
		if (i%2 == 0) != letter || (i%2 == 1 && c != '.') {
			return false
		}
	}
	return true
}

func set(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// titles are the abbreviations that precede a name: a period after them
// never ends a sentence.
var titles = set("Mr", "Mrs", "Ms", "Messrs", "Mmes", "Dr", "Drs", "Prof", "Gen", "Sen", "Sens", "Rep", "Reps",
	"Gov", "Lt", "Col", "Maj", "Capt", "Cmdr", "Adm", "Sgt", "Cpl", "Pvt", "Rev", "Msgr", "Fr", "Sr", "St", "Mt",
	"Ft", "Hon", "Pres", "Supt", "Insp", "Det", "Gov", "Atty", "Rs", "No", "Nos", "Vol", "vs", "v", "cf", "viz",
	"Fig", "fig", "pp", "p", "approx", "Alex", "Ald", "Amb", "Brig", "Treas", "Sec", "Secs", "Ref")

// abbreviations end a sentence only before a sentence starter or an
// opening quote (see Sentences). A company's suffix (Inc. Corp. Co. Ltd.)
// is not one of them: it ends more sentences than capitalized words follow
// it inside one.
var abbreviations = set(
	"Jr", "Assn", "Dept", "Univ", "Ave", "Blvd", "Rd",
	"etc", "e.g", "i.e", "al", "Jan", "Feb", "Mar", "Apr", "Jun", "Jul", "Aug", "Sep", "Sept", "Oct", "Nov", "Dec",
	"Tues", "Thur", "Thurs",
	"Ala", "Ariz", "Ark", "Calif", "Colo", "Conn", "Del", "Fla", "Ga", "Ill", "Ind", "Kan", "Kans", "Ky", "La",
	"Md", "Mass", "Mich", "Minn", "Mo", "Mont", "Neb", "Nev", "Okla", "Ore", "Pa", "Penn", "Tenn", "Tex",
	"Va", "Vt", "Wash", "Wis", "Wyo", "N.M", "N.Y", "N.J", "N.H", "N.C", "N.D", "S.C", "S.D", "R.I", "W.Va",
	"a.m", "p.m", "ft", "lb", "lbs", "oz", "yr", "yrs", "hr", "hrs", "sq", "mg", "km",
	"cm", "mm", "kg", "Ph.D", "M.D", "B.A", "M.A", "U.S", "U.K", "U.N", "E.U", "L.A", "D.C")

// starters are the closed-class words (and a few others) that start most
// sentences of news text: after an abbreviation, only they end the
// sentence.
var starters = set(
	"The", "A", "An", "This", "That", "These", "Those", "It", "Its", "He", "She", "They", "We", "I", "You",
	"His", "Her", "Their", "Our", "My", "Your", "But", "And", "Or", "So", "Yet", "Nor", "In", "On", "At", "For",
	"With", "By", "From", "As", "If", "When", "While", "Although", "Though", "Because", "Since", "After",
	"Before", "During", "Under", "Over", "Among", "Meanwhile", "However", "Also", "Still", "Some", "Many",
	"Most", "Such", "There", "Here", "What", "Who", "Why", "How", "Where", "Which", "Yesterday", "Today",
	"Last", "Next", "Earlier", "Later", "Analysts", "Both", "Each", "Other", "Another", "One", "Two", "Not",
	"No", "Now", "Then", "Thus", "Instead", "Moreover", "Indeed", "Separately", "Despite", "According",
	"Although", "Under", "To", "Of", "All", "Any", "Every", "Neither", "Either", "Only", "Even", "Just", "Mr",
	"Mrs", "Ms", "Dr")
