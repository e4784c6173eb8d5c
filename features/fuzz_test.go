package features

import (
	"errors"
	"reflect"
	"testing"

	"github.com/sparsetag/sparsetag/sparse"
)

// FuzzCompile checks that any input either fails with a *TemplateError or
// compiles to a template whose Source() is the input and compiles again to
// an equal template, and that such a template can be applied to a short
// sentence (with enough columns, and with too few) without panicking.
// Seeds are in testdata/fuzz/FuzzCompile.
func FuzzCompile(f *testing.F) {
	f.Add(handTemplate)
	f.Add("U00:%x[0,0]\nB\n")
	f.Fuzz(func(t *testing.T, src string) {
		tm, err := Compile(src)
		if err != nil {
			var te *TemplateError
			if !errors.As(err, &te) {
				t.Fatalf("error %v is %T, want *TemplateError", err, err)
			}
			if te.Line < 1 || te.Column < 1 {
				t.Fatalf("error position %d:%d", te.Line, te.Column)
			}
			return
		}
		if tm.Source() != src {
			t.Fatalf("Source() = %q, want %q", tm.Source(), src)
		}
		tm2, err := Compile(tm.Source())
		if err != nil {
			t.Fatalf("recompiling Source(): %v", err)
		}
		if !reflect.DeepEqual(tm, tm2) {
			t.Fatalf("recompiled template differs")
		}
		if tm.Columns() > 8 {
			return // keep the sentence small
		}
		tok := make([]string, tm.Columns())
		for c := range tok {
			tok[c] = string(rune('a' + c))
		}
		sent := [][]string{tok, tok, tok}
		e := NewTemplateEncoder(tm)
		if tm.HasVectors() { // %v reads word vectors: give it some
			emb, err := NewEmbeddings([]string{"a", "b"}, []float64{1, -1, 0.5, 2}, 2)
			if err == nil {
				e, err = WithValued(e, Valued{Embeddings: emb})
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		var c sparse.Corpus
		if err := e.Encode(&c, Columns(sent), []int32{0, 1, 0}, true); err != nil {
			t.Fatalf("EncodeColumns: %v", err)
		}
		if err := c.Validate(2); err != nil {
			t.Fatal(err)
		}
		if tm.Columns() > 0 {
			narrow := [][]string{make([]string, tm.Columns()-1)}
			if err := e.Encode(&c, Columns(narrow), []int32{0}, true); err == nil {
				t.Fatalf("too few columns: no error")
			}
		}
	})
}
