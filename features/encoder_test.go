package features

import (
	"math"
	"slices"
	"sort"
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sparsetag/sparsetag/sparse"
)

// rowNames returns the names of the attributes of row p of m, in row order.
func rowNames(m *sparse.Matrix, d *Dictionary, p int) []string {
	cols, _ := m.Row(p)
	var s []string
	for _, a := range cols {
		s = append(s, d.Name(a))
	}
	return s
}

// sortedSet returns the sorted distinct strings of s (nil for none).
func sortedSet(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	s = slices.Clone(s)
	sort.Strings(s)
	return slices.Compact(s)
}

// namesSortedByID checks that row ids increase strictly.
func checkRowsSorted(t *testing.T, m *sparse.Matrix) {
	t.Helper()
	for r := 0; r < m.Rows(); r++ {
		cols, _ := m.Row(r)
		for k := 1; k < len(cols); k++ {
			if cols[k] <= cols[k-1] {
				t.Fatalf("row %d ids %v not strictly increasing", r, cols)
			}
		}
	}
}

func TestEncodeColumnsRoundTrip(t *testing.T) {
	tm := MustCompile(handTemplate)
	e := NewTemplateEncoder(tm)
	var c sparse.Corpus
	second := [][]string{{"Rockwell", "NNP"}, {"said", "VBD"}}
	if err := e.Encode(&c, Columns(handSentence), []int32{0, 1, 2}, true); err != nil {
		t.Fatal(err)
	}
	if err := e.Encode(&c, Columns(second), []int32{2, 1}, true); err != nil {
		t.Fatal(err)
	}
	if err := c.Validate(3); err != nil {
		t.Fatal(err)
	}
	require.Equal(t, 2, c.Len(), "Len")
	require.Equal(t, 5, c.Positions(), "Positions")
	require.Equal(t, e.Unary().Len(), c.NumUnary, "NumUnary")
	require.Equal(t, e.Pair().Len(), c.NumPair, "NumPair")
	assert.Equal(t, []int32{0, 1, 2, 2, 1}, c.Labels)
	require.Equal(t, 5, c.Pair.Rows(), "Pair rows")
	checkRowsSorted(t, &c.Unary)
	checkRowsSorted(t, &c.Pair)
	for i, seq := range [][][]string{handSentence, second} {
		start, n := c.Span(i)
		for pos := 0; pos < n; pos++ {
			u, p, err := tm.Expand(seq, pos)
			require.NoError(t, err)
			assert.Equal(t, sortedSet(u), sortedSet(rowNames(&c.Unary, e.Unary(), start+pos)), "seq %d pos %d unary", i, pos)
			assert.Equal(t, sortedSet(p), sortedSet(rowNames(&c.Pair, e.Pair(), start+pos)), "seq %d pos %d pair", i, pos)
		}
	}
	// "U03" occurs at all 5 positions; the first-seen attribute "U00:_B-2" at 2.
	if id, ok := e.Unary().ID("U03"); assert.True(t, ok, "U03 known") {
		assert.Equal(t, int64(5), e.Unary().Count(id), "count of U03")
	}
	if id, ok := e.Unary().ID("U00:_B-2"); assert.True(t, ok, "U00:_B-2 known") {
		assert.Equal(t, int32(0), id, "id of U00:_B-2")
		assert.Equal(t, int64(2), e.Unary().Count(id), "count of U00:_B-2")
	}

	// Rebuild from the serialized parts and encode again, frozen: same corpus.
	e.Freeze(0)
	e2, err := NewEncoderFrom(e.Kind(), e.Template().Source(), e.PixelOptions(), e.Unary().Names(), e.Pair().Names())
	if err != nil {
		t.Fatal(err)
	}
	var c2 sparse.Corpus
	if err := e2.Encode(&c2, Columns(handSentence), []int32{0, 1, 2}, false); err != nil {
		t.Fatal(err)
	}
	if err := e2.Encode(&c2, Columns(second), []int32{2, 1}, false); err != nil {
		t.Fatal(err)
	}
	assert.Equal(t, c, c2, "rebuilt encoder gives a different corpus")
}

