package features

import (
	"errors"
	"math"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

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
	if err := e.EncodeColumns(&c, handSentence, []int32{0, 1, 2}, true); err != nil {
		t.Fatal(err)
	}
	if err := e.EncodeColumns(&c, second, []int32{2, 1}, true); err != nil {
		t.Fatal(err)
	}
	if err := c.Validate(3); err != nil {
		t.Fatal(err)
	}
	if c.Len() != 2 || c.Positions() != 5 || c.NumUnary != e.Unary().Len() || c.NumPair != e.Pair().Len() {
		t.Fatalf("Len=%d Positions=%d NumUnary=%d/%d NumPair=%d/%d", c.Len(), c.Positions(),
			c.NumUnary, e.Unary().Len(), c.NumPair, e.Pair().Len())
	}
	if want := []int32{0, 1, 2, 2, 1}; !reflect.DeepEqual(c.Labels, want) {
		t.Errorf("Labels = %v, want %v", c.Labels, want)
	}
	if c.Pair.Rows() != 5 {
		t.Fatalf("Pair rows = %d, want 5", c.Pair.Rows())
	}
	checkRowsSorted(t, &c.Unary)
	checkRowsSorted(t, &c.Pair)
	for i, seq := range [][][]string{handSentence, second} {
		start, n := c.Span(i)
		for pos := 0; pos < n; pos++ {
			u, p, err := tm.Expand(seq, pos)
			if err != nil {
				t.Fatal(err)
			}
			if got := sortedSet(rowNames(&c.Unary, e.Unary(), start+pos)); !reflect.DeepEqual(got, sortedSet(u)) {
				t.Errorf("seq %d pos %d unary = %q, want %q", i, pos, got, sortedSet(u))
			}
			if got := sortedSet(rowNames(&c.Pair, e.Pair(), start+pos)); !reflect.DeepEqual(got, sortedSet(p)) {
				t.Errorf("seq %d pos %d pair = %q, want %q", i, pos, got, sortedSet(p))
			}
		}
	}
	// "U03" occurs at all 5 positions; the first-seen attribute "U00:_B-2" at 2.
	if id, ok := e.Unary().ID("U03"); !ok || e.Unary().Count(id) != 5 {
		t.Errorf("count of U03 = %d (known %v), want 5", e.Unary().Count(id), ok)
	}
	if id, ok := e.Unary().ID("U00:_B-2"); !ok || id != 0 || e.Unary().Count(id) != 2 {
		t.Errorf("U00:_B-2: id %d count %d, want id 0 count 2", id, e.Unary().Count(id))
	}

	// Rebuild from the serialized parts and encode again, frozen: same corpus.
	e.Freeze(0)
	e2, err := NewEncoderFrom(e.Kind(), e.Template().Source(), e.PixelOptions(), e.Unary().Names(), e.Pair().Names())
	if err != nil {
		t.Fatal(err)
	}
	var c2 sparse.Corpus
	if err := e2.EncodeColumns(&c2, handSentence, []int32{0, 1, 2}, false); err != nil {
		t.Fatal(err)
	}
	if err := e2.EncodeColumns(&c2, second, []int32{2, 1}, false); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(c, c2) {
		t.Errorf("rebuilt encoder gives a different corpus:\n%+v\n%+v", c, c2)
	}
}

