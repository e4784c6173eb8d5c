package chain

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"testing/iotest"

	"github.com/sparsetag/sparsetag/features"
	"github.com/sparsetag/sparsetag/sparse"
)

// loadBoth loads the model file data the full way (ReadModel, NewTagger)
// and tag-only (ReadTagger).
func loadBoth(t testing.TB, data []byte) (full, lite *Tagger) {
	t.Helper()
	m, err := ReadModel(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	lite, err = ReadTagger(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	return NewTagger(m), lite
}

// tagOnlyOf writes m to a model file and loads it tag-only.
func tagOnlyOf(t testing.TB, m *Model) *Tagger {
	t.Helper()
	data, err := m.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	lite, err := ReadTagger(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	return lite
}

// sameTaggerInfo fails unless the taggers describe the same model: labels,
// layout, number of non-zeros, encoder and weights; lite has no Model.
func sameTaggerInfo(t testing.TB, full, lite *Tagger) {
	t.Helper()
	if lite.Model() != nil {
		t.Fatal("a tag-only Tagger returns a Model")
	}
	if !slices.Equal(full.Labels(), lite.Labels()) || full.Layout() != lite.Layout() || full.NonZero() != lite.NonZero() {
		t.Fatalf("tag-only: labels %v layout %+v non-zeros %d, want %v %+v %d",
			lite.Labels(), lite.Layout(), lite.NonZero(), full.Labels(), full.Layout(), full.NonZero())
	}
	if (full.Encoder() == nil) != (lite.Encoder() == nil) {
		t.Fatal("encoder presence differs")
	}
	if full.Encoder() != nil {
		sameEncoderKind(t, full.Encoder(), lite.Encoder())
		if !slices.Equal(full.Encoder().Unary().Names(), lite.Encoder().Unary().Names()) ||
			!slices.Equal(full.Encoder().Pair().Names(), lite.Encoder().Pair().Names()) {
			t.Fatal("attribute names differ")
		}
	}
	lay := full.Layout()
	L := lay.L
	a, b := make([]float64, L*L), make([]float64, L*L)
	for u := range lay.NumUnary {
		if !sameBits(full.StateWeights(a[:L], u), lite.StateWeights(b[:L], u)) {
			t.Fatalf("state weights of attribute %d differ", u)
		}
	}
	for p := range lay.NumPair {
		if !sameBits(full.PairWeights(a, p), lite.PairWeights(b, p)) {
			t.Fatalf("pair weights of attribute %d differ", p)
		}
	}
	for k := range L * L {
		if math.Float64bits(full.TransWeight(k/L, k%L)) != math.Float64bits(lite.TransWeight(k/L, k%L)) {
			t.Fatalf("transition %d differs", k)
		}
	}
}

// decodeCases returns the decodings compared on a sequence of T positions
// over L labels: Viterbi, posterior, n-best, constrained, forced, and all
// of them at once.
func decodeCases(rng *rand.Rand, T, L int) []DecodeOptions {
	fixed := make([]int, T)
	for p := range fixed {
		fixed[p] = -1
		if rng.IntN(3) == 0 {
			fixed[p] = rng.IntN(L)
		}
	}
	cs := randomConstraints(rng, L, 0.3)
	return []DecodeOptions{
		{},
		{Posterior: true},
		{N: 4},
		{Constraints: cs, Posterior: true},
		{Fixed: fixed},
		{N: 3, Posterior: true, Constraints: cs, Fixed: fixed},
	}
}

// sameOn fails unless full and lite tag, decode and explain in exactly
// alike: the same paths, scores, probabilities, log Z, marginals (bit for
// bit), explanations and errors.
func sameOn(t testing.TB, name string, rng *rand.Rand, full, lite *Tagger, in Input) {
	t.Helper()
	want, errW := full.Tag(nil, in)
	got, errG := lite.Tag(nil, in)
	sameErr(t, name+": Tag", errW, errG)
	if !slices.Equal(want, got) {
		t.Fatalf("%s: Tag %v, want %v", name, got, want)
	}
	if errW != nil {
		return
	}
	for k, opt := range decodeCases(rng, in.Len(), full.NumLabels()) {
		var dw, dg Decoding
		errW, errG := full.Decode(&dw, in, opt), lite.Decode(&dg, in, opt)
		sameErr(t, fmt.Sprintf("%s: decode %d", name, k), errW, errG)
		sameDecoding(t, fmt.Sprintf("%s: decode %d", name, k), &dw, &dg)
	}
	paths := [][]int{want, randomPath(rng, in.Len(), full.NumLabels()), make([]int, in.Len()+1)}
	for k, path := range paths {
		ew, errW := full.Explain(in, path)
		eg, errG := lite.Explain(in, path)
		sameErr(t, fmt.Sprintf("%s: explain %d", name, k), errW, errG)
		sameExplanation(t, fmt.Sprintf("%s: explain %d", name, k), ew, eg)
	}
}

func randomPath(rng *rand.Rand, T, L int) []int {
	y := make([]int, T)
	for p := range y {
		y[p] = rng.IntN(L)
	}
	return y
}

func sameErr(t testing.TB, name string, want, got error) {
	t.Helper()
	if (want == nil) != (got == nil) || (want != nil && want.Error() != got.Error()) {
		t.Fatalf("%s: error %v, want %v", name, got, want)
	}
}

func sameDecoding(t testing.TB, name string, want, got *Decoding) {
	t.Helper()
	if len(want.Paths) != len(got.Paths) {
		t.Fatalf("%s: %d paths, want %d", name, len(got.Paths), len(want.Paths))
	}
	for k := range want.Paths {
		if !slices.Equal(want.Paths[k], got.Paths[k]) {
			t.Fatalf("%s: path %d is %v, want %v", name, k, got.Paths[k], want.Paths[k])
		}
	}
	if !sameBits(want.Scores, got.Scores) || !sameBits(want.Probs, got.Probs) ||
		!sameBits([]float64{want.LogZ}, []float64{got.LogZ}) || !sameBits(want.Marginal, got.Marginal) {
		t.Fatalf("%s: scores, probabilities, log Z or marginals differ:\n%+v\nwant\n%+v", name, got, want)
	}
}

func sameExplanation(t testing.TB, name string, want, got []TokenExplanation) {
	t.Helper()
	if len(want) != len(got) {
		t.Fatalf("%s: %d positions, want %d", name, len(got), len(want))
	}
	for p := range want {
		w, g := &want[p], &got[p]
		if w.Label != g.Label || w.Prev != g.Prev || w.RunnerUp != g.RunnerUp || !sameBits(w.State, g.State) ||
			!sameBits([]float64{w.Trans}, []float64{g.Trans}) || !sameContributions(w.Attrs, g.Attrs) || !sameContributions(w.Pairs, g.Pairs) {
			t.Fatalf("%s: position %d explained as\n%+v\nwant\n%+v", name, p, *g, *w)
		}
	}
}

func sameContributions(a, b []Contribution) bool {
	return slices.EqualFunc(a, b, func(x, y Contribution) bool {
		return x.Attr == y.Attr && x.Name == y.Name && math.Float64bits(x.Value) == math.Float64bits(y.Value)
	})
}

// rawInput turns an input of compactCases into a Tagger Input.
func rawInput(in any) Input {
	switch x := in.(type) {
	case [][]string:
		return features.Columns(x)
	case attrInput:
		return features.Attributes{Names: x.names, Values: x.values}
	case [][]byte:
		return features.Pixels(x)
	}
	panic(fmt.Sprintf("rawInput: %T", in))
}

// sparsify zeroes all weights of some attributes and most of the others'.
func sparsify(rng *rand.Rand, m *Model, keep float64) {
	L, LL := m.Layout.L, m.Layout.L*m.Layout.L
	for a := range m.Layout.NumUnary {
		for y := range L {
			if a%3 == 0 || rng.Float64() > keep {
				m.State[a*L+y] = 0
			}
		}
	}
	for a := range m.Layout.NumPair {
		for k := range LL {
			if a%2 == 1 || rng.Float64() > keep {
				m.PairW[a*LL+k] = 0
			}
		}
	}
}

// withPairValues gives the pair attributes of c random real values.
func withPairValues(rng *rand.Rand, c *sparse.Corpus) *sparse.Corpus {
	c.Pair.Val = make([]float64, len(c.Pair.Col))
	for k := range c.Pair.Val {
		c.Pair.Val[k] = 3 * rng.NormFloat64()
	}
	return c
}

// TestTagOnlyMatchesFull: models without encoder (dense and sparse
// weights, with and without transitions, pair attributes with binary and
// real values), saved as version 2 and version 1 files, tag, decode and
// explain encoded sequences alike loaded both ways.
func TestTagOnlyMatchesFull(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 4))
	for trial := range 16 {
		L := 1 + rng.IntN(6)
		U, P := 1+rng.IntN(30), rng.IntN(4)
		m := randomModel(rng, L, U, P, trial%4 != 3)
		if trial%2 == 0 {
			sparsify(rng, m, 0.3)
		}
		c := randomCorpus(rng, 12, 7, U, P, L, trial%3 == 0)
		if P > 0 && trial%4 == 1 {
			c = withPairValues(rng, c)
		}
		for _, version := range []uint32{1, 2} {
			data, err := m.encodeFile(version)
			if err != nil {
				t.Fatal(err)
			}
			full, lite := loadBoth(t, data)
			sameTaggerInfo(t, full, lite)
			for i := range c.Len() {
				sameOn(t, fmt.Sprintf("trial %d, v%d, sequence %d", trial, version, i), rng, full, lite, Encoded{Corpus: c, Seq: i})
			}
		}
	}
}

// TestTagOnlyMatchesFullRaw: models with encoders (templates with pair
// attributes, name:value attributes, pixels) whose attributes are partly
// dead, saved as version 1 files (dead attributes kept) and as the compact
// version 2 files, on raw input with unknown attributes, and the fixed,
// toy and golden models.
func TestTagOnlyMatchesFullRaw(t *testing.T) {
	for _, cc := range compactCases {
		t.Run(cc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(24, uint64(len(cc.name))))
			for trial := range 6 {
				m := sparseRandomModel(t, rng, cc, 1+rng.IntN(5))
				v1, err := m.encodeFile(1)
				if err != nil {
					t.Fatal(err)
				}
				v2, err := m.MarshalBinary()
				if err != nil {
					t.Fatal(err)
				}
				for _, data := range [][]byte{v1, v2} {
					full, lite := loadBoth(t, data)
					sameTaggerInfo(t, full, lite)
					for k := range 15 {
						sameOn(t, fmt.Sprintf("trial %d input %d", trial, k), rng, full, lite, rawInput(cc.input(rng, false)))
					}
				}
			}
		})
	}
	t.Run("fixed", func(t *testing.T) {
		rng := rand.New(rand.NewPCG(1, 2))
		for _, m := range []*Model{fixedModel(t), fixedEncoderModel(t), toyModel(t)} {
			data, err := m.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			full, lite := loadBoth(t, data)
			sameTaggerInfo(t, full, lite)
			if m.Encoder == nil {
				c := randomCorpus(rng, 10, 6, m.Layout.NumUnary, m.Layout.NumPair, m.Layout.L, false)
				for i := range c.Len() {
					sameOn(t, fmt.Sprint("sequence ", i), rng, full, lite, Encoded{Corpus: c, Seq: i})
				}
				continue
			}
			for _, in := range []features.Columns{
				{{"the", "DT"}, {"cat", "NN"}, {"sleeps", "VBZ"}},
				{{"a", "DT"}, {"dog", "NNS"}, {"unseen", "XX"}, {"the", "DT"}},
				{{"zzz", "QQ"}},
			} {
				sameOn(t, fmt.Sprint(in), rng, full, lite, in)
			}
		}
	})
	t.Run("golden", func(t *testing.T) {
		rng := rand.New(rand.NewPCG(3, 4))
		files, _ := filepath.Glob(filepath.Join("testdata", "*.model"))
		if len(files) == 0 {
			t.Fatal("no model in testdata")
		}
		for _, f := range files {
			full, err := LoadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			lite, err := LoadTagger(f)
			if err != nil {
				t.Fatal(err)
			}
			tg := NewTagger(full)
			sameTaggerInfo(t, tg, lite)
			c := randomCorpus(rng, 10, 6, full.Layout.NumUnary, full.Layout.NumPair, full.Layout.L, true)
			for i := range c.Len() {
				sameOn(t, fmt.Sprint(f, " sequence ", i), rng, tg, lite, Encoded{Corpus: c, Seq: i})
			}
		}
	})
}

