package chain

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/sparsetag/sparsetag/features"
	"github.com/sparsetag/sparsetag/sparse"
)

// fixedEncoderModel returns a small model with a template encoder (unary and
// pair attributes) and hand-chosen weights, in which unary attributes 2 and 5
// and pair attribute 0 have no non-zero weight.
func fixedEncoderModel(t testing.TB) *Model {
	enc, err := features.NewEncoderFrom(features.KindTemplate, "U00:%x[0,0]\nU01:%x[0,1]\nB\nB01:%x[0,1]\n", 0,
		[]string{"U00:the", "U00:cat", "U00:dead", "U01:DT", "U01:NN", "U01:VBZ"},
		[]string{"B01:DT", "B01:NN", "B01:VBZ"})
	if err != nil {
		t.Fatal(err)
	}
	m, err := NewModel([]string{"B-NP", "I-NP", "O"}, 6, 3, true, enc)
	if err != nil {
		t.Fatal(err)
	}
	m.W[m.Layout.StateIndex(0, 0)] = 1.5   // U00:the, B-NP
	m.W[m.Layout.StateIndex(1, 1)] = 0.75  // U00:cat, I-NP
	m.W[m.Layout.StateIndex(3, 0)] = 2     // U01:DT, B-NP
	m.W[m.Layout.StateIndex(4, 1)] = -0.5  // U01:NN, I-NP
	m.W[m.Layout.StateIndex(4, 2)] = 0.25  // U01:NN, O
	m.W[m.Layout.TransIndex(0, 1)] = 1     // B-NP -> I-NP
	m.W[m.Layout.TransIndex(2, 1)] = -4    // O -> I-NP
	m.W[m.Layout.PairIndex(1, 0, 1)] = 0.5 // B01:NN, B-NP -> I-NP
	m.W[m.Layout.PairIndex(2, 1, 2)] = -1  // B01:VBZ, I-NP -> O
	return m
}

// sameModel fails unless got has want's labels, layout, weights (bit for
// bit) and encoder (kind, template, options and attribute names).
func sameModel(t testing.TB, want, got *Model) {
	t.Helper()
	if !slices.Equal(got.Labels, want.Labels) || got.Layout != want.Layout {
		t.Fatalf("labels %v layout %+v, want %v %+v", got.Labels, got.Layout, want.Labels, want.Layout)
	}
	if !sameBits(got.W, want.W) {
		t.Fatal("weights differ")
	}
	if (got.Encoder == nil) != (want.Encoder == nil) {
		t.Fatalf("encoder presence %v, want %v", got.Encoder != nil, want.Encoder != nil)
	}
	if want.Encoder == nil {
		return
	}
	sameEncoderKind(t, want.Encoder, got.Encoder)
	if !slices.Equal(got.Encoder.Unary().Names(), want.Encoder.Unary().Names()) ||
		!slices.Equal(got.Encoder.Pair().Names(), want.Encoder.Pair().Names()) {
		t.Fatal("attribute names differ")
	}
}

func sameEncoderKind(t testing.TB, want, got *features.Encoder) {
	t.Helper()
	src := func(e *features.Encoder) string {
		if e.Template() == nil {
			return ""
		}
		return e.Template().Source()
	}
	if got.Kind() != want.Kind() || got.PixelOptions() != want.PixelOptions() || src(got) != src(want) {
		t.Fatalf("encoder %v/%v/%q, want %v/%v/%q", got.Kind(), got.PixelOptions(), src(got), want.Kind(), want.PixelOptions(), src(want))
	}
}

func sameBits(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}

