package features

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Embeddings is a table of word vectors, all of the same dimension D,
// stored once per vocabulary word (one flat slice of len·D float64), read
// by the %v[row,col] template macro (see Valued). It is immutable and safe
// for concurrent use.
//
// # Scaling
//
// NewEmbeddings divides every value by the largest absolute value over the
// whole table, so that every coordinate lies in [-1, 1], as a binary
// feature's 1 does, and one pair of penalties (c1, c2) suits both kinds of
// feature. A single divisor keeps the geometry of the table (directions,
// relative norms, which carry a word's frequency); normalising each vector
// to unit L2 norm would discard the norms. Scaling a table whose largest
// absolute value is already 1 changes nothing, so a model file stores the
// scaled values and reloads them exactly.
//
// # Lookup
//
// A word is looked up as it is; if absent, lower-cased (Unicode simple
// folding, as %l), which finds the vector of the first word of the table
// with that lower-case form. A word found neither way is unknown and has
// the zero vector: it adds no feature (no learned unknown vector; a
// template line such as %l[0,0] already gives unknown words their own
// binary features).
type Embeddings struct {
	dim   int
	words []string
	vecs  []float64 // len(words)*dim, scaled
	index map[string]int32
	lower map[string]int32 // lower-cased word → first word with that form
	scale float64          // the divisor applied (1 when none)
}

// NewEmbeddings returns the table of the given words, whose vectors are
// vecs[i*dim:(i+1)*dim], scaled (see Embeddings). vecs is copied. Words
// must be distinct and non-empty, values finite.
func NewEmbeddings(words []string, vecs []float64, dim int) (*Embeddings, error) {
	if dim <= 0 {
		return nil, fmt.Errorf("features: embeddings of dimension %d, want at least 1", dim)
	}
	if len(vecs) != len(words)*dim {
		return nil, fmt.Errorf("features: %d values for %d words of dimension %d", len(vecs), len(words), dim)
	}
	m := &Embeddings{dim: dim, words: words, vecs: make([]float64, len(vecs)),
		index: make(map[string]int32, len(words)), lower: make(map[string]int32), scale: 1}
	maxAbs := 0.0
	for i, v := range vecs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("features: embeddings: word %q: value %v, want a finite number", words[i/dim], v)
		}
		maxAbs = max(maxAbs, math.Abs(v))
	}
	if maxAbs > 0 {
		m.scale = maxAbs
	}
	for i, v := range vecs {
		m.vecs[i] = v / m.scale
	}
	for i, w := range words {
		if w == "" {
			return nil, fmt.Errorf("features: embeddings: word %d is empty", i)
		}
		if _, dup := m.index[w]; dup {
			return nil, fmt.Errorf("features: embeddings: word %q twice", w)
		}
		m.index[w] = int32(i)
	}
	if allLower(words) {
		// Every word is its own lower-case form (GloVe's vectors, say):
		// the lower-case index is the index, not a second map.
		m.lower = m.index
		return m, nil
	}
	for i, w := range words {
		if _, ok := m.lower[strings.ToLower(w)]; !ok {
			m.lower[strings.ToLower(w)] = int32(i)
		}
	}
	return m, nil
}

// allLower reports whether every word equals its lower-case form.
func allLower(words []string) bool {
	for _, w := range words {
		if strings.ToLower(w) != w {
			return false
		}
	}
	return true
}

// Dim returns the dimension D of the vectors.
func (m *Embeddings) Dim() int { return m.dim }

// Len returns the number of words.
func (m *Embeddings) Len() int { return len(m.words) }

// Word returns word i, in the order given to NewEmbeddings.
func (m *Embeddings) Word(i int) string { return m.words[i] }

// Vector returns the scaled vector of word i. It aliases the table and
// must not be modified.
func (m *Embeddings) Vector(i int) []float64 { return m.vecs[i*m.dim : (i+1)*m.dim : (i+1)*m.dim] }

// Scale returns the divisor NewEmbeddings applied (the largest absolute
// value of the values it was given, 1 when all were zero).
func (m *Embeddings) Scale() float64 { return m.scale }

// Lookup returns the scaled vector of word (see Embeddings for the case
// folding), nil for an unknown word.
func (m *Embeddings) Lookup(word string) []float64 {
	var buf []byte
	return m.lookup(word, &buf)
}

