package rawtext

import (
	"strings"
)

// ptbText maps the Treebank's escaped forms back to the characters typed.
var ptbText = map[string]string{
	"-LRB-": "(", "-RRB-": ")", "-LSB-": "[", "-RSB-": "]", "-LCB-": "{", "-RCB-": "}",
	"``": "\"", "''": "\"",
}

// noSpaceBefore are the Treebank tokens written against the word before
// them; noSpaceAfter those written against the word after them.
var (
	noSpaceBefore = set(",", ".", ";", ":", "?", "!", "%", ")", "]", "}", "''", "'s", "'S", "n't", "N'T", "'re",
		"'ve", "'m", "'ll", "'d", "'RE", "'VE", "'M", "'LL", "'D", "'", "-RRB-", "-RSB-", "-RCB-")
	noSpaceAfter = set("(", "[", "{", "``", "$", "#", "-LRB-", "-LSB-", "-LCB-", "`")
)

// Detokenize writes the Penn Treebank tokens of one sentence back as
// running text, the inverse of PTB tokenization on the WSJ's conventions:
// the escaped brackets and quotes as typed ("(" for -LRB-, a straight
// double quote for the quote tokens of two backquotes or two
// apostrophes), no space before , . ; : ? ! % closing
// brackets and quotes and the contractions ('s n't ...), none after
// opening brackets and quotes, $ and #, and a sentence period after an
// acronym's period dropped (U.S. . is U.S.). It is how docs/raw-text.md
// rebuilds running text from CoNLL-2000 to measure [Sentences].
func Detokenize(words []string) string {
	var b strings.Builder
	for k, w := range words {
		s := w
		if t, ok := ptbText[w]; ok {
			s = t
		}
		if w == "." && k > 0 && strings.HasSuffix(words[k-1], ".") {
			continue
		}
		if k > 0 && !noSpaceBefore[w] && !noSpaceAfter[words[k-1]] {
			b.WriteByte(' ')
		}
		b.WriteString(s)
	}
	return b.String()
}