func TestFrozenSkipsUnknown(t *testing.T) {
	tm := MustCompile("U00:%x[0,0]\nU01:%x[-1,0]\n")
	e := NewTemplateEncoder(tm)
	var train sparse.Corpus
	if err := e.Encode(&train, Columns([][]string{{"a"}, {"b"}}), []int32{0, 1}, true); err != nil {
		t.Fatal(err)
	}
	e.Freeze(1)
	names := e.Unary().Names()
	// Known: U00:a U01:_B-1 U00:b U01:a.
	require.Equal(t, []string{"U00:a", "U01:_B-1", "U00:b", "U01:a"}, names)
	var c sparse.Corpus
	if err := e.Encode(&c, Columns([][]string{{"b"}, {"zzz"}, {"a"}}), nil, false); err != nil {
		t.Fatal(err)
	}
	// The frozen dictionary does not grow.
	assert.Equal(t, 4, e.Unary().Len(), "dictionary length")
	assert.Equal(t, 4, c.NumUnary, "NumUnary")
	want := [][]string{{"U00:b", "U01:_B-1"}, {}, {"U00:a"}} // U01:b, U00:zzz, U01:zzz unknown
	for p, w := range want {
		assert.Equal(t, sortedSet(w), sortedSet(rowNames(&c.Unary, e.Unary(), p)), "position %d", p)
	}
	assert.Nil(t, c.Labels, "unlabeled corpus has labels")
	assert.ErrorIs(t, e.Encode(&c, Columns([][]string{{"a"}}), nil, true), ErrFrozen, "grow on a frozen encoder")
	assert.ErrorIs(t, e.Count(Columns([][]string{{"a"}})), ErrFrozen, "count on a frozen encoder")
}

func TestMinFrequencyCutoff(t *testing.T) {
	// Two identical lines: an attribute is counted once per position.
	tm := MustCompile("U00:%x[0,0]\nU00:%x[0,0]\nU01:%x[0,1]\n")
	corpus := [][][]string{
		{{"a", "X"}, {"b", "Y"}, {"a", "X"}},
		{{"b", "X"}, {"c", "Z"}},
		{{"a", "Y"}},
	}
	// By hand, first-seen order and counts (positions where each occurs):
	//   U00:a 3, U01:X 3, U00:b 2, U01:Y 2, U00:c 1, U01:Z 1.
	for _, tc := range []struct {
		minFreq int
		want    []string
	}{
		{0, []string{"U00:a", "U01:X", "U00:b", "U01:Y", "U00:c", "U01:Z"}},
		{1, []string{"U00:a", "U01:X", "U00:b", "U01:Y", "U00:c", "U01:Z"}},
		{2, []string{"U00:a", "U01:X", "U00:b", "U01:Y"}},
		{3, []string{"U00:a", "U01:X"}},
		{4, []string{}},
	} {
		e := NewTemplateEncoder(tm)
		for _, s := range corpus {
			if err := e.Count(Columns(s)); err != nil {
				t.Fatal(err)
			}
		}
		e.Freeze(tc.minFreq)
		if len(tc.want) == 0 { // nil or empty
			assert.Empty(t, e.Unary().Names(), "minFreq %d: names", tc.minFreq)
		} else {
			assert.Equal(t, tc.want, e.Unary().Names(), "minFreq %d: names", tc.minFreq)
		}
		for id, name := range tc.want {
			got, ok := e.Unary().ID(name)
			assert.True(t, ok, "minFreq %d: %q known", tc.minFreq, name)
			assert.Equal(t, int32(id), got, "minFreq %d: ID(%q)", tc.minFreq, name)
		}
		if tc.minFreq >= 2 {
			_, ok := e.Unary().ID("U00:c")
			assert.False(t, ok, "minFreq %d: pruned U00:c still known", tc.minFreq)
		}
		var c sparse.Corpus
		for _, s := range corpus {
			if err := e.Encode(&c, Columns(s), nil, false); err != nil {
				t.Fatal(err)
			}
		}
		if err := c.Validate(0); err != nil {
			t.Errorf("minFreq %d: %v", tc.minFreq, err)
		}
	}
}