// lookup is Lookup with a scratch buffer for the lower-cased word, so that
// a lookup allocates nothing once the buffer is large enough.
func (m *Embeddings) lookup(word string, buf *[]byte) []float64 {
	i := m.lookupIndex(word, buf)
	if i < 0 {
		return nil
	}
	return m.Vector(int(i))
}

// lookupIndex is lookup returning the word's row in the table, -1 for an
// unknown word.
func (m *Embeddings) lookupIndex(word string, buf *[]byte) int32 {
	if i, ok := m.index[word]; ok {
		return i
	}
	b := (*buf)[:0]
	for _, r := range word {
		b = utf8.AppendRune(b, unicode.ToLower(r))
	}
	*buf = b
	if i, ok := m.lower[string(b)]; ok {
		return i
	}
	return -1
}

// maxEmbeddingLine bounds one line of an embeddings file (a word and D
// numbers): 1 MiB is about 40,000 dimensions.
const maxEmbeddingLine = 1 << 20

// ReadEmbeddings reads word vectors in the word2vec or GloVe text format:
// one word per line followed by its D values, separated by blanks; an
// optional first line "N D" (word2vec's header) gives the number of words
// and the dimension, which are then checked. Input compressed with gzip is
// recognised by its magic bytes. A word seen again keeps its first vector
// (later lines for it are skipped). Words cannot contain blanks. name is
// used in error messages, which have the form "name:line: msg".
func ReadEmbeddings(r io.Reader, name string) (*Embeddings, error) {
	br := bufio.NewReader(r)
	if magic, _ := br.Peek(2); bytes.Equal(magic, []byte{0x1f, 0x8b}) {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		defer zr.Close()
		br = bufio.NewReader(zr)
	}
	sc := bufio.NewScanner(br)
	sc.Buffer(make([]byte, 64*1024), maxEmbeddingLine)
	er := embeddingsReader{name: name, seen: make(map[string]bool)}
	for sc.Scan() {
		er.line++
		if err := er.parse(sc.Text()); err != nil {
			return nil, err
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %w", name, er.line+1, err)
	}
	if len(er.words) == 0 {
		return nil, fmt.Errorf("%s: no word vectors", name)
	}
	if er.declared >= 0 && er.declared != er.lines {
		return nil, fmt.Errorf("%s: the header declares %d words, the file has %d", name, er.declared, er.lines)
	}
	return NewEmbeddings(er.words, er.vecs, er.dim)
}

// embeddingsReader is the state of ReadEmbeddings between lines.
type embeddingsReader struct {
	name     string
	line     int // 1-based number of the current line
	dim      int // 0 until known
	declared int // words declared by a header, -1 without one
	lines    int // vector lines read
	words    []string
	vecs     []float64
	seen     map[string]bool
	fields   []string
}

// parse reads one line.
func (er *embeddingsReader) parse(text string) error {
	er.fields = append(er.fields[:0], strings.Fields(text)...)
	f := er.fields
	if er.line == 1 {
		er.declared = -1
		if len(f) == 2 {
			n, err1 := strconv.Atoi(f[0])
			d, err2 := strconv.Atoi(f[1])
			if err1 == nil && err2 == nil && n >= 0 && d > 0 {
				er.declared, er.dim = n, d
				return nil
			}
		}
	}
	if len(f) == 0 {
		return fmt.Errorf("%s:%d: empty line: want a word and its vector", er.name, er.line)
	}
	if er.dim == 0 {
		er.dim = len(f) - 1
		if er.dim == 0 {
			return fmt.Errorf("%s:%d: word %q without a vector", er.name, er.line, f[0])
		}
	}
	if len(f) != er.dim+1 {
		return fmt.Errorf("%s:%d: %d values after %q, want %d (the dimension of the first vector or of the header)", er.name, er.line, len(f)-1, f[0], er.dim)
	}
	er.lines++
	if er.seen[f[0]] {
		return nil
	}
	er.seen[f[0]] = true
	er.words = append(er.words, strings.Clone(f[0])) // not a substring that keeps the line
	for _, s := range f[1:] {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%s:%d: word %q: value %q is not a finite number", er.name, er.line, f[0], s)
		}
		er.vecs = append(er.vecs, v)
	}
	return nil
}
