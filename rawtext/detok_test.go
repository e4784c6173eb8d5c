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

// detokenize writes the Treebank tokens of one sentence back as running
// text: the inverse of corpora.Tokenize on the WSJ's conventions (a
// sentence period after an acronym's period is dropped: U.S. . is U.S.).
func detokenize(words []string) string {
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