func TestDictionaryFreezeRemap(t *testing.T) {
	d := NewDictionary()
	for _, s := range []string{"x", "y", "x", "z", "z", "x"} {
		if _, err := d.Add(s); err != nil {
			t.Fatal(err)
		}
	}
	remap := d.Freeze(2) // counts x 3, y 1, z 2
	assert.Equal(t, []int32{0, -1, 1}, remap, "remap")
	assert.Equal(t, []string{"x", "z"}, d.Names(), "names")
	assert.Equal(t, int64(2), d.Count(1), "Count(z)")
	_, err := d.Add("w")
	assert.ErrorIs(t, err, ErrFrozen, "Add to frozen")
	id, err := d.Add("z")
	assert.NoError(t, err, "Add(known) on frozen")
	assert.Equal(t, int32(1), id, "Add(known) on frozen")
	// A second Freeze changes nothing.
	assert.Nil(t, d.Freeze(5), "second Freeze")
	assert.Equal(t, 2, d.Len(), "Len after a second Freeze")
	var z Dictionary // the zero Dictionary grows
	id, err = z.Add("q")
	assert.NoError(t, err, "zero Dictionary")
	assert.Equal(t, int32(0), id, "zero Dictionary: Add")
	assert.Equal(t, int64(1), z.Count(0), "zero Dictionary: count")
	_, err = NewDictionaryFrom([]string{"a", "b", "a"})
	assert.ErrorContains(t, err, "index 2", "duplicate names")
	d2, err := NewDictionaryFrom([]string{"a", "b"})
	require.NoError(t, err, "NewDictionaryFrom")
	assert.True(t, d2.Frozen(), "NewDictionaryFrom: frozen")
	assert.Equal(t, "b", d2.Name(1), "NewDictionaryFrom: Name(1)")
}

func TestEncodeAttributes(t *testing.T) {
	e := NewAttributeEncoder()
	var c sparse.Corpus
	names := [][]string{{"w=a", "len", "w=a"}, {"len"}, {}}
	values := [][]float64{{0.5, 3, 0.25}, nil, {}}
	if err := e.Encode(&c, Attributes{Names: names, Values: values}, []int32{1, 0, 1}, true); err != nil {
		t.Fatal(err)
	}
	if err := c.Validate(2); err != nil {
		t.Fatal(err)
	}
	// ids: w=a 0, len 1. Position 0 merges w=a: 0.5+0.25. Position 1 has no
	// values: value 1.
	wantCol := []int32{0, 1, 1}
	wantVal := []float64{0.75, 3, 1}
	// Exact: the sums are of dyadic numbers.
	assert.Equal(t, wantCol, c.Unary.Col, "Col")
	assert.Equal(t, wantVal, c.Unary.Val, "Val")
	assert.Equal(t, []int32{0, 2, 3, 3}, c.Unary.RowPtr, "RowPtr")
	assert.Equal(t, int64(1), e.Unary().Count(0), "count of w=a")
	assert.Equal(t, int64(2), e.Unary().Count(1), "count of len")

	// Many duplicates (more than the insertion-sort limit), merged in order.
	var big []string
	var bigv []float64
	for i := 0; i < 40; i++ {
		big = append(big, []string{"p", "q", "r"}[i%3])
		bigv = append(bigv, float64(i))
	}
	var c2 sparse.Corpus
	e2 := NewAttributeEncoder()
	if err := e2.Encode(&c2, Attributes{Names: [][]string{big}, Values: [][]float64{bigv}}, nil, true); err != nil {
		t.Fatal(err)
	}
	// p: 0+3+...+39 = 3*(0+...+13) = 273; q: 1+4+...+37 = 247; r: 2+5+...+38 = 260.
	assert.Equal(t, []float64{273, 247, 260}, c2.Unary.Val, "merged values")

	// Binary attribute input keeps the matrix binary and drops duplicates.
	var c3 sparse.Corpus
	e3 := NewAttributeEncoder()
	if err := e3.Encode(&c3, Attributes{Names: [][]string{{"b", "a", "b"}}, Values: nil}, nil, true); err != nil {
		t.Fatal(err)
	}
	assert.Nil(t, c3.Unary.Val, "binary attributes: Val")
	assert.Equal(t, []int32{0, 1}, c3.Unary.Col, "binary attributes: Col")
}