// TestTagOnlyInputErrors: inputs the Tagger refuses are refused alike.
func TestTagOnlyInputErrors(t *testing.T) {
	data, err := fixedModel(t).MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	full, lite := loadBoth(t, data)
	for _, in := range []Input{features.Columns{{"a"}}, Encoded{}, Encoded{Corpus: &sparse.Corpus{}, Seq: 1}} {
		_, errW := full.Tag(nil, in)
		_, errG := lite.Tag(nil, in)
		sameErr(t, fmt.Sprintf("%T", in), errW, errG)
		if errG == nil {
			t.Fatalf("%T accepted", in)
		}
		_, errW = full.Explain(in, nil)
		_, errG = lite.Explain(in, nil)
		sameErr(t, fmt.Sprintf("explain %T", in), errW, errG)
	}
	if !errors.Is(func() error { _, err := lite.Tag(nil, features.Columns{{"a"}}); return err }(), ErrNoEncoder) {
		t.Fatal("raw input to a model without encoder: want ErrNoEncoder")
	}
	// Attribute ids beyond the model's are refused by Explain with the
	// full load's error.
	c := randomCorpus(rand.New(rand.NewPCG(5, 6)), 3, 4, 5, 2, 3, false)
	for i := range c.Len() {
		_, T := c.Span(i)
		_, errW := full.Explain(Encoded{Corpus: c, Seq: i}, make([]int, T))
		_, errG := lite.Explain(Encoded{Corpus: c, Seq: i}, make([]int, T))
		sameErr(t, "explain out of range", errW, errG)
	}
}

