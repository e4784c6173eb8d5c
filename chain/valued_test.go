package chain

import (
	"bytes"
	"encoding/binary"
	"maps"
	"slices"
	"testing"

	"github.com/sparsetag/sparsetag/features"
	"github.com/sparsetag/sparsetag/sparse"
)

// valuedModel returns a model whose encoder has a valued column and word
// vectors, with a few non-zero weights on each kind of attribute, and the
// input it was built from.
func valuedModel(t testing.TB) (*Model, features.Columns) {
	t.Helper()
	emb, err := features.NewEmbeddings([]string{"the", "Dog", "cat"}, []float64{1, -2, 0, 4, 0.5, 0}, 2)
	if err != nil {
		t.Fatal(err)
	}
	enc, err := features.WithValued(features.NewTemplateEncoder(features.MustCompile("U00:%x[0,0]\nU01:%x[0,1]\nUV:%v[0,0]\nB\n")),
		features.Valued{Columns: []int{1}, Embeddings: emb})
	if err != nil {
		t.Fatal(err)
	}
	in := features.Columns{{"the", "a:2"}, {"dog", "b:-1"}, {"cat", "a:0.5"}}
	if err := enc.Encode(&sparse.Corpus{}, in, nil, true); err != nil {
		t.Fatal(err)
	}
	enc.Freeze(0)
	m, err := NewModel([]string{"X", "Y"}, enc.Unary().Len(), 0, true, enc)
	if err != nil {
		t.Fatal(err)
	}
	for a := range enc.Unary().Len() {
		if a%2 == 0 {
			m.W[m.Layout.StateIndex(a, a%2)] = float64(a) - 2.5
		}
	}
	m.W[m.Layout.TransIndex(0, 1)] = 0.5
	return m, in
}

// valuedModelBytes returns the file bytes of valuedModel.
func valuedModelBytes(t testing.TB) []byte {
	m, _ := valuedModel(t)
	data, err := m.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// rowsByName encodes in with enc (frozen) and returns each row as
// attribute name → value.
func rowsByName(t *testing.T, enc *features.Encoder, in features.Input) []map[string]float64 {
	t.Helper()
	var c sparse.Corpus
	if err := enc.Encode(&c, in, nil, false); err != nil {
		t.Fatal(err)
	}
	var out []map[string]float64
	for r := range c.Positions() {
		cols, vals := c.Unary.Row(r)
		row := map[string]float64{}
		for k, a := range cols {
			row[enc.Unary().Name(a)] = vals[k]
		}
		out = append(out, row)
	}
	return out
}

// TestValuedModelFile: a model with a valued encoder is written as version
// 3, reloads with the same valued columns and the same vectors bit for
// bit, re-encodes to the same bytes and gives the same rows (for the
// attributes compaction keeps); truncated files and the same bytes
// labelled version 2 are refused.
func TestValuedModelFile(t *testing.T) {
	m, in := valuedModel(t)
	data, err := m.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if v := binary.LittleEndian.Uint32(data[8:]); v != valuedVersion {
		t.Fatalf("written as version %d, want %d", v, valuedVersion)
	}
	got, err := ReadModel(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	again, err := got.MarshalBinary()
	if err != nil || !bytes.Equal(again, data) {
		t.Fatalf("reloaded model re-encodes differently (%v)", err)
	}
	gv, wv := got.Encoder.Valued(), m.Encoder.Valued()
	if !slices.Equal(gv.Columns, wv.Columns) || gv.Embeddings.Len() != wv.Embeddings.Len() {
		t.Fatalf("valued part %v, want %v", gv, wv)
	}
	for i := range wv.Embeddings.Len() {
		if gv.Embeddings.Word(i) != wv.Embeddings.Word(i) || !sameBits(gv.Embeddings.Vector(i), wv.Embeddings.Vector(i)) {
			t.Fatalf("word %d: %q %v, want %q %v", i, gv.Embeddings.Word(i), gv.Embeddings.Vector(i), wv.Embeddings.Word(i), wv.Embeddings.Vector(i))
		}
	}
	want := rowsByName(t, m.Encoder, in)
	for r, row := range rowsByName(t, got.Encoder, in) {
		if !maps.Equal(row, maps.Collect(func(yield func(string, float64) bool) {
			for name, v := range want[r] {
				if _, kept := got.Encoder.Unary().ID(name); kept && !yield(name, v) {
					return
				}
			}
		})) {
			t.Errorf("row %d: %v, want the kept part of %v", r, row, want[r])
		}
	}
	for n := range len(data) {
		if _, err := ReadModel(bytes.NewReader(data[:n])); err == nil {
			t.Fatalf("prefix of %d bytes loaded", n)
		}
	}
	v2 := slices.Clone(data)
	binary.LittleEndian.PutUint32(v2[8:], plainVersion)
	if _, err := ReadModel(bytes.NewReader(v2)); err == nil {
		t.Fatal("a valued model labelled version 2 loaded")
	}
	if _, err := m.encodeFile(plainVersion); err == nil {
		t.Fatal("a valued model was written as version 2")
	}
}
