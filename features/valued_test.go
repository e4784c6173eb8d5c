package features

import (
	"bytes"
	"compress/gzip"
	"maps"
	"strings"
	"testing"

	"github.com/sparsetag/sparsetag/sparse"
)

// rowMap returns row r of m as attribute name → value.
func rowMap(m *sparse.Matrix, d *Dictionary, r int) map[string]float64 {
	cols, vals := m.Row(r)
	out := make(map[string]float64, len(cols))
	for k, c := range cols {
		v := 1.0
		if vals != nil {
			v = vals[k]
		}
		out[d.Name(c)] = v
	}
	return out
}

func mustValued(t *testing.T, src string, v Valued) *Encoder {
	t.Helper()
	e, err := WithValued(NewTemplateEncoder(MustCompile(src)), v)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestParseItem(t *testing.T) {
	for _, c := range []struct {
		cell string
		name string
		v    float64
	}{
		{"a:2", "a", 2}, {"a", "a", 1}, {"a:-0.5", "a", -0.5}, {`a\:b:3`, "a:b", 3}, {`a\\:4`, `a\`, 4}, {"a:1:2", "", 0},
	} {
		name, v, err := parseItem(c.cell)
		if c.name == "" {
			if err == nil {
				t.Errorf("%q: no error", c.cell)
			}
			continue
		}
		if err != nil || name != c.name || v != c.v {
			t.Errorf("%q: got %q %v %v, want %q %v", c.cell, name, v, err, c.name, c.v)
		}
	}
	for _, bad := range []string{":2", "a:x", "a:NaN", "a:Inf", `a\b:1`, `a\`} {
		if _, _, err := parseItem(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// TestValuedColumns checks the expansion rules of Valued on a hand-made
// sequence: names replace the cells, values multiply, boundaries have
// value 1, zero values drop the attribute and derived macros carry the
// value of their column.
func TestValuedColumns(t *testing.T) {
	e := mustValued(t, "U00:%x[0,0]\nU01:%x[0,1]\nU02:%x[-1,1]/%x[0,1]\nU03:%l[0,1]\nU04:%x[0,0]\nB\n", Valued{Columns: []int{1}})
	var c sparse.Corpus
	in := Columns{{"the", "Pos:2"}, {"dog", `a\:b:-1.5`}, {"ran", "z:0"}}
	if err := e.Encode(&c, in, nil, true); err != nil {
		t.Fatal(err)
	}
	want := []map[string]float64{
		{"U00:the": 1, "U01:Pos": 2, "U02:_B-1/Pos": 2, "U03:pos": 2, "U04:the": 1},
		{"U00:dog": 1, "U01:a:b": -1.5, "U02:Pos/a:b": -3, "U03:a:b": -1.5, "U04:dog": 1},
		{"U00:ran": 1, "U04:ran": 1}, // z:0: every line reading it is dropped
	}
	for r := range want {
		if got := rowMap(&c.Unary, e.Unary(), r); !maps.Equal(got, want[r]) {
			t.Errorf("row %d: got %v, want %v", r, got, want[r])
		}
	}
	if err := c.Validate(0); err != nil {
		t.Fatal(err)
	}
	// Frozen: the same rows for known attributes.
	e.Freeze(0)
	var f sparse.Corpus
	if err := e.Encode(&f, in, nil, false); err != nil {
		t.Fatal(err)
	}
	for r := range want {
		if got := rowMap(&f.Unary, e.Unary(), r); !maps.Equal(got, want[r]) {
			t.Errorf("frozen row %d: got %v, want %v", r, got, want[r])
		}
	}
	var bad sparse.Corpus
	if err := e.Encode(&bad, Columns{{"x", "a:b:c"}}, nil, false); err == nil || !strings.Contains(err.Error(), "token 1, column 2 (counting from 1)") {
		t.Errorf("bad item: got %v", err)
	}
	if bad.Positions() != 0 {
		t.Error("failed encode changed the corpus")
	}
}

func testEmbeddings(t *testing.T) *Embeddings {
	t.Helper()
	m, err := NewEmbeddings([]string{"the", "Dog", "cat"}, []float64{1, -2, 0, 4, 0.5, 0}, 2)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestVectors checks %v: D attributes per word, scaled by the max-abs
// value, zero coordinates and unknown words give none, lower-case
// fallback, offsets outside the sequence give none.
func TestVectors(t *testing.T) {
	m := testEmbeddings(t)
	if m.Scale() != 4 || m.Dim() != 2 || m.Len() != 3 {
		t.Fatalf("scale %v dim %d len %d", m.Scale(), m.Dim(), m.Len())
	}
	e := mustValued(t, "U00:%x[0,0]\nUV:%v[0,0]\nUP:%v[-1,0]/%x[0,1]\n", Valued{Columns: []int{1}, Embeddings: m})
	var c sparse.Corpus
	in := Columns{{"The", "a:2"}, {"dog", "b:3"}, {"emu", "c:1"}}
	if err := e.Encode(&c, in, nil, true); err != nil {
		t.Fatal(err)
	}
	want := []map[string]float64{
		{"U00:The": 1, "UV:0": 0.25, "UV:1": -0.5},
		{"U00:dog": 1, "UV:1": 1, "UP:0/b": 0.75, "UP:1/b": -1.5},
		{"U00:emu": 1, "UP:1/c": 1}, // emu is unknown; the previous word dog is found lower-cased (Dog)
	}
	for r := range want {
		if got := rowMap(&c.Unary, e.Unary(), r); !maps.Equal(got, want[r]) {
			t.Errorf("row %d: got %v, want %v", r, got, want[r])
		}
	}
	if v := m.Lookup("CAT"); v == nil || v[0] != 0.125 {
		t.Errorf("Lookup(CAT) = %v", v)
	}
}

func TestValuedErrors(t *testing.T) {
	for _, src := range []string{"B:%v[0,0]\n", "U:%v[0,0]%v[1,0]\n"} {
		if _, err := Compile(src); err == nil {
			t.Errorf("%q compiled", src)
		}
	}
	plain := NewTemplateEncoder(MustCompile("U:%x[0,0]\n"))
	vec := NewTemplateEncoder(MustCompile("U:%v[0,0]\n"))
	m := testEmbeddings(t)
	for name, v := range map[string]struct {
		e *Encoder
		v Valued
	}{
		"column out of range":  {plain, Valued{Columns: []int{1}}},
		"columns not sorted":   {NewTemplateEncoder(MustCompile("U:%x[0,1]\n")), Valued{Columns: []int{1, 0}}},
		"embeddings, no %v":    {plain, Valued{Embeddings: m}},
		"%v without embedding": {vec, Valued{Columns: []int{0}}},
		"attributes encoder":   {NewAttributeEncoder(), Valued{Embeddings: m}},
	} {
		if _, err := WithValued(v.e, v.v); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	var c sparse.Corpus
	if err := vec.Encode(&c, Columns{{"the"}}, nil, true); err == nil || !strings.Contains(err.Error(), "no embeddings") {
		t.Errorf("%%v without embeddings: got %v", err)
	}
	if same, err := WithValued(plain, Valued{}); err != nil || same != plain {
		t.Error("a zero Valued must return the encoder itself")
	}
}

func TestReadEmbeddings(t *testing.T) {
	text := "3 2\nthe 1 -2\ndog 0 4\nthe 9 9\n"
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(text))
	zw.Close()
	for name, in := range map[string][]byte{"plain": []byte(text), "gzip": gz.Bytes(), "no header": []byte(text[4:])} {
		m, err := ReadEmbeddings(bytes.NewReader(in), "v.txt")
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if m.Len() != 2 || m.Dim() != 2 || m.Vector(0)[1] != -0.5 || m.Vector(1)[1] != 1 {
			t.Errorf("%s: got %d words, %v %v", name, m.Len(), m.Vector(0), m.Vector(1))
		}
	}
	for in, want := range map[string]string{
		"the 1 2\ndog 3\n":     "v.txt:2: 1 values",
		"5 2\nthe 1 2\n":       "declares 5 words",
		"the 1 x\n":            "v.txt:1: word \"the\": value \"x\"",
		"the\n":                "without a vector",
		"":                     "no word vectors",
		"the 1 2\n\ndog 1 2\n": "v.txt:2: empty line",
		"the 1e999 2\ndog 1 2": "not a finite number",
	} {
		_, err := ReadEmbeddings(strings.NewReader(in), "v.txt")
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want %q", in, err, want)
		}
	}
}

// TestValuedNoAllocs: encoding a sequence with valued columns and vectors
// into a reused corpus with frozen dictionaries allocates nothing.
func TestValuedNoAllocs(t *testing.T) {
	e := mustValued(t, "U00:%x[0,0]\nU01:%x[0,1]\nUV:%v[0,0]\nUW:%v[1,0]\n", Valued{Columns: []int{1}, Embeddings: testEmbeddings(t)})
	in := Columns{{"The", "a:2"}, {"DOG", "b:3"}, {"emu", "c:1"}}
	var c sparse.Corpus
	if err := e.Encode(&c, in, nil, true); err != nil {
		t.Fatal(err)
	}
	e.Freeze(0)
	allocs := testing.AllocsPerRun(100, func() {
		c.Reset()
		if err := e.Encode(&c, in, nil, false); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per encode, want 0", allocs)
	}
}

// TestValuedClonesConcurrent: clones of a frozen valued encoder share the
// vectors and encode concurrently to the same rows (run with -race).
func TestValuedClonesConcurrent(t *testing.T) {
	e := mustValued(t, "U00:%x[0,0]\nU01:%x[0,1]\nUV:%v[0,0]\n", Valued{Columns: []int{1}, Embeddings: testEmbeddings(t)})
	in := Columns{{"The", "a:2"}, {"DOG", "b:3"}, {"emu", "c:1"}}
	var want sparse.Corpus
	if err := e.Encode(&want, in, nil, true); err != nil {
		t.Fatal(err)
	}
	e.Freeze(0)
	got := make([]sparse.Corpus, 4)
	done := make(chan error, len(got))
	for g := range got {
		go func() {
			c := e.Clone()
			var err error
			for range 50 {
				got[g].Reset()
				if err = c.Encode(&got[g], in, nil, false); err != nil {
					break
				}
			}
			done <- err
		}()
	}
	for range got {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	for g := range got {
		for r := range want.Positions() {
			if w, h := rowMap(&want.Unary, e.Unary(), r), rowMap(&got[g].Unary, e.Unary(), r); !maps.Equal(w, h) {
				t.Fatalf("clone %d, row %d: %v, want %v", g, r, h, w)
			}
		}
	}
}