// checkCompaction fails unless c is the compaction of m: the same labels,
// transition weights and encoder kind; every attribute of m that has a
// non-zero weight is in c under the same name with the same weights, the
// others are not; and every attribute of c has a non-zero weight. Without
// an encoder c must equal m.
func checkCompaction(t testing.TB, m, c *Model) {
	t.Helper()
	if m.Encoder == nil {
		sameModel(t, m, c)
		return
	}
	if c.Encoder == nil {
		t.Fatal("compaction lost the encoder")
	}
	sameEncoderKind(t, m.Encoder, c.Encoder)
	if !slices.Equal(c.Labels, m.Labels) || c.Layout.Transitions != m.Layout.Transitions || !sameBits(c.Trans, m.Trans) {
		t.Fatal("labels or transitions differ")
	}
	if kind, a := c.firstDead(); kind != "" {
		t.Fatalf("compacted model keeps dead %s attribute %d", kind, a)
	}
	L, LL := m.Layout.L, m.Layout.L*m.Layout.L
	for _, blk := range []struct {
		kind     string
		md, cd   *features.Dictionary
		n, cn, w int
		mw, cw   []float64
	}{
		{"unary", m.Encoder.Unary(), c.Encoder.Unary(), m.Layout.NumUnary, c.Layout.NumUnary, L, m.State, c.State},
		{"pair", m.Encoder.Pair(), c.Encoder.Pair(), m.Layout.NumPair, c.Layout.NumPair, LL, m.PairW, c.PairW},
	} {
		if blk.cd.Len() != blk.cn || !blk.cd.Frozen() {
			t.Fatalf("%s dictionary of %d names (frozen %v) for %d attributes", blk.kind, blk.cd.Len(), blk.cd.Frozen(), blk.cn)
		}
		kept, prev := 0, int32(-1)
		for a := 0; a < blk.n; a++ {
			row := blk.mw[a*blk.w : a*blk.w+blk.w]
			b, ok := blk.cd.ID(blk.md.Name(int32(a)))
			if !ok {
				if !allZero(row) {
					t.Fatalf("%s attribute %q has non-zero weights but was dropped", blk.kind, blk.md.Name(int32(a)))
				}
				continue
			}
			if b <= prev {
				t.Fatalf("%s attribute %q: id %d after %d, order not kept", blk.kind, blk.md.Name(int32(a)), b, prev)
			}
			prev = b
			kept++
			if !sameBits(blk.cw[int(b)*blk.w:int(b)*blk.w+blk.w], row) {
				t.Fatalf("%s attribute %q: weights differ", blk.kind, blk.md.Name(int32(a)))
			}
		}
		if kept != blk.cn {
			t.Fatalf("%s: %d attributes kept, compacted model has %d", blk.kind, kept, blk.cn)
		}
	}
}

func TestCompactFixed(t *testing.T) {
	m := fixedEncoderModel(t)
	before := append([]float64(nil), m.W...)
	c, err := m.Compact()
	if err != nil {
		t.Fatal(err)
	}
	if c == m || c.Layout.NumUnary != 4 || c.Layout.NumPair != 2 || len(c.W) != 4*3+3*3+2*3*3 {
		t.Fatalf("compacted to U=%d P=%d with %d weights, want 4, 2 and 33", c.Layout.NumUnary, c.Layout.NumPair, len(c.W))
	}
	if got, want := c.Encoder.Unary().Names(), []string{"U00:the", "U00:cat", "U01:DT", "U01:NN"}; !slices.Equal(got, want) {
		t.Fatalf("unary attributes %q, want %q", got, want)
	}
	if got, want := c.Encoder.Pair().Names(), []string{"B01:NN", "B01:VBZ"}; !slices.Equal(got, want) {
		t.Fatalf("pair attributes %q, want %q", got, want)
	}
	if c.W[c.Layout.StateIndex(2, 0)] != 2 || c.W[c.Layout.PairIndex(1, 1, 2)] != -1 || c.NonZero() != m.NonZero() {
		t.Fatal("weights not moved to the new ids")
	}
	checkCompaction(t, m, c)
	if !sameBits(m.W, before) || m.Layout.NumUnary != 6 || m.Encoder.Unary().Len() != 6 {
		t.Fatal("Compact changed its receiver")
	}
	c.W[0] = 42 // the result shares nothing with m
	if m.W[0] != 1.5 {
		t.Fatal("compacted model shares its weights with the original")
	}
	// Nothing left to drop: the model itself.
	if cc, err := c.Compact(); err != nil || cc != c {
		t.Fatalf("compacting a compact model: %p, %v; want the model itself", cc, err)
	}
	// No encoder: attribute ids are the caller's, the model is kept.
	nm := fixedModel(t)
	clear(nm.State)
	if cc, err := nm.Compact(); err != nil || cc != nm {
		t.Fatalf("compacting a model without an encoder: %p, %v; want the model itself", cc, err)
	}
	// An encoder that does not match the layout is an error, also for WriteTo.
	bad := fixedEncoderModel(t)
	bad.Layout.NumUnary = 5
	bad.setWeights(make([]float64, bad.Layout.Dim()))
	if _, err := bad.Compact(); err == nil {
		t.Fatal("Compact accepted an encoder of 6 unary attributes for a layout of 5")
	}
	if _, err := bad.MarshalBinary(); err == nil {
		t.Fatal("MarshalBinary accepted an encoder that does not match the layout")
	}
}

