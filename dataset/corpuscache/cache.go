package corpuscache

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/features"
	"github.com/sparsetag/sparsetag/internal/atomicfile"
	"github.com/sparsetag/sparsetag/sparse"
)

const (
	magic   = "STCORPUS"
	version = 2
	header  = len(magic) + 4 + sha256.Size + 8
)

// ErrStale says a cache file was written for other data, template or
// options (or by another version): it is to be rebuilt, not read.
var ErrStale = errors.New("corpuscache: the cache is stale")

// Key identifies what shapes an encoded corpus.
type Key [sha256.Size]byte

// NewKey returns the key of the parts (each length-prefixed, so that no
// two lists of parts hash alike), e.g. the data file's bytes, the
// template, the format and the options that change the encoding.
func NewKey(parts ...[]byte) Key {
	h := sha256.New()
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], version)
	h.Write(n[:])
	for _, p := range parts {
		binary.LittleEndian.PutUint64(n[:], uint64(len(p)))
		h.Write(n[:])
		h.Write(p)
	}
	var k Key
	h.Sum(k[:0])
	return k
}

// TrainKey is the key under which tagger train --cache writes the corpus
// of the training file data: its --format, --folds, --label-column and
// --min-freq, and the template's bytes (nil: none). A pipeline that reads
// such a cache (examples/beam) forms the key the same way, so that a cache
// written for other data or options is stale there too.
func TrainKey(format, folds string, labelColumn, minFreq int, template, data []byte) Key {
	return NewKey([]byte("train"), []byte(format), []byte(folds), []byte(strconv.Itoa(labelColumn)),
		[]byte(strconv.Itoa(minFreq)), template, data)
}

// Entry is what a cache holds: the encoder's kind, template source and
// pixel options, its dictionaries (names in id order), the model's labels
// and the encoded corpus.
type Entry struct {
	Kind     features.Kind
	Template string
	Pixels   features.PixelOptions
	Unary    []string
	Pair     []string
	Labels   []string
	Corpus   *sparse.Corpus
	// Weights are the sequence weights the data gave (CRFsuite's @weight
	// lines), one per sequence, or nil when it gave none.
	Weights []float64
}

// Encoder returns the encoder of e, its dictionaries as they were.
func (e *Entry) Encoder() (*features.Encoder, error) {
	return features.NewEncoderFrom(e.Kind, e.Template, e.Pixels, e.Unary, e.Pair)
}

// NewEntry is the entry of the model layout m (its encoder's
// dictionaries, template and labels) and its encoded corpus c, with the
// data's sequence weights (nil: none): what tagger train --cache writes.
func NewEntry(m *chain.Model, c *sparse.Corpus, weights []float64) *Entry {
	enc := m.Encoder
	e := &Entry{Kind: enc.Kind(), Pixels: enc.PixelOptions(), Unary: enc.Unary().Names(), Pair: enc.Pair().Names(),
		Labels: m.Labels, Corpus: c, Weights: weights}
	if t := enc.Template(); t != nil {
		e.Template = t.Source()
	}
	return e
}

// Model returns the model layout of e (zero weights, its encoder with the
// dictionaries as they were) and its corpus, as encoding the text would
// have made them.
func (e *Entry) Model() (*chain.Model, *sparse.Corpus, error) {
	enc, err := e.Encoder()
	if err != nil {
		return nil, nil, err
	}
	m, err := chain.NewModel(e.Labels, enc.Unary().Len(), enc.Pair().Len(), enc.HasTransitions(), enc)
	return m, e.Corpus, err
}

