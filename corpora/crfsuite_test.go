package corpora

import (
	"bytes"
	"strings"
	"testing"
)

func TestCRFsuiteBasic(t *testing.T) {
	in := "B-NP\tw=He\tpos=PRP:0.5\n" +
		"O\n" + // a position without attributes
		"I-NP\tw\\:x\\\\y:-2e-3\t\tlast:1\r\n" +
		"\n" +
		"O\tz\n"
	seqs, err := ReadCRFsuite("a.crf", strings.NewReader(in), CRFsuiteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(seqs) != 2 {
		t.Fatalf("got %d sequences", len(seqs))
	}
	s := seqs[0]
	if s.Tokens != nil || len(s.Attrs) != 3 || !equalStrings(s.Labels, []string{"B-NP", "O", "I-NP"}) || s.Line != 1 {
		t.Fatalf("got %+v", s)
	}
	want := [][]Attr{{{"w=He", 1}, {"pos=PRP", 0.5}}, {}, {{`w:x\y`, -2e-3}, {"last", 1}}}
	for i := range want {
		if len(s.Attrs[i]) != len(want[i]) {
			t.Fatalf("position %d: got %v want %v", i, s.Attrs[i], want[i])
		}
		for j := range want[i] {
			if s.Attrs[i][j] != want[i][j] {
				t.Errorf("position %d attr %d: got %v want %v", i, j, s.Attrs[i][j], want[i][j])
			}
		}
	}
	if seqs[1].Line != 5 || len(seqs[1].Attrs) != 1 {
		t.Errorf("second: %+v", seqs[1])
	}
	un, err := ReadCRFsuite("u", strings.NewReader("a\tb:2\n"), CRFsuiteOptions{Unlabeled: true})
	if err != nil || len(un) != 1 || un[0].Labels != nil || len(un[0].Attrs[0]) != 2 || un[0].Attrs[0][1] != (Attr{"b", 2}) {
		t.Errorf("unlabeled: %+v, %v", un, err)
	}
}

func TestCRFsuiteRoundTrip(t *testing.T) {
	want := []Sequence{
		{Attrs: [][]Attr{{{"a:b", 1}, {`c\d`, 0.1}, {"e", -0.0}}, {}}, Labels: []string{"X", "Y:1"}},
		{Attrs: [][]Attr{{{"f", 1e-300}}}, Labels: []string{"Z"}},
	}
	var buf bytes.Buffer
	for _, s := range want {
		if err := WriteCRFsuite(&buf, s); err != nil {
			t.Fatal(err)
		}
	}
	got, err := ReadCRFsuite("rt", bytes.NewReader(buf.Bytes()), CRFsuiteOptions{})
	if err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	if len(got) != len(want) {
		t.Fatalf("got %d sequences", len(got))
	}
	for i := range want {
		if !equalStrings(got[i].Labels, want[i].Labels) || len(got[i].Attrs) != len(want[i].Attrs) {
			t.Fatalf("sequence %d: %+v", i, got[i])
		}
		for p := range want[i].Attrs {
			if len(got[i].Attrs[p]) != len(want[i].Attrs[p]) {
				t.Fatalf("sequence %d position %d: %v", i, p, got[i].Attrs[p])
			}
			for j, a := range want[i].Attrs[p] {
				if got[i].Attrs[p][j] != a {
					t.Errorf("sequence %d position %d attr %d: got %v want %v", i, p, j, got[i].Attrs[p][j], a)
				}
			}
		}
	}
}

func TestCRFsuiteErrors(t *testing.T) {
	cases := []struct {
		name, in  string
		opts      CRFsuiteOptions
		sentinel  error
		line, col int
	}{
		{"NaN", "B\tab:NaN\n", CRFsuiteOptions{}, ErrBadValue, 1, 6},
		{"Inf", "B\ta\nB\tab:+Inf\n", CRFsuiteOptions{}, ErrBadValue, 2, 6},
		{"overflow", "B\ta:1e400\n", CRFsuiteOptions{}, ErrBadValue, 1, 5},
		{"non-numeric", "B\tx\ty:abc\n", CRFsuiteOptions{}, ErrBadValue, 1, 7},
		{"empty value", "B\ty:\n", CRFsuiteOptions{}, ErrBadValue, 1, 5},
		{"two colons", "B\ty:1:2\n", CRFsuiteOptions{}, ErrBadValue, 1, 5},
		{"missing label", "B\ta\n\ta\n", CRFsuiteOptions{}, ErrMissingLabel, 2, 1},
		{"blank label", " \ta\n", CRFsuiteOptions{}, ErrMissingLabel, 1, 1},
		{"bad escape", "B\ta\\b\n", CRFsuiteOptions{}, ErrSyntax, 1, 4},
		{"trailing backslash", "B\tab\\\n", CRFsuiteOptions{}, ErrSyntax, 1, 5},
		{"empty name", "B\t:1\n", CRFsuiteOptions{}, ErrSyntax, 1, 3},
		{"empty file", "", CRFsuiteOptions{}, ErrEmpty, 1, 0},
		{"invalid UTF-8", "B\ta\xc3\n", CRFsuiteOptions{}, ErrInvalidUTF8, 1, 4},
		{"10 MB line", "B\ta\n" + "B\t" + strings.Repeat("x", 10<<20), CRFsuiteOptions{}, ErrLineTooLong, 2, DefaultMaxLineBytes + 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ReadCRFsuite("f.crf", strings.NewReader(c.in), c.opts)
			wantParseError(t, err, c.sentinel, "f.crf", c.line, c.col)
		})
	}
}