// compactCase is a kind of input: an encoder whose dictionaries have been
// grown on random training input, and a generator of test input (with
// attributes the dictionaries have never seen).
type compactCase struct {
	name string
	enc  func(rng *rand.Rand) *features.Encoder
	// input returns a random sequence; encode and tag encode it with an
	// encoder (grow=false) and tag it raw with a Tagger.
	input  func(rng *rand.Rand, train bool) any
	encode func(e *features.Encoder, c *sparse.Corpus, in any, grow bool) error
	tag    func(tg *Tagger, in any) ([]int, error)
}

type attrInput struct {
	names  [][]string
	values [][]float64
}

var compactTemplates = []string{
	// Label bigrams and two observation-conditioned bigram templates.
	"U00:%x[0,0]\nU01:%x[0,1]\nU02:%x[-1,0]/%x[0,0]\nU03:%x[1,1]\nB\nB01:%x[0,1]\nB02:%x[-1,1]/%x[0,1]\n",
	// Pair templates only.
	"U00:%x[0,0]\nU01:%x[-1,1]/%x[0,1]\nB01:%x[0,0]\n",
	// No pair templates.
	"U00:%x[0,0]\nU01:%x[0,1]\nU02:%x[1,0]\nB\n",
}

var compactCases = []compactCase{
	{
		name: "columns",
		enc: func(rng *rand.Rand) *features.Encoder {
			return features.NewTemplateEncoder(features.MustCompile(compactTemplates[rng.IntN(len(compactTemplates))]))
		},
		input: func(rng *rand.Rand, train bool) any {
			vocab := 30
			if !train {
				vocab = 40 // some words never seen in training
			}
			cols := make([][]string, 1+rng.IntN(8))
			for t := range cols {
				cols[t] = []string{fmt.Sprintf("w%d", rng.IntN(vocab)), fmt.Sprintf("p%d", rng.IntN(6))}
			}
			return cols
		},
		encode: func(e *features.Encoder, c *sparse.Corpus, in any, grow bool) error {
			return e.Encode(c, features.Columns(in.([][]string)), nil, grow)
		},
		tag: func(tg *Tagger, in any) ([]int, error) { return tg.Tag(nil, features.Columns(in.([][]string))) },
	},
	{
		name: "attributes",
		enc:  func(*rand.Rand) *features.Encoder { return features.NewAttributeEncoder() },
		input: func(rng *rand.Rand, train bool) any {
			vocab := 40
			if !train {
				vocab = 50
			}
			T := 1 + rng.IntN(8)
			in := attrInput{names: make([][]string, T)}
			binary := rng.IntN(3) == 0
			if !binary {
				in.values = make([][]float64, T)
			}
			for t := range in.names {
				for k := rng.IntN(6); k >= 0; k-- {
					in.names[t] = append(in.names[t], fmt.Sprintf("a%d", rng.IntN(vocab)))
				}
				if !binary && rng.IntN(4) != 0 { // else values[t] = nil: all 1
					for range in.names[t] {
						in.values[t] = append(in.values[t], 4*rng.Float64()-2)
					}
				}
			}
			return in
		},
		encode: func(e *features.Encoder, c *sparse.Corpus, in any, grow bool) error {
			a := in.(attrInput)
			return e.Encode(c, features.Attributes{Names: a.names, Values: a.values}, nil, grow)
		},
		tag: func(tg *Tagger, in any) ([]int, error) {
			a := in.(attrInput)
			return tg.Tag(nil, features.Attributes{Names: a.names, Values: a.values})
		},
	},
	{
		name: "pixels",
		enc: func(rng *rand.Rand) *features.Encoder {
			return features.NewPixelEncoder(features.PixelOptions(rng.IntN(8)))
		},
		input: func(rng *rand.Rand, train bool) any {
			ims := make([][]byte, 1+rng.IntN(5))
			for t := range ims {
				ims[t] = make([]byte, 128)
				for k := range ims[t] {
					if rng.IntN(3) == 0 {
						ims[t][k] = 1
					}
				}
			}
			return ims
		},
		encode: func(e *features.Encoder, c *sparse.Corpus, in any, grow bool) error {
			return e.Encode(c, features.Pixels(in.([][]byte)), nil, grow)
		},
		tag: func(tg *Tagger, in any) ([]int, error) { return tg.Tag(nil, features.Pixels(in.([][]byte))) },
	},
}