func TestEncodeAttributesErrors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		names  [][]string
		values [][]float64
		labels []int32
		msg    string
	}{
		{"NaN", [][]string{{"a"}}, [][]float64{{math.NaN()}}, nil, "finite"},
		{"+Inf", [][]string{{"a"}}, [][]float64{{math.Inf(1)}}, nil, "finite"},
		{"-Inf", [][]string{{"a"}}, [][]float64{{math.Inf(-1)}}, nil, "finite"},
		{"overflowing sum", [][]string{{"a", "a"}}, [][]float64{{math.MaxFloat64, math.MaxFloat64}}, nil, "overflow"},
		{"value count", [][]string{{"a", "b"}}, [][]float64{{1}}, nil, "values"},
		{"value rows", [][]string{{"a"}}, [][]float64{{1}, {2}}, nil, "value rows"},
		{"empty name", [][]string{{""}}, nil, nil, "empty name"},
		{"label count", [][]string{{"a"}}, nil, []int32{0, 1}, "labels"},
		{"negative label", [][]string{{"a"}}, nil, []int32{-1}, "negative"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := NewAttributeEncoder()
			var c sparse.Corpus
			if err := e.Encode(&c, Attributes{Names: [][]string{{"x"}}, Values: nil}, nil, true); err != nil {
				t.Fatal(err)
			}
			before := cloneCorpus(&c)
			err := e.Encode(&c, Attributes{Names: tc.names, Values: tc.values}, tc.labels, true)
			require.ErrorContains(t, err, tc.msg)
			// A failed encode changes neither the corpus nor the dictionary.
			assert.Equal(t, before, &c, "corpus")
			assert.Equal(t, 1, e.Unary().Len(), "dictionary length")
		})
	}
}

func cloneCorpus(c *sparse.Corpus) *sparse.Corpus {
	d := *c
	d.SeqPtr = slices.Clone(c.SeqPtr)
	d.Labels = slices.Clone(c.Labels)
	d.Unary.RowPtr, d.Unary.Col, d.Unary.Val = slices.Clone(c.Unary.RowPtr), slices.Clone(c.Unary.Col), slices.Clone(c.Unary.Val)
	d.Pair.RowPtr, d.Pair.Col, d.Pair.Val = slices.Clone(c.Pair.RowPtr), slices.Clone(c.Pair.Col), slices.Clone(c.Pair.Val)
	return &d
}

func TestLabelConsistency(t *testing.T) {
	e := NewTemplateEncoder(MustCompile("U:%x[0,0]"))
	var c sparse.Corpus
	if err := e.Encode(&c, Columns([][]string{{"a"}}), []int32{0}, true); err != nil {
		t.Fatal(err)
	}
	if err := e.Encode(&c, Columns([][]string{{"a"}}), nil, true); err == nil {
		t.Errorf("unlabeled into labeled corpus: no error")
	}
	var u sparse.Corpus
	if err := e.Encode(&u, Columns([][]string{{"a"}}), nil, true); err != nil {
		t.Fatal(err)
	}
	if err := e.Encode(&u, Columns([][]string{{"a"}}), []int32{0}, true); err == nil {
		t.Errorf("labeled into unlabeled corpus: no error")
	}
	// A reset labeled corpus can take unlabeled data and stays valid.
	c.Reset()
	if err := e.Encode(&c, Columns([][]string{{"a"}, {"b"}}), nil, true); err != nil {
		t.Fatal(err)
	}
	if err := c.Validate(1); err != nil || c.Labels != nil {
		t.Errorf("reset corpus: %v, labels %v", err, c.Labels)
	}
	// Empty sequences are allowed.
	if err := e.Encode(&c, Columns(nil), nil, true); err != nil || c.Len() != 2 {
		t.Errorf("empty sequence: %v, Len %d", err, c.Len())
	}
	// A pair-less encoder refuses a corpus with pair rows and vice versa.
	p := NewTemplateEncoder(MustCompile("U:%x[0,0]\nB:%x[0,0]"))
	if err := p.Encode(&c, Columns([][]string{{"a"}}), nil, true); err == nil {
		t.Errorf("pair encoder on a corpus without pair rows: no error")
	}
}

