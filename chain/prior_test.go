package chain

import (
	"slices"
	"testing"

	"github.com/sparsetag/sparsetag/features"
)

// TestWithPrior: the prior's layout keeps the new model's ids and appends
// the labels and attributes only the old model has; w0 holds the old
// weights by name, zero for what the old model lacks.
func TestWithPrior(t *testing.T) {
	enc := func(unary ...string) *features.Encoder {
		e, err := features.NewEncoderFrom(features.KindAttributes, "", 0, unary, nil)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	old, err := NewModel([]string{"A", "B"}, 2, 0, true, enc("x", "y"))
	if err != nil {
		t.Fatal(err)
	}
	for j := range old.W {
		old.W[j] = float64(j + 1)
	}
	m, err := NewModel([]string{"B", "C"}, 2, 0, true, enc("y", "z"))
	if err != nil {
		t.Fatal(err)
	}
	p, w0, err := m.WithPrior(old)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"B", "C", "A"}; !slices.Equal(p.Labels, want) {
		t.Fatalf("labels %v, want %v", p.Labels, want)
	}
	if got, want := p.Encoder.Unary().Names(), []string{"y", "z", "x"}; !slices.Equal(got, want) {
		t.Fatalf("attributes %v, want %v", got, want)
	}
	at := func(a, y string) float64 { // w0 of (a, y) in the prior's layout
		return w0[p.Layout.StateIndex(int(must(p.Encoder.Unary().ID(a))), p.LabelID(y))]
	}
	for _, a := range []string{"x", "y"} {
		for _, y := range []string{"A", "B"} {
			if got, want := at(a, y), old.W[old.Layout.StateIndex(int(must(old.Encoder.Unary().ID(a))), old.LabelID(y))]; got != want {
				t.Errorf("w0[%s, %s] = %v, want %v", a, y, got, want)
			}
		}
	}
	if got := at("z", "A"); got != 0 {
		t.Errorf("w0[z, A] = %v: an attribute the old model lacks must start at 0", got)
	}
	if got := at("y", "C"); got != 0 {
		t.Errorf("w0[y, C] = %v: a label the old model lacks must start at 0", got)
	}
	if got, want := w0[p.Layout.TransIndex(p.LabelID("A"), p.LabelID("B"))], old.W[old.Layout.TransIndex(0, 1)]; got != want {
		t.Errorf("w0[A -> B] = %v, want %v", got, want)
	}
	other, _ := NewModel([]string{"A"}, 1, 0, true, enc("q"))
	if _, _, err := other.WithPrior(old); err == nil {
		t.Error("models sharing no attribute: no error")
	}
}

func must(id int32, ok bool) int32 {
	if !ok {
		panic("unknown attribute")
	}
	return id
}