// Write writes e under key to path atomically. A corpus with dense blocks
// (word vectors, features.Encoder.DenseVectors) is refused: the cache
// keeps the sparse rows only.
func Write(path string, key Key, e *Entry) error {
	if e.Corpus.HasDense() {
		return fmt.Errorf("corpuscache: %s: the corpus has dense blocks (word vectors), which the cache does not keep", path)
	}
	var p bytes.Buffer
	w := writer{&p}
	w.uint(uint64(e.Kind))
	w.str(e.Template)
	w.uint(uint64(e.Pixels))
	w.strs(e.Unary)
	w.strs(e.Pair)
	w.strs(e.Labels)
	c := e.Corpus
	w.ints(c.SeqPtr)
	w.matrix(&c.Unary)
	w.matrix(&c.Pair)
	w.ints(c.Labels)
	w.uint(uint64(c.NumUnary))
	w.uint(uint64(c.NumPair))
	w.floats(e.Weights)
	out := make([]byte, 0, header+p.Len()+sha256.Size)
	out = append(out, magic...)
	out = binary.LittleEndian.AppendUint32(out, version)
	out = append(out, key[:]...)
	out = binary.LittleEndian.AppendUint64(out, uint64(p.Len()))
	out = append(out, p.Bytes()...)
	sum := sha256.Sum256(p.Bytes())
	out = append(out, sum[:]...)
	return atomicfile.WriteFile(path, out)
}

// Read reads the entry of path written under key. It returns ErrStale
// (wrapped) for a file of another version or key, an error wrapping
// os.ErrNotExist when there is none, and an error naming the file for a
// corrupt one.
func Read(path string, key Key) (*Entry, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Decode(path, b, key)
}

// Decode is Read on the bytes b of a cache file (name names it in the
// errors): for a cache that came another way than a local path, such as a
// side input of a pipeline (examples/beam). It does not keep b.
func Decode(name string, b []byte, key Key) (*Entry, error) {
	path := name
	corrupt := func(what string) error {
		return fmt.Errorf("%s: corrupt corpus cache (%s); remove it to rebuild it", path, what)
	}
	if len(b) < header || string(b[:len(magic)]) != magic {
		return nil, corrupt("not a corpus cache, or truncated")
	}
	if v := binary.LittleEndian.Uint32(b[len(magic):]); v != version {
		return nil, fmt.Errorf("%s: %w (version %d, want %d)", path, ErrStale, v, version)
	}
	if !bytes.Equal(b[len(magic)+4:len(magic)+4+sha256.Size], key[:]) {
		return nil, fmt.Errorf("%s: %w (written for other data, template or options)", path, ErrStale)
	}
	n := binary.LittleEndian.Uint64(b[header-8:])
	if n != uint64(len(b)-header-sha256.Size) || len(b) < header+sha256.Size {
		return nil, corrupt("length")
	}
	p := b[header : header+int(n)]
	if sum := sha256.Sum256(p); !bytes.Equal(sum[:], b[header+int(n):]) {
		return nil, corrupt("checksum")
	}
	r := reader{b: p}
	e := &Entry{Corpus: &sparse.Corpus{}}
	e.Kind = features.Kind(r.uint())
	e.Template = r.str()
	e.Pixels = features.PixelOptions(r.uint())
	e.Unary, e.Pair, e.Labels = r.strs(), r.strs(), r.strs()
	c := e.Corpus
	c.SeqPtr = r.ints()
	r.matrix(&c.Unary)
	r.matrix(&c.Pair)
	c.Labels = r.ints()
	c.NumUnary, c.NumPair = int(r.uint()), int(r.uint())
	e.Weights = r.floats()
	if r.err != nil || len(r.b) != 0 {
		return nil, corrupt("payload")
	}
	if err := check(e); err != nil {
		return nil, corrupt(err.Error())
	}
	return e, nil
}