// largeModel returns a sparse model without encoder whose weight section
// spans several chunks of a tag-only read, with pair weights.
func largeModel(rng *rand.Rand) *Model {
	m := randomModel(rng, 7, 20000, 40, true)
	sparsify(rng, m, 0.2)
	return m
}

// TestReadTaggerErrors: every truncated or corrupted file is refused by
// ReadTagger with exactly ReadModel's error, and so is a wrong magic, an
// unknown version or trailing data; the files ReadModel loads ReadTagger
// loads too. The files are read from memory (size known), through a reader
// that hides the size, and one byte at a time.
func TestReadTaggerErrors(t *testing.T) {
	files := map[string][]byte{}
	for _, name := range []string{"fixed-v1", "fixed-v2", "fixed-encoder-v1", "fixed-encoder-v2"} {
		data, err := os.ReadFile(filepath.Join("testdata", name+".model"))
		if err != nil {
			t.Fatal(err)
		}
		files[name] = data
	}
	nc, err := fixedEncoderModel(t).encodeFile(2)
	if err != nil {
		t.Fatal(err)
	}
	files["noncompact-v2"] = nc
	for name, data := range files {
		t.Run(name, func(t *testing.T) {
			for n := 0; n <= len(data); n++ {
				sameLoadError(t, fmt.Sprintf("prefix %d", n), data[:n])
			}
			for i := range data {
				bad := append([]byte(nil), data...)
				bad[i] ^= 0x5a
				sameLoadError(t, fmt.Sprintf("byte %d", i), bad)
			}
			for _, v := range []uint32{0, fileVersion + 1} {
				bad := append([]byte(nil), data...)
				bad[8], bad[9], bad[10], bad[11] = byte(v), 0, 0, 0
				sameLoadError(t, fmt.Sprintf("version %d", v), bad)
			}
			sameLoadError(t, "trailing byte", append(append([]byte(nil), data...), 0))
		})
	}
	t.Run("large", func(t *testing.T) {
		rng := rand.New(rand.NewPCG(9, 9))
		data, err := largeModel(rng).MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		if len(data) < 3*weightChunk {
			t.Fatalf("model file of %d bytes: the weights fit in one chunk", len(data))
		}
		cuts := []int{len(data), len(data) - 1, len(data) - 12, len(data) - 13, len(data) - 16, len(data) - 17}
		payload := bytes.Index(data, []byte("WGHT")) + 8
		for k := range 3 { // around the chunk boundaries of the weights
			for _, d := range []int{-13, -1, 0, 1, 3, 4, 5, 11, 12} {
				cuts = append(cuts, payload+4+k*weightChunk+d)
			}
		}
		for range 40 {
			cuts = append(cuts, rng.IntN(len(data)))
		}
		for _, n := range cuts {
			sameLoadError(t, fmt.Sprintf("prefix %d", n), data[:n])
		}
		for range 150 {
			i := len(data) - 1 - rng.IntN(len(data)/2)
			bad := append([]byte(nil), data...)
			bad[i] ^= byte(1 + rng.IntN(255))
			sameLoadError(t, fmt.Sprintf("byte %d", i), bad)
		}
	})
}

