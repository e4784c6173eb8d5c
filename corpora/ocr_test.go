package corpora

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// ocrLine formats one letter.data line; pix is a function of the pixel index.
func ocrLine(id int, letter string, next, word, pos, fold int, pix func(i int) string) string {
	return ocrLineN(id, letter, next, word, pos, fold, pix, OCRPixels)
}

// ocrLineN is ocrLine with npix pixels.
func ocrLineN(id int, letter string, next, word, pos, fold int, pix func(i int) string, npix int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d\t%s\t%d\t%d\t%d\t%d", id, letter, next, word, pos, fold)
	for i := range npix {
		b.WriteString("\t" + pix(i))
	}
	b.WriteString("\t\n")
	return b.String()
}

func diag(i int) string { // pixel (r, c) is on when r%8 == c
	if (i/OCRCols)%OCRCols == i%OCRCols {
		return "1"
	}
	return "0"
}

func TestOCRAssembly(t *testing.T) {
	// Word 7 "abc" written out of order, word 8 "zy" in fold 3 whose first
	// letter comes last, and a one-letter word; no trailing tab on line 2.
	lines := []string{
		ocrLine(3, "c", -1, 7, 3, 0, diag),
		strings.TrimSuffix(ocrLine(1, "a", 2, 7, 1, 0, diag), "\t\n") + "\n",
		ocrLine(5, "y", -1, 8, 2, 3, diag),
		ocrLine(2, "b", 3, 7, 2, 0, diag),
		ocrLine(4, "z", 5, 8, 1, 3, diag),
		ocrLine(6, "q", -1, 9, 1, 0, func(int) string { return "1" }),
	}
	in := strings.Join(lines, "")
	words, err := ReadOCR("l.data", strings.NewReader(in), OCROptions{})
	if err != nil {
		t.Fatal(err)
	}
	// File order of first letters: a (line 2), z (line 5), q (line 6).
	if len(words) != 3 {
		t.Fatalf("got %d words", len(words))
	}
	want := []struct {
		id, fold, line int
		s              string
	}{{7, 0, 2, "abc"}, {8, 3, 5, "zy"}, {9, 0, 6, "q"}}
	for i, w := range want {
		got := words[i]
		if got.ID != w.id || got.Fold != w.fold || got.Line != w.line || strings.Join(got.Labels, "") != w.s || len(got.Pixels) != len(w.s) {
			t.Errorf("word %d = {ID %d Fold %d Line %d %q}, want %+v", i, got.ID, got.Fold, got.Line, got.Labels, w)
		}
		for p, px := range got.Pixels {
			if len(px) != OCRPixels {
				t.Fatalf("word %d letter %d: %d pixels", i, p, len(px))
			}
		}
	}
	px := words[0].Pixels[0]
	for r := range OCRRows {
		for c := range OCRCols {
			want := byte(0)
			if r%8 == c {
				want = 1
			}
			if px[r*OCRCols+c] != want {
				t.Fatalf("pixel (%d,%d) = %d, want %d", r, c, px[r*OCRCols+c], want)
			}
		}
	}
	f3, err := ReadOCR("l.data", strings.NewReader(in), OCROptions{Folds: []int{3}})
	if err != nil || len(f3) != 1 || f3[0].ID != 8 {
		t.Errorf("fold 3: %+v %v", f3, err)
	}
	gzWords, err := ReadOCR("l.data.gz", strings.NewReader(string(gz(t, []byte(strings.ReplaceAll(in, "\n", "\r\n"))))), OCROptions{})
	if err != nil || len(gzWords) != 3 {
		t.Errorf("gzip+CRLF: %d words, %v", len(gzWords), err)
	}
}

func TestOCRErrors(t *testing.T) {
	good := ocrLine(1, "a", -1, 1, 1, 0, diag)
	short := ocrLineN(2, "b", -1, 2, 1, 0, diag, OCRPixels-1)
	long := ocrLineN(2, "b", -1, 2, 1, 0, diag, OCRPixels+1)
	cases := []struct {
		name, in  string
		sentinel  error
		line, col int
		msg       string
	}{
		{"127 pixels", good + short, ErrFieldCount, 2, 0, "expected 128 pixels after 6 fields, got 127"},
		{"129 pixels", good + long, ErrFieldCount, 2, 0, "got 129"},
		{"few fields", "1\ta\t-1\n", ErrFieldCount, 1, 7, "expected 134 tab-separated fields, got 3"},
		{"pixel 2", good + ocrLine(2, "b", -1, 2, 1, 0, func(i int) string {
			if i == 5 {
				return "2"
			}
			return "0"
		}), ErrBadValue, 2, 24, "expected pixel 5 to be 0 or 1"},
		{"non-numeric id", strings.Replace(good, "1", "x", 1), ErrBadValue, 1, 1, ""},
		{"upper-case letter", ocrLine(1, "A", -1, 1, 1, 0, diag), ErrBadValue, 1, 3, ""},
		{"dangling next_id", good + ocrLine(2, "b", 9, 2, 1, 0, diag), ErrBrokenChain, 2, 5, "next_id 9 names no letter"},
		{"two predecessors", ocrLine(1, "a", 3, 1, 1, 0, diag) + ocrLine(2, "b", 3, 1, 1, 0, diag) + ocrLine(3, "c", -1, 1, 2, 0, diag), ErrBrokenChain, 2, 5, ""},
		{"cycle", good + ocrLine(2, "a", 3, 2, 1, 0, diag) + ocrLine(3, "b", 2, 2, 2, 0, diag), ErrBrokenChain, 2, 5, "cycle"},
		{"fold mismatch", ocrLine(1, "a", 2, 1, 1, 0, diag) + ocrLine(2, "b", -1, 1, 2, 4, diag), ErrBrokenChain, 2, 0, ""},
		{"duplicate id", good + good, ErrBadValue, 2, 1, "duplicate"},
		{"bad next_id", ocrLine(1, "a", -2, 1, 1, 0, diag), ErrBadValue, 1, 5, ""},
		{"empty", "", ErrEmpty, 1, 0, ""},
		{"10 MB line", good + strings.Repeat("1\t", 5<<20), ErrLineTooLong, 2, 0, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ReadOCR("l.data", strings.NewReader(c.in), OCROptions{})
			wantParseError(t, err, c.sentinel, "l.data", c.line, c.col)
			if c.msg != "" {
				assert.ErrorContains(t, err, c.msg)
			}
		})
	}
	if _, err := ReadOCR("l.data", strings.NewReader("\xff"), OCROptions{}); !errors.Is(err, ErrFieldCount) {
		t.Errorf("binary garbage: %v", err)
	}
}
