package corpora

import (
	"io"
	"slices"
	"strconv"
)

// OCR letter.data geometry: 16 rows x 8 columns of binary pixels per letter.
const (
	OCRRows   = 16
	OCRCols   = 8
	OCRPixels = OCRRows * OCRCols // 128
)

// ocrFields is the number of fields of a letter.data line: id, letter,
// next_id, word_id, position, fold and 128 pixels. Upstream lines also end with
// a TAB, which makes a 135th, empty field; both forms are accepted.
const ocrFields = 6 + OCRPixels

// Word is one handwritten word of the OCR data set (Taskar et al. 2003).
type Word struct {
	ID     int      // word_id column of its letters
	Fold   int      // cross-validation fold, 0..9 in the standard file
	Labels []string // one letter "a".."z" per position
	// Pixels[t] is the image of letter t: OCRPixels bytes, each 0 or 1,
	// 16 rows x 8 columns in row-major order (Pixels[t][r*8+c]).
	Pixels [][]byte
	Line   int // line of the word's first letter
}

// OCROptions configures [ReadOCR].
type OCROptions struct {
	// Folds keeps only the words of these folds; nil keeps all.
	Folds []int
	// MaxLineBytes is the longest accepted line; 0 means DefaultMaxLineBytes.
	MaxLineBytes int
}

// letterStrings interns the 26 labels.
var letterStrings = func() (s [26]string) {
	for i := range s {
		s[i] = string(rune('a' + i))
	}
	return s
}()

type ocrLetter struct {
	id, next, word, fold, line int
	letter                     byte
	nextCol                    int // column of the next_id field, for errors
}

// ReadOCR reads an OCR letter.data file (format in data/README.md): one letter
// per line, TAB-separated fields id, letter, next_id, word_id, position, fold
// and 128 pixels p_i_j (row i, column j, 0 or 1), optionally followed by an
// empty field. Letters are joined into words by following next_id (-1 ends a
// word) from each letter no other letter points to; words come out in the
// file order of their first letter, so a file need not list a word's letters
// together or in order. The position column is not checked.
//
// Errors are *ParseError values: ErrFieldCount for a wrong number of fields
// or pixels, ErrBadValue for a non-numeric number, a letter outside a-z or a
// pixel other than 0/1, ErrBrokenChain for a next_id naming no letter, two
// letters with one successor, a cycle, or a word whose letters disagree on
// word_id or fold, and ErrEmpty for an input with no letter. The lines are
// streamed; the letters are kept (128 bytes each) until the words are built.
func ReadOCR(name string, rd io.Reader, opts OCROptions) ([]Word, error) {
	lr := newLineReader(name, rd, opts.MaxLineBytes)
	fail := func(line, col int, err error) error {
		return &ParseError{File: name, Line: line, Column: col, Err: err}
	}
	var (
		letters []ocrLetter
		pixels  []byte
		spans   []span
		byID    = make(map[int]int)
	)
	for {
		line, ok := lr.next()
		if !ok {
			break
		}
		if isBlank(line) {
			continue
		}
		sp := splitExact(spans[:0], line, '\t')
		spans = sp
		if last := sp[len(sp)-1]; len(sp) > 1 && last.start == last.end {
			sp = sp[:len(sp)-1] // the trailing TAB of upstream lines
		}
		if len(sp) != ocrFields {
			col := len(line) + 1
			if len(sp) > ocrFields {
				col = sp[ocrFields].start + 1
			}
			if len(sp) > 6 {
				return nil, fail(lr.line, col, errorf(ErrFieldCount, "expected %d pixels after 6 fields, got %d", OCRPixels, len(sp)-6))
			}
			return nil, fail(lr.line, col, errorf(ErrFieldCount, "expected %d tab-separated fields, got %d", ocrFields, len(sp)))
		}
		field := func(i int) []byte { return line[sp[i].start:sp[i].end] }
		var nums [6]int
		for _, i := range []int{0, 2, 3, 4, 5} {
			v, err := strconv.Atoi(string(field(i)))
			if err != nil {
				return nil, fail(lr.line, sp[i].start+1, errorf(ErrBadValue, "expected an integer in field %d, got %q", i+1, field(i)))
			}
			nums[i] = v
		}
		l := ocrLetter{id: nums[0], next: nums[2], word: nums[3], fold: nums[5], line: lr.line, nextCol: sp[2].start + 1}
		if l.id <= 0 {
			return nil, fail(lr.line, 1, errorf(ErrBadValue, "expected a positive letter id, got %d", l.id))
		}
		if l.next != -1 && l.next <= 0 {
			return nil, fail(lr.line, l.nextCol, errorf(ErrBadValue, "expected next_id -1 or a positive id, got %d", l.next))
		}
		if l.fold < 0 {
			return nil, fail(lr.line, sp[5].start+1, errorf(ErrBadValue, "expected a fold >= 0, got %d", l.fold))
		}
		if f := field(1); len(f) != 1 || f[0] < 'a' || f[0] > 'z' {
			return nil, fail(lr.line, sp[1].start+1, errorf(ErrBadValue, "expected a letter a-z, got %q", f))
		}
		l.letter = field(1)[0]
		for i := 6; i < ocrFields; i++ {
			f := field(i)
			if len(f) != 1 || (f[0] != '0' && f[0] != '1') {
				return nil, fail(lr.line, sp[i].start+1, errorf(ErrBadValue, "expected pixel %d to be 0 or 1, got %q", i-6, f))
			}
			pixels = append(pixels, f[0]-'0')
		}
		if j, dup := byID[l.id]; dup {
			return nil, fail(lr.line, 1, errorf(ErrBadValue, "duplicate letter id %d (first on line %d)", l.id, letters[j].line))
		}
		byID[l.id] = len(letters)
		letters = append(letters, l)
	}
	if lr.err != nil {
		return nil, lr.err
	}
	if len(letters) == 0 {
		return nil, fail(max(lr.line, 1), 0, errorf(ErrEmpty, "no letters in input"))
	}
	return assembleWords(name, letters, pixels, byID, opts.Folds)
}