// sparseRandomModel grows enc's dictionaries on random training input and
// returns a model over them in which most attributes have no non-zero
// weight and the others only a few.
func sparseRandomModel(t *testing.T, rng *rand.Rand, cc compactCase, L int) *Model {
	t.Helper()
	enc := cc.enc(rng)
	for range 30 {
		if err := cc.encode(enc, &sparse.Corpus{}, cc.input(rng, true), true); err != nil {
			t.Fatal(err)
		}
	}
	enc.Freeze(0)
	m, err := NewModel(labelNames(L), enc.Unary().Len(), enc.Pair().Len(), enc.HasTransitions(), enc)
	if err != nil {
		t.Fatal(err)
	}
	fill := func(w []float64, live, dense float64) {
		if rng.Float64() >= live {
			return
		}
		for j := range w {
			if rng.Float64() < dense {
				w[j] = 2 * rng.NormFloat64()
			}
		}
	}
	for a := 0; a < m.Layout.NumUnary; a++ {
		fill(m.State[a*L:a*L+L], 0.4, 0.5)
	}
	for a := 0; a < m.Layout.NumPair; a++ {
		fill(m.PairW[a*L*L:(a+1)*L*L], 0.3, 0.3)
	}
	if m.Layout.Transitions {
		fill(m.Trans, 1, 0.7)
	}
	return m
}

// TestCompactTagsIdentically checks that a compacted model, and a model
// saved as a version 1 file, loaded, saved again (compacted) and loaded,
// tag every input exactly as the original: the same Viterbi path and score,
// probability, log-partition and marginals, bit for bit.
func TestCompactTagsIdentically(t *testing.T) {
	for _, cc := range compactCases {
		t.Run(cc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(7, uint64(len(cc.name))))
			dropped := 0
			for trial := range 12 {
				L := 1 + rng.IntN(5)
				m := sparseRandomModel(t, rng, cc, L)
				c, err := m.Compact()
				if err != nil {
					t.Fatal(err)
				}
				checkCompaction(t, m, c)
				// WeightsFrom matches attributes by name: the compacted model
				// gives the same starting point.
				if !sameBits(m.WeightsFrom(c), m.W) {
					t.Fatal("WeightsFrom(compacted model) differs from the original weights")
				}
				dropped += m.Layout.NumUnary + m.Layout.NumPair - c.Layout.NumUnary - c.Layout.NumPair
				// Old file -> load -> save (compacts) -> load.
				v1, err := m.encodeFile(1)
				if err != nil {
					t.Fatal(err)
				}
				old, err := ReadModel(bytes.NewReader(v1))
				if err != nil {
					t.Fatal(err)
				}
				sameModel(t, m, old)
				v2, err := old.MarshalBinary()
				if err != nil {
					t.Fatal(err)
				}
				back, err := ReadModel(bytes.NewReader(v2))
				if err != nil {
					t.Fatal(err)
				}
				sameModel(t, c, back)
				if again, _ := back.MarshalBinary(); !bytes.Equal(again, v2) {
					t.Fatal("compact file does not re-encode to itself")
				}
				if len(v2) > len(v1) {
					t.Fatalf("compact file of %d bytes, larger than the old one of %d", len(v2), len(v1))
				}
				for k := range 40 {
					in := cc.input(rng, false)
					want := tagAll(t, cc, m, in)
					for _, v := range []struct {
						name string
						m    *Model
					}{{"compacted", c}, {"reloaded", back}} {
						if got := tagAll(t, cc, v.m, in); !got.equal(want) {
							t.Fatalf("trial %d, input %d (%v): %s model tags\n%+v\nwant\n%+v", trial, k, in, v.name, got, want)
						}
					}
				}
			}
			if dropped == 0 {
				t.Fatal("no attribute was ever dropped: the test exercises nothing")
			}
		})
	}
}