// check verifies the shape of a decoded entry: pointers non-decreasing
// and in range, ids within the dictionaries and labels.
func check(e *Entry) error {
	c := e.Corpus
	if c.NumUnary != len(e.Unary) || c.NumPair != len(e.Pair) {
		return errors.New("dictionary sizes")
	}
	pos, err := ptrs(c.SeqPtr)
	if err != nil {
		return err
	}
	if len(c.Labels) != pos {
		return errors.New("labels")
	}
	if e.Weights != nil && len(e.Weights) != c.Len() {
		return errors.New("sequence weights")
	}
	for _, w := range e.Weights {
		if !(w > 0) || math.IsInf(w, 1) {
			return errors.New("sequence weight")
		}
	}
	for _, l := range c.Labels {
		if l < 0 || int(l) >= len(e.Labels) {
			return errors.New("label id")
		}
	}
	for _, m := range []struct {
		m *sparse.Matrix
		n int
	}{{&c.Unary, c.NumUnary}, {&c.Pair, c.NumPair}} {
		if len(m.m.RowPtr) == 0 {
			continue
		}
		if m.m.Rows() != pos {
			return errors.New("rows")
		}
		nz, err := ptrs(m.m.RowPtr)
		if err != nil || nz != len(m.m.Col) || (m.m.Val != nil && len(m.m.Val) != nz) {
			return errors.New("row pointers")
		}
		for _, a := range m.m.Col {
			if a < 0 || int(a) >= m.n {
				return errors.New("attribute id")
			}
		}
	}
	return nil
}

// ptrs checks a pointer array (first 0, non-decreasing) and returns its
// last value.
func ptrs(p []int32) (int, error) {
	if len(p) == 0 || p[0] != 0 {
		return 0, errors.New("pointers")
	}
	for i := 1; i < len(p); i++ {
		if p[i] < p[i-1] {
			return 0, errors.New("pointers")
		}
	}
	return int(p[len(p)-1]), nil
}

type writer struct{ b *bytes.Buffer }

func (w writer) uint(v uint64) { w.b.Write(binary.AppendUvarint(nil, v)) }
func (w writer) str(s string)  { w.uint(uint64(len(s))); w.b.WriteString(s) }
func (w writer) strs(s []string) {
	w.uint(uint64(len(s)))
	for _, x := range s {
		w.str(x)
	}
}
func (w writer) ints(s []int32) {
	w.uint(uint64(len(s)))
	var buf [4]byte
	for _, v := range s {
		binary.LittleEndian.PutUint32(buf[:], uint32(v))
		w.b.Write(buf[:])
	}
}
func (w writer) floats(s []float64) {
	if s == nil {
		w.uint(0)
		return
	}
	w.uint(uint64(len(s)) + 1)
	var buf [8]byte
	for _, v := range s {
		binary.LittleEndian.PutUint64(buf[:], math.Float64bits(v))
		w.b.Write(buf[:])
	}
}
func (w writer) matrix(m *sparse.Matrix) {
	w.ints(m.RowPtr)
	w.ints(m.Col)
	w.floats(m.Val)
}

type reader struct {
	b   []byte
	err error
}

func (r *reader) fail() {
	if r.err == nil {
		r.err = io.ErrUnexpectedEOF
	}
	r.b = nil
}

func (r *reader) uint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[n:]
	return v
}

// count reads a length whose elements take size bytes each.
func (r *reader) count(size int) int {
	n := r.uint()
	if n > uint64(len(r.b)/size) {
		r.fail()
		return 0
	}
	return int(n)
}

func (r *reader) str() string {
	n := r.count(1)
	s := string(r.b[:n])
	r.b = r.b[n:]
	return s
}

func (r *reader) strs() []string {
	n := r.count(1)
	out := make([]string, n)
	for i := range out {
		out[i] = r.str()
	}
	return out
}

func (r *reader) ints() []int32 {
	n := r.count(4)
	out := make([]int32, n)
	for i := range out {
		out[i] = int32(binary.LittleEndian.Uint32(r.b[4*i:]))
	}
	r.b = r.b[4*n:]
	return out
}

func (r *reader) floats() []float64 {
	n := r.uint()
	if n == 0 {
		return nil
	}
	n--
	if n > uint64(len(r.b)/8) {
		r.fail()
		return nil
	}
	out := make([]float64, n)
	for i := range out {
		out[i] = math.Float64frombits(binary.LittleEndian.Uint64(r.b[8*i:]))
	}
	r.b = r.b[8*n:]
	return out
}

func (r *reader) matrix(m *sparse.Matrix) {
	m.RowPtr = r.ints()
	m.Col = r.ints()
	m.Val = r.floats()
}