// assembleWords follows the next_id chains.
func assembleWords(name string, letters []ocrLetter, pixels []byte, byID map[int]int, folds []int) ([]Word, error) {
	fail := func(l ocrLetter, col int, err error) error {
		return &ParseError{File: name, Line: l.line, Column: col, Err: err}
	}
	succ := make([]int, len(letters))
	pred := make([]int, len(letters)) // index+1 of the predecessor, 0 if none
	for i, l := range letters {
		succ[i] = -1
		if l.next == -1 {
			continue
		}
		j, ok := byID[l.next]
		if !ok {
			return nil, fail(l, l.nextCol, errorf(ErrBrokenChain, "next_id %d names no letter", l.next))
		}
		if pred[j] != 0 {
			return nil, fail(l, l.nextCol, errorf(ErrBrokenChain, "letter %d already follows the letter on line %d", l.next, letters[pred[j]-1].line))
		}
		pred[j] = i + 1
		succ[i] = j
	}
	visited := make([]bool, len(letters))
	var words []Word
	for i, l := range letters {
		if pred[i] != 0 {
			continue
		}
		n := 0
		for j := i; j >= 0; j = succ[j] {
			lj := letters[j]
			if lj.word != l.word || lj.fold != l.fold {
				return nil, fail(lj, 0, errorf(ErrBrokenChain, "letter %d has word_id %d fold %d, but its word (line %d) has word_id %d fold %d", lj.id, lj.word, lj.fold, l.line, l.word, l.fold))
			}
			visited[j] = true
			n++
		}
		if folds != nil && !slices.Contains(folds, l.fold) {
			continue
		}
		w := Word{ID: l.word, Fold: l.fold, Line: l.line, Labels: make([]string, 0, n), Pixels: make([][]byte, 0, n)}
		for j := i; j >= 0; j = succ[j] {
			w.Labels = append(w.Labels, letterStrings[letters[j].letter-'a'])
			w.Pixels = append(w.Pixels, pixels[j*OCRPixels:(j+1)*OCRPixels:(j+1)*OCRPixels])
		}
		words = append(words, w)
	}
	for j, ok := range visited {
		if !ok {
			return nil, fail(letters[j], letters[j].nextCol, errorf(ErrBrokenChain, "letter %d is on a next_id cycle", letters[j].id))
		}
	}
	return words, nil
}
