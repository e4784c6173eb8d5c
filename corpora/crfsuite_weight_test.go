package corpora

import (
	"strings"
	"testing"
)

// TestCRFsuiteWeight: a @weight:w line weighs the sequence it is in
// (CRFsuite's frontend/reader.c), wherever it stands in the sequence, and
// is never read as a position; it round-trips through WriteCRFsuite.
func TestCRFsuiteWeight(t *testing.T) {
	in := "@weight:3\nB-NP\tw=He\nB-VP\tw=runs\n\nB-NP\tw=It\n@weight:0.5\n\nO\tw=.\n"
	for _, opts := range []CRFsuiteOptions{{}, {IgnoreLabels: true}, {Unlabeled: true}} {
		seqs, err := ReadCRFsuite("f", strings.NewReader(in), opts)
		if err != nil {
			t.Fatal(err)
		}
		if len(seqs) != 3 {
			t.Fatalf("%+v: %d sequences, want 3", opts, len(seqs))
		}
		for i, want := range []float64{3, 0.5, 0} {
			if seqs[i].Weight != want {
				t.Errorf("%+v: sequence %d: weight %g, want %g", opts, i, seqs[i].Weight, want)
			}
		}
		if len(seqs[0].Attrs) != 2 || len(seqs[1].Attrs) != 1 {
			t.Errorf("%+v: the @weight line was read as a position: %v", opts, seqs[0].Attrs)
		}
		if opts == (CRFsuiteOptions{}) && (seqs[0].Labels[0] != "B-NP" || seqs[0].Line != 2) {
			t.Errorf("labels %v, line %d", seqs[0].Labels, seqs[0].Line)
		}
	}
	seqs, _ := ReadCRFsuite("f", strings.NewReader(in), CRFsuiteOptions{})
	var b strings.Builder
	for _, s := range seqs {
		if err := WriteCRFsuite(&b, s); err != nil {
			t.Fatal(err)
		}
	}
	back, err := ReadCRFsuite("g", strings.NewReader(b.String()), CRFsuiteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range seqs {
		if back[i].Weight != seqs[i].Weight {
			t.Errorf("round trip: sequence %d weight %g, want %g", i, back[i].Weight, seqs[i].Weight)
		}
	}
	if err := WriteCRFsuite(&b, Sequence{Attrs: [][]Attr{{{Name: "x", Value: 1}}}, Labels: []string{"@weight:2"}}); err == nil {
		t.Error("WriteCRFsuite wrote a label that reads back as a declaration")
	}
}

// TestCRFsuiteWeightErrors: zero, negative, NaN, infinite and absurd
// weights, unknown declarations and misplaced ones are errors naming file,
// line and column.
func TestCRFsuiteWeightErrors(t *testing.T) {
	for _, c := range []struct {
		name, in  string
		sentinel  error
		line, col int
	}{
		{"zero", "B\ta\n@weight:0\n", ErrBadValue, 2, 9},
		{"negative", "@weight:-2\nB\ta\n", ErrBadValue, 1, 9},
		{"NaN", "B\ta\n\n@weight:NaN\nB\ta\n", ErrBadValue, 3, 9},
		{"Inf", "@weight:+Inf\nB\ta\n", ErrBadValue, 1, 9},
		{"text", "@weight:heavy\nB\ta\n", ErrBadValue, 1, 9},
		{"absurd", "@weight:1e300\nB\ta\n", ErrBadValue, 1, 9},
		{"no value", "@weight\nB\ta\n", ErrSyntax, 1, 1},
		{"unknown", "@group:1\nB\ta\n", ErrSyntax, 1, 1},
		{"not alone", "@weight:2\tx\nB\ta\n", ErrSyntax, 1, 10},
		{"twice", "@weight:2\nB\ta\n@weight:3\n", ErrSyntax, 3, 1},
		{"no sequence", "B\ta\n\n@weight:2\n\nB\tb\n", ErrSyntax, 4, 1},
		{"at the end", "B\ta\n\n@weight:2\n", ErrSyntax, 3, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ReadCRFsuite("w.crf", strings.NewReader(c.in), CRFsuiteOptions{})
			wantParseError(t, err, c.sentinel, "w.crf", c.line, c.col)
		})
	}
}