// sameLoadError fails unless ReadTagger gives ReadModel's error on data,
// whether the reader tells its size or not, and reads it byte by byte.
func sameLoadError(t *testing.T, name string, data []byte) {
	t.Helper()
	_, want := ReadModel(bytes.NewReader(data))
	readers := []io.Reader{
		bytes.NewReader(data),
		struct{ io.Reader }{bytes.NewReader(data)}, // size unknown
		iotest.OneByteReader(bytes.NewReader(data)),
	}
	for k, r := range readers {
		tg, got := ReadTagger(r)
		sameErr(t, fmt.Sprintf("%s, reader %d", name, k), want, got)
		if got == nil && tg == nil {
			t.Fatalf("%s: no Tagger and no error", name)
		}
	}
}

// TestLoadTaggerErrors: errors name the file, as LoadFile's do.
func TestLoadTaggerErrors(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile(filepath.Join("testdata", "fixed-encoder-v2.model"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "cut.model")
	if err := os.WriteFile(path, data[:len(data)-7], 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path, filepath.Join(dir, "missing.model")} {
		_, want := LoadFile(p)
		_, got := LoadTagger(p)
		sameErr(t, p, want, got)
		if got == nil {
			t.Fatalf("%s loaded", p)
		}
	}
	var fe *FormatError
	if _, err := LoadTagger(path); !errors.As(err, &fe) || !bytes.Contains([]byte(err.Error()), []byte(path)) {
		t.Fatalf("truncated file: %v, want a FormatError naming %s", err, path)
	}
}

// TestTagOnlyMemory checks the memory bound of ReadTagger's documentation
// on a large sparse model, and that the tag-only load allocates less than
// the dense weight vector alone.
func TestTagOnlyMemory(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	m := largeModel(rng)
	data, err := m.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	lite, err := ReadTagger(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	w := lite.lite.w
	N, lay := m.NonZero(), m.Layout
	bound := int64(12*N + 4*(lay.NumUnary+lay.NumPair+2) + 8*lay.L*lay.L)
	if got := w.bytes(); got > bound {
		t.Fatalf("tag-only weights hold %d bytes, more than the bound %d (N=%d, U=%d, P=%d, L=%d)", got, bound, N, lay.NumUnary, lay.NumPair, lay.L)
	}
	dense := int64(8 * len(m.W))
	allocs := testing.Benchmark(func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := ReadTagger(bytes.NewReader(data)); err != nil {
				b.Fatal(err)
			}
		}
	})
	if got := allocs.AllocedBytesPerOp(); got >= dense {
		t.Fatalf("tag-only load allocates %d bytes, not less than the %d bytes of the dense weights", got, dense)
	}
	t.Logf("N=%d: weights %d bytes (bound %d), load allocates %d bytes; dense W alone %d bytes", N, w.bytes(), bound, allocs.AllocedBytesPerOp(), dense)
}

