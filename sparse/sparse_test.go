package sparse

import "testing"

func TestCorpusAppendAndValidate(t *testing.T) {
	var c Corpus
	c.NumUnary = 3
	c.AppendSequence([][]int32{{0, 2}, {1}}, nil, nil, nil, []int32{0, 1})
	c.AppendSequence([][]int32{{2}}, [][]float64{{0.5}}, nil, nil, []int32{1})
	if c.Len() != 2 || c.Positions() != 3 || c.MaxLen() != 2 {
		t.Fatalf("Len %d Positions %d MaxLen %d, want 2 3 2", c.Len(), c.Positions(), c.MaxLen())
	}
	if err := c.Validate(2); err != nil {
		t.Fatal(err)
	}
	// The first rows were binary: switching to values back-fills ones.
	cols, vals := c.Unary.Row(0)
	if len(cols) != 2 || vals[0] != 1 || vals[1] != 1 {
		t.Fatalf("row 0 = %v %v", cols, vals)
	}
	if _, v := c.Unary.Row(2); v[0] != 0.5 {
		t.Fatalf("row 2 value %v, want 0.5", v)
	}
	if start, n := c.Span(1); start != 2 || n != 1 {
		t.Fatalf("Span(1) = %d,%d", start, n)
	}
	if err := c.Validate(1); err == nil {
		t.Fatal("label 1 accepted with 1 label")
	}
	c.Unary.Col[0] = 7
	if err := c.Validate(2); err == nil {
		t.Fatal("attribute 7 accepted with 3 attributes")
	}
	c.Reset()
	if c.Len() != 0 || c.Positions() != 0 {
		t.Fatal("Reset did not empty the corpus")
	}
}

func TestBitsetAndRemap(t *testing.T) {
	b := NewBitset(130)
	for _, i := range []int{0, 64, 129} {
		b.Set(i)
	}
	b.Clear(64)
	if b.Count() != 2 || !b.Has(129) || b.Has(64) {
		t.Fatalf("bitset wrong: %v", b)
	}
	idx := b.AppendIndices(nil, 130)
	if len(idx) != 2 || idx[0] != 0 || idx[1] != 129 {
		t.Fatalf("indices %v", idx)
	}
	src := []float64{10, 11, 12, 13}
	keep := []int32{1, 3}
	got := Gather(make([]float64, 2), src, keep)
	if got[0] != 11 || got[1] != 13 {
		t.Fatalf("Gather = %v", got)
	}
	dst := make([]float64, 4)
	Scatter(dst, got, keep)
	if dst[1] != 11 || dst[3] != 13 || dst[0] != 0 {
		t.Fatalf("Scatter = %v", dst)
	}
	if c := Compact(src, keep); len(c) != 2 || c[0] != 11 || c[1] != 13 {
		t.Fatalf("Compact = %v", c)
	}
}
