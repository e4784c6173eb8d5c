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

// TestCheckWeightsFrom: a model can start from another with the same labels
// (in any order) and a shared attribute; other labels, another input kind
// or no shared attribute are refused with what differs.
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
		{"a label more and one less", encodedModel(t, []string{"B-NP", "I-NP", "B-VP"}, features.NewAttributeEncoder(), attrs("w=the")),
			"only the new model has B-VP; only the initial model has O"},
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