// tagResult is everything a Tagger says about one sequence.
type tagResult struct {
	raw   []int // Tag on raw input
	path  []int
	score float64
	post  Decoding // with the posterior
}

func (r tagResult) equal(o tagResult) bool {
	return slices.Equal(r.raw, o.raw) && slices.Equal(r.path, o.path) && slices.Equal(r.post.Best(), o.post.Best()) &&
		sameBits([]float64{r.score, r.post.Probs[0], r.post.LogZ}, []float64{o.score, o.post.Probs[0], o.post.LogZ}) &&
		sameBits(r.post.Marginal, o.post.Marginal)
}

func tagAll(t *testing.T, cc compactCase, m *Model, in any) tagResult {
	t.Helper()
	tg := NewTagger(m)
	var r tagResult
	var err error
	if r.raw, err = cc.tag(tg, in); err != nil {
		t.Fatal(err)
	}
	var c sparse.Corpus
	if err := cc.encode(m.Encoder.Clone(), &c, in, false); err != nil {
		t.Fatal(err)
	}
	if r.path, err = tg.Tag(nil, Encoded{Corpus: &c}); err != nil {
		t.Fatal(err)
	}
	var d Decoding
	if err := tg.Decode(&d, Encoded{Corpus: &c}, DecodeOptions{}); err != nil {
		t.Fatal(err)
	}
	r.score = d.Scores[0]
	if err := tg.Decode(&r.post, Encoded{Corpus: &c}, DecodeOptions{Posterior: true}); err != nil {
		t.Fatal(err)
	}
	return r
}

// BenchmarkReadModel loads a model of 100,000 attributes and 22 labels in
// which 4% of the attributes have a non-zero weight (about the proportion of
// a CoNLL-2000 chunking model trained with c1 = 1), as an uncompacted
// version 1 file and as the compact file it is saved as.
func BenchmarkReadModel(b *testing.B) {
	m := benchModel(b)
	v1, err := m.encodeFile(1)
	if err != nil {
		b.Fatal(err)
	}
	v2, err := m.MarshalBinary()
	if err != nil {
		b.Fatal(err)
	}
	for _, f := range []struct {
		name string
		data []byte
	}{{"v1-full", v1}, {"v2-compact", v2}} {
		b.Run(f.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(f.data)))
			for b.Loop() {
				if _, err := ReadModel(bytes.NewReader(f.data)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// benchModel is BenchmarkReadModel's model: 100,000 attributes, 22 labels,
// 4% of the attributes with a non-zero weight, dense transitions.
func benchModel(b *testing.B) *Model {
	const U, L = 100_000, 22
	rng := rand.New(rand.NewPCG(1, 1))
	names := make([]string, U)
	for a := range names {
		names[a] = fmt.Sprintf("U%02d:attribute-%d", a%20, a)
	}
	enc, err := features.NewEncoderFrom(features.KindAttributes, "", 0, names, nil)
	if err != nil {
		b.Fatal(err)
	}
	m, err := NewModel(labelNames(L), U, 0, true, enc)
	if err != nil {
		b.Fatal(err)
	}
	for a := 0; a < U; a++ {
		if rng.IntN(25) == 0 {
			m.W[m.Layout.StateIndex(a, rng.IntN(L))] = rng.NormFloat64()
		}
	}
	for j := range m.Trans {
		m.Trans[j] = rng.NormFloat64()
	}
	return m
}
