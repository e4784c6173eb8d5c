package corpora

import (
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// The expected numbers below are the verified counts of data/README.md.

func TestEmbeddedOCRCounts(t *testing.T) {
	words, err := EmbeddedOCR(OCROptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(words) != 6877 {
		t.Fatalf("got %d words, want 6,877", len(words))
	}
	wantWords := []int{626, 704, 684, 698, 693, 651, 739, 717, 690, 675}
	wantLetters := []int{4617, 5375, 5110, 5353, 5270, 5001, 5583, 5370, 5331, 5142}
	gotWords := make([]int, 10)
	gotLetters := make([]int, 10)
	letters, minLen, maxLen := 0, 100, 0
	distinct := map[string]bool{}
	for _, w := range words {
		if w.Fold < 0 || w.Fold > 9 {
			t.Fatalf("word on line %d has fold %d", w.Line, w.Fold)
		}
		gotWords[w.Fold]++
		gotLetters[w.Fold] += len(w.Labels)
		letters += len(w.Labels)
		minLen, maxLen = min(minLen, len(w.Labels)), max(maxLen, len(w.Labels))
		distinct[strings.Join(w.Labels, "")] = true
		for _, px := range w.Pixels {
			for _, p := range px {
				if p > 1 {
					t.Fatalf("pixel %d in word on line %d", p, w.Line)
				}
			}
		}
	}
	if letters != 52152 {
		t.Errorf("got %d letters, want 52,152", letters)
	}
	assert.Equal(t, wantWords, gotWords, "words per fold")
	assert.Equal(t, wantLetters, gotLetters, "letters per fold")
	if minLen != 3 || maxLen != 14 || len(distinct) != 55 {
		t.Errorf("lengths %d..%d, %d distinct words; want 3..14 and 55", minLen, maxLen, len(distinct))
	}
	if got := strings.Join(words[0].Labels, ""); got != "ommanding" || words[0].Line != 1 {
		t.Errorf("first word %q on line %d, want \"ommanding\" on line 1", got, words[0].Line)
	}
	small, err := EmbeddedOCR(OCROptions{Folds: []int{0}})
	if err != nil || len(small) != 626 {
		t.Errorf("fold 0: %d words, %v", len(small), err)
	}
}

func TestEmbeddedCoNLL2000Counts(t *testing.T) {
	for _, c := range []struct {
		split                          string
		sentences, tokens, chunks      int
		posTags, chunkTags, firstLines int
	}{
		{"train", 8936, 211727, 106978, 44, 22, 1},
		{"test", 2012, 47377, 23852, 43, 19, 1},
	} {
		seqs, err := EmbeddedCoNLL2000(c.split)
		if err != nil {
			t.Fatal(err)
		}
		tokens, chunks := 0, 0
		pos, tags := map[string]bool{}, map[string]bool{}
		for _, s := range seqs {
			tokens += len(s.Tokens)
			for i, row := range s.Tokens {
				if len(row) != 2 {
					t.Fatalf("%s line %d: %d token columns", c.split, s.Line+i, len(row))
				}
				pos[row[1]] = true
				tags[s.Labels[i]] = true
				if strings.HasPrefix(s.Labels[i], "B-") {
					chunks++
				}
			}
		}
		if len(seqs) != c.sentences || tokens != c.tokens || chunks != c.chunks || len(pos) != c.posTags || len(tags) != c.chunkTags {
			t.Errorf("%s: %d sentences %d tokens %d chunks %d POS %d chunk tags; want %d %d %d %d %d",
				c.split, len(seqs), tokens, chunks, len(pos), len(tags), c.sentences, c.tokens, c.chunks, c.posTags, c.chunkTags)
		}
		if seqs[0].Line != c.firstLines {
			t.Errorf("%s: first sentence on line %d", c.split, seqs[0].Line)
		}
		// Lines: one per token plus one blank line per sentence.
		last := seqs[len(seqs)-1]
		if got, want := last.Line+len(last.Tokens), tokens+len(seqs); got != want {
			t.Errorf("%s: last sentence ends on line %d, want %d", c.split, got-1, want-1)
		}
	}
	if _, err := EmbeddedCoNLL2000("dev"); err == nil {
		t.Error("split dev accepted")
	}
}

func TestOpenEmbedded(t *testing.T) {
	for _, name := range []string{"README.md", "ocr/letter.names", "conll2000/README.conll2000.txt", "conll2000/test.txt.gz"} {
		rc, err := OpenEmbedded(name)
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil || len(b) == 0 {
			t.Errorf("%s: %d bytes, %v", name, len(b), err)
		}
		if name == "conll2000/test.txt.gz" && len(b) != 639396 {
			t.Errorf("test.txt: %d bytes uncompressed, want 639,396", len(b))
		}
		if name == "ocr/letter.names" && strings.Count(string(b), "\n") != 134 {
			t.Errorf("letter.names: %d lines, want 134", strings.Count(string(b), "\n"))
		}
	}
	if _, err := OpenEmbedded("nope"); err == nil {
		t.Error("unknown name accepted")
	}
	// Six data files and the chunking template.
	if n := len(EmbeddedNames()); n != 7 {
		t.Errorf("EmbeddedNames: %d names %v", n, EmbeddedNames())
	}
}
