package hftok

import (
	"errors"
	"math/rand/v2"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sparsetag/sparsetag/rawtext"
)

func load(t testing.TB, name string) *Tokenizer {
	tk, err := Load("testdata/" + name)
	require.NoError(t, err)
	return tk
}

type word struct{ Word, Surface string }

func words(t *testing.T, tk *Tokenizer, s string) []word {
	toks, err := tk.Tokenize(nil, s)
	require.NoError(t, err)
	var out []word
	for _, w := range toks {
		out = append(out, word{w.Word, s[w.StartByte:w.EndByte]})
	}
	return out
}

// TestBertUncased: the BERT normalizer lowercases, strips accents (also
// combining ones), isolates CJK characters and removes control
// characters; every word maps back to the text as written.
func TestBertUncased(t *testing.T) {
	tk := load(t, "bert-uncased.json")
	assert.Equal(t, []word{
		{"cafe", "Café"}, {"zurich", "Zürich"}, {",", ","}, {"東", "東"}, {"京", "京"}, {"!", "!"},
		{"don", "Don"}, {"’", "’"}, {"t", "t"}, {".", "."},
	}, words(t, tk, "Café Zürich, 東京! Don’t."))
	assert.Equal(t, []word{{"resume", "re\u0301sume\u0301"}, {"ok", "O\x01K"}}, words(t, tk, "re\u0301sume\u0301 O\x01K"))
}

// TestNFKCCased: NFKC maps a ligature and full-width digits; words keep
// their case; offsets cover the characters as typed.
func TestNFKCCased(t *testing.T) {
	tk := load(t, "nfkc-cased.json")
	assert.Equal(t, []word{
		{"fine", "ﬁne"}, {"123", "１２３"}, {"abc", "abc"}, {"(", "("}, {"Ok", "Ok"}, {")", ")"},
	}, words(t, tk, "ﬁne １２３abc (Ok)"))
}

// TestDocumentOffsetsRandom: on random Unicode text, every token of every
// fixture maps back to valid text in order (rawtext.Document checks the
// order and bounds; this checks the code points too).
func TestDocumentOffsetsRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	alphabet := []rune("aB.,?!'\"()$%-:;  \n\té€東𝄞“”’…\u00a0\u200dÅ\u0301ﬁ１\x01")
	for _, name := range []string{"bert-uncased.json", "nfkc-cased.json"} {
		tk := load(t, name)
		var d rawtext.Doc
		for range 1000 {
			var b strings.Builder
			for range rng.IntN(60) {
				b.WriteRune(alphabet[rng.IntN(len(alphabet))])
			}
			text := b.String()
			require.NoError(t, rawtext.Document(&d, text, tk), "%q", text)
			runes := []rune(text)
			for _, s := range d.Sentences {
				for _, w := range s.Tokens {
					require.Equal(t, text[w.StartByte:w.EndByte], string(runes[w.Start:w.End]))
					require.NotEmpty(t, w.Word)
				}
			}
		}
	}
}

func FuzzTokenizeOffsets(f *testing.F) {
	f.Add("Café Zürich, 東京! Don’t.")
	f.Add("ﬁne １２３abc (Ok) re\u0301sume\u0301")
	tks := []*Tokenizer{load(f, "bert-uncased.json"), load(f, "nfkc-cased.json")}
	f.Fuzz(func(t *testing.T, text string) {
		for _, tk := range tks {
			var d rawtext.Doc
			err := rawtext.Document(&d, text, tk)
			if err != nil {
				require.ErrorIs(t, err, rawtext.ErrInvalidText)
			}
		}
	})
}