// pixelImage returns an image with the given (row, col) pixels lit.
func pixelImage(lit ...[2]int) []byte {
	im := make([]byte, PixelLength)
	for _, rc := range lit {
		im[rc[0]*PixelCols+rc[1]] = 1
	}
	return im
}

func TestEncodePixels(t *testing.T) {
	im := pixelImage([2]int{0, 0}, [2]int{0, 1}, [2]int{1, 0}, [2]int{15, 7})
	// Derived by hand from the option docs.
	base := []string{"p[0,0]", "p[0,1]", "p[1,0]", "p[15,7]"}
	pairs := []string{"h[0,0]", "v[0,0]"}
	var counts []string
	for r := 0; r < PixelRows; r++ {
		k := map[int]string{0: "2", 1: "1", 15: "1"}[r]
		if k == "" {
			k = "0"
		}
		counts = append(counts, "row["+strconv.Itoa(r)+"]="+k)
	}
	for c := 0; c < PixelCols; c++ {
		k := map[int]string{0: "2", 1: "1", 7: "1"}[c]
		if k == "" {
			k = "0"
		}
		counts = append(counts, "col["+strconv.Itoa(c)+"]="+k)
	}
	for _, tc := range []struct {
		opts PixelOptions
		want []string
	}{
		{0, base},
		{PixelPairs, append(slices.Clone(base), pairs...)},
		{PixelCounts, append(slices.Clone(base), counts...)},
		{PixelBias, append(slices.Clone(base), "bias")},
		{PixelPairs | PixelCounts | PixelBias, append(append(append(slices.Clone(base), pairs...), counts...), "bias")},
	} {
		e := NewPixelEncoder(tc.opts)
		var c sparse.Corpus
		if err := e.Encode(&c, Pixels([][]byte{im, pixelImage()}), []int32{3, 4}, true); err != nil {
			t.Fatal(err)
		}
		if err := c.Validate(5); err != nil {
			t.Fatal(err)
		}
		checkRowsSorted(t, &c.Unary)
		assert.Equal(t, sortedSet(tc.want), sortedSet(rowNames(&c.Unary, e.Unary(), 0)), "%v: attributes", tc.opts)
		// The blank image: only counts (all zero) and bias.
		nBlank := 0
		if tc.opts&PixelCounts != 0 {
			nBlank += PixelRows + PixelCols
		}
		if tc.opts&PixelBias != 0 {
			nBlank++
		}
		assert.Len(t, rowNames(&c.Unary, e.Unary(), 1), nBlank, "%v: attributes of the blank image", tc.opts)
		e2, err := NewEncoderFrom(KindPixels, "", e.PixelOptions(), e.Unary().Names(), nil)
		if err != nil {
			t.Fatal(err)
		}
		var c2 sparse.Corpus
		if err := e2.Encode(&c2, Pixels([][]byte{im, pixelImage()}), []int32{3, 4}, false); err != nil {
			t.Fatal(err)
		}
		assert.Equal(t, c, c2, "%v: rebuilt encoder differs", tc.opts)
	}
}

