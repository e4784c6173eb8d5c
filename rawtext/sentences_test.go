package rawtext

import (
	"bufio"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sparsetag/sparsetag/corpora"
)

func sentenceTexts(text string) []string {
	var out []string
	for _, s := range Sentences(nil, text) {
		out = append(out, text[s.Start:s.End])
	}
	return out
}

func TestSentences(t *testing.T) {
	cases := []struct {
		name string
		text string
		want []string
	}{
		{"issue example", "Mr. Smith went to Washington on Tuesday. He paid $5.50 for it.",
			[]string{"Mr. Smith went to Washington on Tuesday.", "He paid $5.50 for it."}},
		{"empty", "", nil},
		{"spaces", " \n\t ", nil},
		{"no terminator", "  just words  ", []string{"just words"}},
		{"question and quote", `"Is it?" he asked. "Yes!" She left.`, []string{`"Is it?" he asked.`, `"Yes!"`, "She left."}},
		{"initials", "John F. Kennedy spoke. It rained.", []string{"John F. Kennedy spoke.", "It rained."}},
		{"acronym mid sentence", "The U.S. Treasury sold bonds.", []string{"The U.S. Treasury sold bonds."}},
		{"acronym at end", "He moved to the U.S. The move was hard.", []string{"He moved to the U.S.", "The move was hard."}},
		{"company", "Boeing Co. said profit rose. Boeing Co. The end.", []string{"Boeing Co. said profit rose.", "Boeing Co.", "The end."}},
		{"numbers", "It rose 1.8% to 9.30. Then it fell.", []string{"It rose 1.8% to 9.30.", "Then it fell."}},
		{"brackets", "He left (for good.) Then she came.", []string{"He left (for good.)", "Then she came."}},
		{"ellipsis", "Well... maybe. Fine… Go.", []string{"Well... maybe.", "Fine…", "Go."}},
		{"month", "On Jan. 15 it closed.", []string{"On Jan. 15 it closed."}},
		{"title before name", "Ask Dr. Who. Now.", []string{"Ask Dr. Who.", "Now."}},
		{"paragraph", "A title\n\nThe text", []string{"A title", "The text"}},
		{"single line break", "a line\nthe next", []string{"a line\nthe next"}},
		{"lower case next", "It cost 5 p.m. prices. ok then.", []string{"It cost 5 p.m. prices. ok then."}},
		{"caseless script", "这是. 那是.", []string{"这是.", "那是."}},
		{"unicode spaces", "One.\u00a0Two.\u3000Three.", []string{"One.", "Two.", "Three."}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, sentenceTexts(c.text))
		})
	}
}

// goldText reads the CoNLL-2000 file name (embedded), detokenizes its
// sentences and joins them into one running text; it returns the text and
// the byte offset of each sentence's end. Sentences are joined by one
// space, except that a sentence which does not end with a terminator (. ?
// !, maybe followed by closing quotes and brackets) is followed by a blank
// line: those are the WSJ's headlines, datelines and table rows ("Wells
// Fargo", "ENERGY:", "Net income: $44.9 million"), which stand on lines of
// their own in running text.
func goldText(t testing.TB, name string) (string, []int) {
	rc, err := corpora.OpenEmbedded(name)
	require.NoError(t, err)
	defer rc.Close()
	var b strings.Builder
	var ends []int
	var words []string
	flush := func() {
		if len(words) == 0 {
			return
		}
		if b.Len() > 0 {
			if endsWithTerminator(b.String()) {
				b.WriteByte(' ')
			} else {
				b.WriteString("\n\n")
			}
		}
		b.WriteString(Detokenize(words))
		ends = append(ends, b.Len())
		words = words[:0]
	}
	sc := bufio.NewScanner(rc)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			flush()
			continue
		}
		words = append(words, f[0])
	}
	require.NoError(t, sc.Err())
	flush()
	return b.String(), ends
}

// endsWithTerminator reports whether s ends with . ? ! or …, maybe
// followed by closing quotes and brackets.
func endsWithTerminator(s string) bool {
	s = strings.TrimRight(s, "\"')]}")
	return strings.HasSuffix(s, ".") || strings.HasSuffix(s, "?") || strings.HasSuffix(s, "!") || strings.HasSuffix(s, "…")
}

// splitScores returns the precision and recall of the sentence ends that
// Sentences finds in text against the gold ends.
func splitScores(text string, gold []int) (precision, recall float64, pred int) {
	want := make(map[int]bool, len(gold))
	for _, e := range gold {
		want[e] = true
	}
	match := 0
	spans := Sentences(nil, text)
	for _, s := range spans {
		if want[s.End] {
			match++
		}
	}
	return float64(match) / float64(len(spans)), float64(match) / float64(len(gold)), len(spans)
}

// TestSentencesCoNLL2000 measures Sentences on the CoNLL-2000 sentences
// (WSJ sections 15-18 and 20) detokenized and rejoined into running text
// (docs/raw-text.md): precision and recall of sentence ends.
func TestSentencesCoNLL2000(t *testing.T) {
	for _, name := range []string{"conll2000/test.txt.gz", "conll2000/train.txt.gz"} {
		text, gold := goldText(t, name)
		p, r, n := splitScores(text, gold)
		t.Logf("%s: %d gold sentences, %d found, precision %.4f recall %.4f", name, len(gold), n, p, r)
		assert.GreaterOrEqual(t, p, 0.98, name)
		assert.GreaterOrEqual(t, r, 0.98, name)
	}
}