// TestTagOnlyConcurrent tags from several goroutines with one tag-only
// Tagger (run with -race) and compares with the full load.
func TestTagOnlyConcurrent(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	m := largeModel(rng)
	data, err := m.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	full, lite := loadBoth(t, data)
	c := randomCorpus(rng, 40, 10, m.Layout.NumUnary, m.Layout.NumPair, m.Layout.L, false)
	want := make([][]int, c.Len())
	for i := range want {
		want[i], _ = full.Tag(nil, Encoded{Corpus: c, Seq: i})
	}
	errs := make(chan error, 4)
	for g := range 4 {
		go func() {
			var path []int
			for k := range 3 * c.Len() {
				i := (k + g) % c.Len()
				path, _ = lite.Tag(path, Encoded{Corpus: c, Seq: i})
				if !slices.Equal(path, want[i]) {
					errs <- fmt.Errorf("goroutine %d, sequence %d: %v, want %v", g, i, path, want[i])
					return
				}
			}
			errs <- nil
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}

// FuzzReadTagger: on any input ReadTagger and ReadModel agree: the same
// error, or Taggers that describe the same model and tag, decode and
// explain alike. Seeded with FuzzReadModel's seeds and corpus (copied into
// testdata/fuzz/FuzzReadTagger).
func FuzzReadTagger(f *testing.F) {
	addModelSeeds(f)
	f.Fuzz(func(t *testing.T, in []byte) {
		m, errM := ReadModel(bytes.NewReader(in))
		lite, errT := ReadTagger(bytes.NewReader(in))
		sameErr(t, "load", errM, errT)
		if errM != nil || m.Layout.Dim() > 1<<16 {
			return
		}
		full := NewTagger(m)
		sameTaggerInfo(t, full, lite)
		rng := rand.New(rand.NewPCG(uint64(len(in)), 1))
		c := randomCorpus(rng, 3, 5, m.Layout.NumUnary, m.Layout.NumPair, m.Layout.L, true)
		for i := range c.Len() {
			sameOn(t, fmt.Sprint("sequence ", i), rng, full, lite, Encoded{Corpus: c, Seq: i})
		}
	})
}

// BenchmarkLoadTagger compares the full load (ReadModel, then NewTagger)
// with the tag-only load (ReadTagger) of the model of BenchmarkReadModel
// (100,000 attributes of which 4% have a non-zero weight, 22 labels) saved
// compact, and, when TAGGER_BENCH_MODEL names a model file, of that file
// (LoadFile and LoadTagger): time and bytes allocated per load.
func BenchmarkLoadTagger(b *testing.B) {
	data := benchModelFile(b)
	b.Run("full", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			m, err := ReadModel(bytes.NewReader(data))
			if err != nil {
				b.Fatal(err)
			}
			NewTagger(m)
		}
	})
	b.Run("tag-only", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			if _, err := ReadTagger(bytes.NewReader(data)); err != nil {
				b.Fatal(err)
			}
		}
	})
	path := os.Getenv("TAGGER_BENCH_MODEL")
	if path == "" {
		return
	}
	b.Run("file-full", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			m, err := LoadFile(path)
			if err != nil {
				b.Fatal(err)
			}
			NewTagger(m)
		}
	})
	b.Run("file-tag-only", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := LoadTagger(path); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// benchModelFile returns the compact file of BenchmarkReadModel's model.
func benchModelFile(b *testing.B) []byte {
	data, err := benchModel(b).MarshalBinary()
	if err != nil {
		b.Fatal(err)
	}
	return data
}

// TestTagOnlyAllocations: a tag-only Tagger, like a full one, tags token
// columns without allocating when the result is reused, pair features
// included.
func TestTagOnlyAllocations(t *testing.T) {
	if decodeRace {
		t.Skip("the race detector makes sync.Pool drop entries: allocation counts are meaningless")
	}
	lite := tagOnlyOf(t, fixedEncoderModel(t))
	sent := features.Columns{{"the", "DT"}, {"cat", "NN"}, {"sleeps", "VBZ"}, {"a", "DT"}, {"dog", "NN"}}
	dst, err := lite.Tag(nil, sent)
	if err != nil {
		t.Fatal(err)
	}
	if allocs := testing.AllocsPerRun(100, func() { dst, _ = lite.Tag(dst, sent) }); allocs != 0 {
		t.Fatalf("Tag allocates %v times per call with a reused result", allocs)
	}
}

// TestTagOnlyMemoryPairs checks the documented bound on a model whose
// non-zero weights are mostly pair weights (labels reserved for every
// weight and indices grown by append would exceed it).
func TestTagOnlyMemoryPairs(t *testing.T) {
	m, err := NewModel([]string{"a", "b"}, 1, 1000, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	for j := range m.W {
		m.W[j] = float64(j%7) + 0.5
	}
	lite := tagOnlyOf(t, m)
	N, lay := m.NonZero(), m.Layout
	bound := int64(12*N + 4*(lay.NumUnary+lay.NumPair+2) + 8*lay.L*lay.L)
	if got := lite.lite.w.bytes(); got > bound {
		t.Fatalf("tag-only weights hold %d bytes, more than the bound %d (N=%d)", got, bound, N)
	}
}
