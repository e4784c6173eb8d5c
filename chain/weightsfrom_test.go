package chain

import (
	"strings"
	"testing"

	"github.com/sparsetag/sparsetag/features"
	"github.com/sparsetag/sparsetag/sparse"
)

// encodedModel returns a model of the given labels whose encoder has seen
// the attribute names of one sequence (an attribute encoder, or a
// template encoder of template over the columns).
func encodedModel(t *testing.T, labels []string, enc *features.Encoder, in features.Input) *Model {
	t.Helper()
	var c sparse.Corpus
	if err := enc.Encode(&c, in, make([]int32, in.Len()), true); err != nil {
		t.Fatal(err)
	}
	enc.Freeze(0)
	m, err := NewModel(labels, enc.Unary().Len(), enc.Pair().Len(), true, enc)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestCheckWeightsFrom: a model can start from another that shares a label
// and an attribute (labels in any order, some only in one of them); no
// shared label, another input kind or no shared attribute are refused with
// what differs.
func TestCheckWeightsFrom(t *testing.T) {
	attrs := func(names ...string) features.Attributes {
		return features.Attributes{Names: [][]string{names}, Values: [][]float64{nil}}
	}
	labels := []string{"B-NP", "I-NP", "O"}
	base := encodedModel(t, labels, features.NewAttributeEncoder(), attrs("w=the", "w=cat"))
	for _, c := range []struct {
		name string
		m    *Model
		want string // "" : accepted
	}{
		{"same labels reordered, one shared attribute", encodedModel(t, []string{"O", "B-NP", "I-NP"}, features.NewAttributeEncoder(), attrs("w=the", "w=dog")), ""},
		{"a label more and one less", encodedModel(t, []string{"B-NP", "I-NP", "B-VP"}, features.NewAttributeEncoder(), attrs("w=the")), ""},
		{"no shared label", encodedModel(t, []string{"B-VP", "I-VP"}, features.NewAttributeEncoder(), attrs("w=the")),
			"share no label (new: B-VP, I-VP; initial: B-NP, I-NP, O)"},
		{"no shared attribute", encodedModel(t, labels, features.NewAttributeEncoder(), attrs("pos=DT")),
			`share no attribute (new: 1, e.g. "pos=DT"; initial: 2, e.g. "w=the")`},
		{"another input kind", encodedModel(t, labels, features.NewTemplateEncoder(features.MustCompile("U00:%x[0,0]\n")), features.Columns{{"the"}}),
			"reads template input, the initial model attributes input"},
	} {
		err := c.m.CheckWeightsFrom(base)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: err = %v, want one with %q", c.name, err, c.want)
		}
	}
}

// TestWeightsFromOtherLabels: with label sets that overlap, WeightsFrom
// copies every weight of a shared label (and the transitions between
// shared labels) by name, starts a new label's weights at zero and drops
// the old model's other labels, which LabelChanges names.
func TestWeightsFromOtherLabels(t *testing.T) {
	attrs := features.Attributes{Names: [][]string{{"w=the", "w=cat"}}, Values: [][]float64{nil}}
	old := encodedModel(t, []string{"B-NP", "I-NP", "O"}, features.NewAttributeEncoder(), attrs)
	for i := range old.W {
		old.W[i] = float64(i + 1)
	}
	m := encodedModel(t, []string{"B-VP", "O", "B-NP"}, features.NewAttributeEncoder(), attrs)
	onlyNew, onlyOld := m.LabelChanges(old)
	if strings.Join(onlyNew, ",") != "B-VP" || strings.Join(onlyOld, ",") != "I-NP" {
		t.Fatalf("LabelChanges = %v, %v; want [B-VP], [I-NP]", onlyNew, onlyOld)
	}
	w := m.WeightsFrom(old)
	for a := 0; a < m.Layout.NumUnary; a++ {
		for y, name := range m.Labels {
			want := 0.0
			if oy := old.LabelID(name); oy >= 0 {
				want = old.W[old.Layout.StateIndex(a, oy)]
			}
			if got := w[m.Layout.StateIndex(a, y)]; got != want {
				t.Errorf("state (%d, %s) = %v, want %v", a, name, got, want)
			}
		}
	}
	for p, pn := range m.Labels {
		for q, qn := range m.Labels {
			want := 0.0
			if op, oq := old.LabelID(pn), old.LabelID(qn); op >= 0 && oq >= 0 {
				want = old.W[old.Layout.TransIndex(op, oq)]
			}
			if got := w[m.Layout.TransIndex(p, q)]; got != want {
				t.Errorf("trans (%s, %s) = %v, want %v", pn, qn, got, want)
			}
		}
	}
}