// TestHostileFiles: malformed, hostile and unsupported tokenizer.json
// files give an error naming the problem, never a panic or an exit.
func TestHostileFiles(t *testing.T) {
	deep := `{"type":"BertPreTokenizer"}`
	for range 10 {
		deep = `{"type":"Sequence","pretokenizers":[` + deep + `]}`
	}
	many := `{"type":"Sequence","normalizers":[` + strings.Repeat(`{"type":"Lowercase"},`, 1000) + `{"type":"Lowercase"}]}`
	pre := `"pre_tokenizer":{"type":"BertPreTokenizer"}`
	cases := []struct {
		name, json string
		err        error
		msg        string
	}{
		{"empty", ``, ErrFormat, "EOF"},
		{"truncated", `{"normalizer":{"type":"Lowercase"`, ErrFormat, ""},
		{"not an object", `[1,2,3]`, ErrFormat, ""},
		{"binary", "\x00\xff\xfe", ErrFormat, ""},
		{"normalizer a number", `{"normalizer":5,` + pre + `}`, ErrFormat, "not an object"},
		{"type a number", `{"normalizer":{"type":5},` + pre + `}`, ErrFormat, `no string "type"`},
		{"no type", `{"normalizer":{},` + pre + `}`, ErrFormat, `no string "type"`},
		{"flag a string", `{"normalizer":{"type":"BertNormalizer","strip_accents":"yes"},` + pre + `}`, ErrFormat, "BertNormalizer.strip_accents is not a boolean"},
		{"Nmt (panics in the library)", `{"normalizer":{"type":"Nmt"},` + pre + `}`, ErrUnsupported, `normalizer "Nmt"`},
		{"Precompiled", `{"normalizer":{"type":"Precompiled","precompiled_charsmap":"!!"},` + pre + `}`, ErrUnsupported, `"Precompiled"`},
		{"Replace", `{"normalizer":{"type":"Replace","pattern":{"Regex":"("},"content":""},` + pre + `}`, ErrUnsupported, `"Replace"`},
		{"ByteLevel", `{"pre_tokenizer":{"type":"ByteLevel","add_prefix_space":true}}`, ErrUnsupported, `pre-tokenizer "ByteLevel"`},
		{"Metaspace", `{"pre_tokenizer":{"type":"Metaspace","replacement":"▁"}}`, ErrUnsupported, `"Metaspace"`},
		{"Split with a bad regex", `{"pre_tokenizer":{"type":"Split","pattern":{"Regex":"("},"behavior":"Isolated","invert":false}}`, ErrUnsupported, `"Split"`},
		{"no pre-tokenizer", `{"normalizer":null,"pre_tokenizer":null}`, ErrUnsupported, "no pre_tokenizer"},
		{"deep Sequence", `{"pre_tokenizer":` + deep + `}`, ErrUnsupported, "nested more than"},
		{"long Sequence", `{"normalizer":` + many + `,` + pre + `}`, ErrUnsupported, "1001 entries"},
		{"Sequence not an array", `{"pre_tokenizer":{"type":"Sequence","pretokenizers":{"a":1}}}`, ErrFormat, "not an array"},
		{"empty Sequence", `{"pre_tokenizer":{"type":"Sequence","pretokenizers":[]}}`, ErrUnsupported, "empty Sequence"},
		{"bad behavior", `{"pre_tokenizer":{"type":"Punctuation","behavior":"Bogus"}}`, ErrUnsupported, `"Bogus"`},
		{"behavior a number", `{"pre_tokenizer":{"type":"Punctuation","behavior":3}}`, ErrFormat, "not a string"},
		{"digits flag a string", `{"pre_tokenizer":{"type":"Digits","individual_digits":"no"}}`, ErrFormat, "not a boolean"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("bad.json", []byte(c.json))
			require.Error(t, err)
			assert.True(t, errors.Is(err, c.err), "%v", err)
			assert.Contains(t, err.Error(), "bad.json")
			assert.Contains(t, err.Error(), c.msg)
		})
	}
	_, err := Parse("huge.json", make([]byte, MaxFileBytes+1))
	assert.ErrorIs(t, err, ErrFormat)
	_, err = Load("testdata/no-such-file.json")
	assert.True(t, errors.Is(err, os.ErrNotExist))
}

func FuzzParse(f *testing.F) {
	for _, name := range []string{"bert-uncased.json", "nfkc-cased.json"} {
		b, err := os.ReadFile("testdata/" + name)
		require.NoError(f, err)
		f.Add(b)
	}
	f.Add([]byte(`{"normalizer":{"type":"Sequence","normalizers":[{"type":"Strip"}]},"pre_tokenizer":{"type":"Whitespace"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		tk, err := Parse("fuzz.json", data)
		if err != nil {
			return
		}
		_, err = tk.Tokenize(nil, "Café Zürich, 東京! Don’t ﬁne １２３.")
		require.NoError(t, err)
	})
}

// TestLongSentence: a sentence beyond MaxSentenceBytes is refused before
// the library sees it.
func TestLongSentence(t *testing.T) {
	tk := load(t, "bert-uncased.json")
	_, err := tk.Tokenize(nil, strings.Repeat("x", MaxSentenceBytes+1))
	assert.ErrorContains(t, err, "more than 1048576")
}

// TestConcurrent: one Tokenizer serves many goroutines with the same
// results (run with -race).
func TestConcurrent(t *testing.T) {
	tk := load(t, "bert-uncased.json")
	const s = "Café Zürich, 東京! Don’t."
	want, err := tk.Tokenize(nil, s)
	require.NoError(t, err)
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 50 {
				got, err := tk.Tokenize(nil, s)
				if err == nil && len(got) != len(want) {
					err = errors.New("different tokens")
				}
				if err != nil {
					errs[g] = err
					return
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		require.NoError(t, err)
	}
}