func TestFrozenSkipsUnknown(t *testing.T) {
	tm := MustCompile("U00:%x[0,0]\nU01:%x[-1,0]\n")
	e := NewTemplateEncoder(tm)
	var train sparse.Corpus
	if err := e.EncodeColumns(&train, [][]string{{"a"}, {"b"}}, []int32{0, 1}, true); err != nil {
		t.Fatal(err)
	}
	e.Freeze(1)
	names := e.Unary().Names()
	// Known: U00:a U01:_B-1 U00:b U01:a.
	if want := []string{"U00:a", "U01:_B-1", "U00:b", "U01:a"}; !reflect.DeepEqual(names, want) {
		t.Fatalf("names = %q, want %q", names, want)
	}
	var c sparse.Corpus
	if err := e.EncodeColumns(&c, [][]string{{"b"}, {"zzz"}, {"a"}}, nil, false); err != nil {
		t.Fatal(err)
	}
	if e.Unary().Len() != 4 || c.NumUnary != 4 {
		t.Errorf("frozen dictionary grew to %d (corpus says %d)", e.Unary().Len(), c.NumUnary)
	}
	want := [][]string{{"U00:b", "U01:_B-1"}, {}, {"U00:a"}} // U01:b, U00:zzz, U01:zzz unknown
	for p, w := range want {
		if got := sortedSet(rowNames(&c.Unary, e.Unary(), p)); !reflect.DeepEqual(got, sortedSet(w)) {
			t.Errorf("position %d = %q, want %q", p, got, w)
		}
	}
	if c.Labels != nil {
		t.Errorf("unlabeled corpus has labels %v", c.Labels)
	}
	if err := e.EncodeColumns(&c, [][]string{{"a"}}, nil, true); !errors.Is(err, ErrFrozen) {
		t.Errorf("grow on a frozen encoder: err = %v, want ErrFrozen", err)
	}
	if err := e.CountColumns([][]string{{"a"}}); !errors.Is(err, ErrFrozen) {
		t.Errorf("count on a frozen encoder: err = %v, want ErrFrozen", err)
	}
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
			if err := e.CountColumns(s); err != nil {
				t.Fatal(err)
			}
		}
		e.Freeze(tc.minFreq)
		if got := e.Unary().Names(); !reflect.DeepEqual(got, tc.want) && !(len(got) == 0 && len(tc.want) == 0) {
			t.Errorf("minFreq %d: names = %q, want %q", tc.minFreq, got, tc.want)
		}
		for id, name := range tc.want {
			if got, ok := e.Unary().ID(name); !ok || got != int32(id) {
				t.Errorf("minFreq %d: ID(%q) = %d, %v, want %d", tc.minFreq, name, got, ok, id)
			}
		}
		if _, ok := e.Unary().ID("U00:c"); ok && tc.minFreq >= 2 {
			t.Errorf("minFreq %d: pruned U00:c still known", tc.minFreq)
		}
		var c sparse.Corpus
		for _, s := range corpus {
			if err := e.EncodeColumns(&c, s, nil, false); err != nil {
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
	if want := []int32{0, -1, 1}; !reflect.DeepEqual(remap, want) {
		t.Errorf("remap = %v, want %v", remap, want)
	}
	if want := []string{"x", "z"}; !reflect.DeepEqual(d.Names(), want) {
		t.Errorf("names = %q, want %q", d.Names(), want)
	}
	if d.Count(1) != 2 {
		t.Errorf("Count(z) = %d, want 2", d.Count(1))
	}
	if _, err := d.Add("w"); !errors.Is(err, ErrFrozen) {
		t.Errorf("Add to frozen: %v, want ErrFrozen", err)
	}
	if id, err := d.Add("z"); err != nil || id != 1 {
		t.Errorf("Add(known) on frozen = %d, %v, want 1, nil", id, err)
	}
	if d.Freeze(5) != nil || d.Len() != 2 {
		t.Errorf("second Freeze changed the dictionary")
	}
	var z Dictionary // the zero Dictionary grows
	if id, err := z.Add("q"); err != nil || id != 0 || z.Count(0) != 1 {
		t.Errorf("zero Dictionary: Add = %d, %v, count %d", id, err, z.Count(0))
	}
	if _, err := NewDictionaryFrom([]string{"a", "b", "a"}); err == nil || !strings.Contains(err.Error(), "index 2") {
		t.Errorf("duplicate names: err = %v", err)
	}
	d2, err := NewDictionaryFrom([]string{"a", "b"})
	if err != nil || !d2.Frozen() || d2.Name(1) != "b" {
		t.Errorf("NewDictionaryFrom: %v, frozen %v", err, d2.Frozen())
	}
}

func TestEncodeAttributes(t *testing.T) {
	e := NewAttributeEncoder()
	var c sparse.Corpus
	names := [][]string{{"w=a", "len", "w=a"}, {"len"}, {}}
	values := [][]float64{{0.5, 3, 0.25}, nil, {}}
	if err := e.EncodeAttributes(&c, names, values, []int32{1, 0, 1}, true); err != nil {
		t.Fatal(err)
	}
	if err := c.Validate(2); err != nil {
		t.Fatal(err)
	}
	// ids: w=a 0, len 1. Position 0 merges w=a: 0.5+0.25. Position 1 has no
	// values: value 1.
	wantCol := []int32{0, 1, 1}
	wantVal := []float64{0.75, 3, 1}
	if !reflect.DeepEqual(c.Unary.Col, wantCol) || !reflect.DeepEqual(c.Unary.Val, wantVal) {
		t.Errorf("Col=%v Val=%v, want %v %v", c.Unary.Col, c.Unary.Val, wantCol, wantVal)
	}
	if want := []int32{0, 2, 3, 3}; !reflect.DeepEqual(c.Unary.RowPtr, want) {
		t.Errorf("RowPtr = %v, want %v", c.Unary.RowPtr, want)
	}
	if e.Unary().Count(0) != 1 || e.Unary().Count(1) != 2 {
		t.Errorf("counts %d %d, want 1 2", e.Unary().Count(0), e.Unary().Count(1))
	}

	// Many duplicates (more than the insertion-sort limit), merged in order.
	var big []string
	var bigv []float64
	for i := 0; i < 40; i++ {
		big = append(big, []string{"p", "q", "r"}[i%3])
		bigv = append(bigv, float64(i))
	}
	var c2 sparse.Corpus
	e2 := NewAttributeEncoder()
	if err := e2.EncodeAttributes(&c2, [][]string{big}, [][]float64{bigv}, nil, true); err != nil {
		t.Fatal(err)
	}
	// p: 0+3+...+39 = 3*(0+...+13) = 273; q: 1+4+...+37 = 247; r: 2+5+...+38 = 260.
	if want := []float64{273, 247, 260}; !reflect.DeepEqual(c2.Unary.Val, want) {
		t.Errorf("merged values = %v, want %v", c2.Unary.Val, want)
	}

	// Binary attribute input keeps the matrix binary and drops duplicates.
	var c3 sparse.Corpus
	e3 := NewAttributeEncoder()
	if err := e3.EncodeAttributes(&c3, [][]string{{"b", "a", "b"}}, nil, nil, true); err != nil {
		t.Fatal(err)
	}
	if c3.Unary.Val != nil || !reflect.DeepEqual(c3.Unary.Col, []int32{0, 1}) {
		t.Errorf("binary attributes: Col=%v Val=%v, want [0 1] nil", c3.Unary.Col, c3.Unary.Val)
	}
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
			if err := e.EncodeAttributes(&c, [][]string{{"x"}}, nil, nil, true); err != nil {
				t.Fatal(err)
			}
			before := cloneCorpus(&c)
			err := e.EncodeAttributes(&c, tc.names, tc.values, tc.labels, true)
			if err == nil || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("err = %v, want one mentioning %q", err, tc.msg)
			}
			if !reflect.DeepEqual(&c, before) || e.Unary().Len() != 1 {
				t.Errorf("failed encode changed the corpus or the dictionary")
			}
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
	if err := e.EncodeColumns(&c, [][]string{{"a"}}, []int32{0}, true); err != nil {
		t.Fatal(err)
	}
	if err := e.EncodeColumns(&c, [][]string{{"a"}}, nil, true); err == nil {
		t.Errorf("unlabeled into labeled corpus: no error")
	}
	var u sparse.Corpus
	if err := e.EncodeColumns(&u, [][]string{{"a"}}, nil, true); err != nil {
		t.Fatal(err)
	}
	if err := e.EncodeColumns(&u, [][]string{{"a"}}, []int32{0}, true); err == nil {
		t.Errorf("labeled into unlabeled corpus: no error")
	}
	// A reset labeled corpus can take unlabeled data and stays valid.
	c.Reset()
	if err := e.EncodeColumns(&c, [][]string{{"a"}, {"b"}}, nil, true); err != nil {
		t.Fatal(err)
	}
	if err := c.Validate(1); err != nil || c.Labels != nil {
		t.Errorf("reset corpus: %v, labels %v", err, c.Labels)
	}
	// Empty sequences are allowed.
	if err := e.EncodeColumns(&c, nil, nil, true); err != nil || c.Len() != 2 {
		t.Errorf("empty sequence: %v, Len %d", err, c.Len())
	}
	// A pair-less encoder refuses a corpus with pair rows and vice versa.
	p := NewTemplateEncoder(MustCompile("U:%x[0,0]\nB:%x[0,0]"))
	if err := p.EncodeColumns(&c, [][]string{{"a"}}, nil, true); err == nil {
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
		if err := e.EncodePixels(&c, [][]byte{im, pixelImage()}, []int32{3, 4}, true); err != nil {
			t.Fatal(err)
		}
		if err := c.Validate(5); err != nil {
			t.Fatal(err)
		}
		checkRowsSorted(t, &c.Unary)
		if got := sortedSet(rowNames(&c.Unary, e.Unary(), 0)); !reflect.DeepEqual(got, sortedSet(tc.want)) {
			t.Errorf("%v: attributes = %q, want %q", tc.opts, got, sortedSet(tc.want))
		}
		// The blank image: only counts (all zero) and bias.
		nBlank := 0
		if tc.opts&PixelCounts != 0 {
			nBlank += PixelRows + PixelCols
		}
		if tc.opts&PixelBias != 0 {
			nBlank++
		}
		if got := len(rowNames(&c.Unary, e.Unary(), 1)); got != nBlank {
			t.Errorf("%v: blank image has %d attributes, want %d", tc.opts, got, nBlank)
		}
		e2, err := NewEncoderFrom(KindPixels, "", e.PixelOptions(), e.Unary().Names(), nil)
		if err != nil {
			t.Fatal(err)
		}
		var c2 sparse.Corpus
		if err := e2.EncodePixels(&c2, [][]byte{im, pixelImage()}, []int32{3, 4}, false); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(c, c2) {
			t.Errorf("%v: rebuilt encoder differs", tc.opts)
		}
	}
}