func TestEncodePixelsErrors(t *testing.T) {
	e := NewPixelEncoder(0)
	var c sparse.Corpus
	assert.ErrorContains(t, e.Encode(&c, Pixels([][]byte{make([]byte, 127)}), nil, true), "127 pixels", "short image")
	bad := pixelImage()
	bad[17] = 2
	assert.ErrorContains(t, e.Encode(&c, Pixels([][]byte{bad}), nil, true), "row 2, column 1", "pixel value 2")
	// Failed encodes change neither the corpus nor the dictionary.
	assert.Zero(t, c.Len(), "corpus length")
	assert.Zero(t, e.Unary().Len(), "dictionary length")
}

func TestNewEncoderFromErrors(t *testing.T) {
	for _, tc := range []struct {
		name        string
		kind        Kind
		src         string
		opts        PixelOptions
		unary, pair []string
	}{
		{"invalid kind", 0, "", 0, nil, nil},
		{"kind 9", 9, "", 0, nil, nil},
		{"bad template", KindTemplate, "U:%x[", 0, nil, nil},
		{"pixel bits", KindPixels, "", 1 << 7, nil, nil},
		{"options for template", KindTemplate, "U:%x[0,0]", PixelBias, nil, nil},
		{"pair names without pair templates", KindTemplate, "U:%x[0,0]\nB", 0, nil, []string{"B:x"}},
		{"duplicate unary", KindAttributes, "", 0, []string{"a", "a"}, nil},
		{"duplicate pair", KindTemplate, "B:%x[0,0]", 0, nil, []string{"B:a", "B:a"}},
	} {
		if _, err := NewEncoderFrom(tc.kind, tc.src, tc.opts, tc.unary, tc.pair); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
}

func TestObservedPairs(t *testing.T) {
	tm := MustCompile("U:%x[0,0]\nB:%x[0,0]")
	e := NewTemplateEncoder(tm)
	var c sparse.Corpus
	// Attribute ids by first sight: U:a 0, U:b 1, U:c 2; pair B:b 0, B:a 1, B:c 2.
	if err := e.Encode(&c, Columns([][]string{{"a"}, {"b"}, {"a"}}), []int32{0, 1, 1}, true); err != nil {
		t.Fatal(err)
	}
	if err := e.Encode(&c, Columns([][]string{{"c"}, {"c"}}), []int32{2, 0}, true); err != nil {
		t.Fatal(err)
	}
	const L = 3
	// Unary (a, y): a@0, b@1, a@1, c@2, c@0.
	wantU := []int32{0*L + 0, 0*L + 1, 1*L + 1, 2*L + 0, 2*L + 2}
	assert.Equal(t, wantU, ObservedPairs(&c, L).AppendIndices(nil, c.NumUnary*L), "ObservedPairs")
	// Pair (a, prev, cur): B:b with 0->1, B:a with 1->1, B:c with 2->0.
	wantP := []int32{0*L*L + 0*L + 1, 1*L*L + 1*L + 1, 2*L*L + 2*L + 0}
	assert.Equal(t, wantP, ObservedTriples(&c, L).AppendIndices(nil, c.NumPair*L*L), "ObservedTriples")
	var u sparse.Corpus
	if err := e.Encode(&u, Columns([][]string{{"a"}}), nil, true); err != nil {
		t.Fatal(err)
	}
	// An unlabeled corpus has no observed pairs.
	assert.Zero(t, ObservedPairs(&u, L).Count(), "ObservedPairs of an unlabeled corpus")
	assert.Zero(t, ObservedTriples(&u, L).Count(), "ObservedTriples of an unlabeled corpus")
}

// TestEncodeNoAllocs checks that encoding a sentence into a warm corpus with
// a frozen dictionary allocates nothing.
func TestEncodeNoAllocs(t *testing.T) {
	tm := MustCompile(handTemplate + "U10:%x[-1,0]/%x[0,0]/%x[1,0]\n")
	e := NewTemplateEncoder(tm)
	var c sparse.Corpus
	sent := append(slices.Clone(handSentence), []string{"unknown", "NN"})
	labels := []int32{0, 1, 2, 0}
	if err := e.Encode(&c, Columns(handSentence), labels[:3], true); err != nil {
		t.Fatal(err)
	}
	e.Freeze(0)
	if err := e.Encode(&c, Columns(sent), labels, false); err != nil { // warm-up
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(100, func() {
		c.Reset()
		if err := e.Encode(&c, Columns(sent), labels, false); err != nil {
			t.Fatal(err)
		}
	})
	assert.Zero(t, allocs, "EncodeColumns allocations per run")

	a := NewAttributeEncoder()
	var ca sparse.Corpus
	names := [][]string{{"x", "y", "x"}, {"z", "new"}}
	values := [][]float64{{1, 2, 3}, {4, 5}}
	if err := a.Encode(&ca, Attributes{Names: names[:1], Values: values[:1]}, nil, true); err != nil {
		t.Fatal(err)
	}
	a.Freeze(0)
	if err := a.Encode(&ca, Attributes{Names: names, Values: values}, nil, false); err != nil {
		t.Fatal(err)
	}
	allocs = testing.AllocsPerRun(100, func() {
		ca.Reset()
		if err := a.Encode(&ca, Attributes{Names: names, Values: values}, nil, false); err != nil {
			t.Fatal(err)
		}
	})
	assert.Zero(t, allocs, "EncodeAttributes allocations per run")

	p := NewPixelEncoder(PixelPairs | PixelCounts | PixelBias)
	var cp sparse.Corpus
	ims := [][]byte{pixelImage([2]int{0, 0}, [2]int{0, 1}), pixelImage([2]int{5, 5})}
	if err := p.Encode(&cp, Pixels(ims[:1]), nil, true); err != nil {
		t.Fatal(err)
	}
	p.Freeze(0)
	if err := p.Encode(&cp, Pixels(ims), nil, false); err != nil {
		t.Fatal(err)
	}
	allocs = testing.AllocsPerRun(100, func() {
		cp.Reset()
		if err := p.Encode(&cp, Pixels(ims), nil, false); err != nil {
			t.Fatal(err)
		}
	})
	assert.Zero(t, allocs, "EncodePixels allocations per run")
}

// TestCloneConcurrent encodes from several goroutines with clones sharing
// frozen dictionaries (run with -race).
func TestCloneConcurrent(t *testing.T) {
	e := NewTemplateEncoder(MustCompile(handTemplate))
	var c sparse.Corpus
	if err := e.Encode(&c, Columns(handSentence), nil, true); err != nil {
		t.Fatal(err)
	}
	e.Freeze(0)
	var wg sync.WaitGroup
	out := make([]sparse.Corpus, 4)
	for g := range out {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ce := e.Clone()
			for range 20 {
				out[g].Reset()
				if err := ce.Encode(&out[g], Columns(handSentence), nil, false); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	for g := range out {
		assert.Equal(t, c.Unary, out[g].Unary, "goroutine %d: different encoding", g)
	}
}

func TestWrongKind(t *testing.T) {
	for _, c := range []struct {
		name string
		enc  *Encoder
		in   Input
		want string
	}{
		{"pixels to attributes", NewAttributeEncoder(), Pixels(nil), "features: pixels input, but the encoder reads attributes input"},
		{"columns to pixels", NewPixelEncoder(0), Columns{{"a"}}, "features: template input, but the encoder reads pixels input"},
		{"attributes to template", NewTemplateEncoder(MustCompile(handTemplate)), Attributes{Names: [][]string{{"a"}}}, "features: attributes input, but the encoder reads template input"},
		{"nil", NewAttributeEncoder(), nil, "features: no input, the encoder reads attributes input"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var corpus sparse.Corpus
			err := c.enc.Encode(&corpus, c.in, nil, true)
			var ke *KindError
			require.ErrorAs(t, err, &ke)
			assert.Equal(t, c.want, err.Error())
			assert.Equal(t, 0, corpus.Len(), "corpus changed")
			require.ErrorAs(t, c.enc.Count(c.in), &ke)
		})
	}
}