func TestEncodePixelsErrors(t *testing.T) {
	e := NewPixelEncoder(0)
	var c sparse.Corpus
	if err := e.EncodePixels(&c, [][]byte{make([]byte, 127)}, nil, true); err == nil || !strings.Contains(err.Error(), "127 pixels") {
		t.Errorf("short image: %v", err)
	}
	bad := pixelImage()
	bad[17] = 2
	if err := e.EncodePixels(&c, [][]byte{bad}, nil, true); err == nil || !strings.Contains(err.Error(), "row 2, column 1") {
		t.Errorf("pixel value 2: %v", err)
	}
	if c.Len() != 0 || e.Unary().Len() != 0 {
		t.Errorf("failed encodes changed the corpus or dictionary")
	}
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
	if err := e.EncodeColumns(&c, [][]string{{"a"}, {"b"}, {"a"}}, []int32{0, 1, 1}, true); err != nil {
		t.Fatal(err)
	}
	if err := e.EncodeColumns(&c, [][]string{{"c"}, {"c"}}, []int32{2, 0}, true); err != nil {
		t.Fatal(err)
	}
	const L = 3
	// Unary (a, y): a@0, b@1, a@1, c@2, c@0.
	wantU := []int32{0*L + 0, 0*L + 1, 1*L + 1, 2*L + 0, 2*L + 2}
	if got := ObservedPairs(&c, L).AppendIndices(nil, c.NumUnary*L); !reflect.DeepEqual(got, wantU) {
		t.Errorf("ObservedPairs = %v, want %v", got, wantU)
	}
	// Pair (a, prev, cur): B:b with 0->1, B:a with 1->1, B:c with 2->0.
	wantP := []int32{0*L*L + 0*L + 1, 1*L*L + 1*L + 1, 2*L*L + 2*L + 0}
	if got := ObservedTriples(&c, L).AppendIndices(nil, c.NumPair*L*L); !reflect.DeepEqual(got, wantP) {
		t.Errorf("ObservedTriples = %v, want %v", got, wantP)
	}
	var u sparse.Corpus
	if err := e.EncodeColumns(&u, [][]string{{"a"}}, nil, true); err != nil {
		t.Fatal(err)
	}
	if ObservedPairs(&u, L).Count() != 0 || ObservedTriples(&u, L).Count() != 0 {
		t.Errorf("unlabeled corpus has observed pairs")
	}
}

// TestEncodeNoAllocs checks that encoding a sentence into a warm corpus with
// a frozen dictionary allocates nothing.
func TestEncodeNoAllocs(t *testing.T) {
	tm := MustCompile(handTemplate + "U10:%x[-1,0]/%x[0,0]/%x[1,0]\n")
	e := NewTemplateEncoder(tm)
	var c sparse.Corpus
	sent := append(slices.Clone(handSentence), []string{"unknown", "NN"})
	labels := []int32{0, 1, 2, 0}
	if err := e.EncodeColumns(&c, handSentence, labels[:3], true); err != nil {
		t.Fatal(err)
	}
	e.Freeze(0)
	if err := e.EncodeColumns(&c, sent, labels, false); err != nil { // warm-up
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(100, func() {
		c.Reset()
		if err := e.EncodeColumns(&c, sent, labels, false); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("EncodeColumns: %v allocations per run, want 0", allocs)
	}

	a := NewAttributeEncoder()
	var ca sparse.Corpus
	names := [][]string{{"x", "y", "x"}, {"z", "new"}}
	values := [][]float64{{1, 2, 3}, {4, 5}}
	if err := a.EncodeAttributes(&ca, names[:1], values[:1], nil, true); err != nil {
		t.Fatal(err)
	}
	a.Freeze(0)
	if err := a.EncodeAttributes(&ca, names, values, nil, false); err != nil {
		t.Fatal(err)
	}
	allocs = testing.AllocsPerRun(100, func() {
		ca.Reset()
		if err := a.EncodeAttributes(&ca, names, values, nil, false); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("EncodeAttributes: %v allocations per run, want 0", allocs)
	}

	p := NewPixelEncoder(PixelPairs | PixelCounts | PixelBias)
	var cp sparse.Corpus
	ims := [][]byte{pixelImage([2]int{0, 0}, [2]int{0, 1}), pixelImage([2]int{5, 5})}
	if err := p.EncodePixels(&cp, ims[:1], nil, true); err != nil {
		t.Fatal(err)
	}
	p.Freeze(0)
	if err := p.EncodePixels(&cp, ims, nil, false); err != nil {
		t.Fatal(err)
	}
	allocs = testing.AllocsPerRun(100, func() {
		cp.Reset()
		if err := p.EncodePixels(&cp, ims, nil, false); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("EncodePixels: %v allocations per run, want 0", allocs)
	}
}

// TestCloneConcurrent encodes from several goroutines with clones sharing
// frozen dictionaries (run with -race).
func TestCloneConcurrent(t *testing.T) {
	e := NewTemplateEncoder(MustCompile(handTemplate))
	var c sparse.Corpus
	if err := e.EncodeColumns(&c, handSentence, nil, true); err != nil {
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
				if err := ce.EncodeColumns(&out[g], handSentence, nil, false); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	for g := range out {
		if !reflect.DeepEqual(out[g].Unary, c.Unary) {
			t.Errorf("goroutine %d: different encoding", g)
		}
	}
}

func TestWrongKindPanics(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !strings.HasPrefix(r.(string), "features: ") {
			t.Errorf("panic = %v", r)
		}
	}()
	var c sparse.Corpus
	_ = NewAttributeEncoder().EncodePixels(&c, nil, nil, true)
}
