package corpora

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCRFsuiteBasic(t *testing.T) {
	in := "B-NP\tw=He\tpos=PRP:0.5\n" +
		"O\n" + // a position without attributes
		"I-NP\tw\\:x\\\\y:-2e-3\t\tlast:1\r\n" +
		"\n" +
		"O\tz\n"
	seqs, err := ReadCRFsuite("a.crf", strings.NewReader(in), CRFsuiteOptions{})
	require.NoError(t, err)
	require.Len(t, seqs, 2)
	s := seqs[0]
	require.Nil(t, s.Tokens)
	require.Len(t, s.Attrs, 3)
	require.Equal(t, []string{"B-NP", "O", "I-NP"}, s.Labels)
	require.Equal(t, 1, s.Line)
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
	assert.Equal(t, 5, seqs[1].Line, "second")
	assert.Len(t, seqs[1].Attrs, 1, "second")
	un, err := ReadCRFsuite("u", strings.NewReader("a\tb:2\n"), CRFsuiteOptions{Unlabeled: true})
	require.NoError(t, err, "unlabeled")
	require.Len(t, un, 1, "unlabeled")
	assert.Nil(t, un[0].Labels, "unlabeled")
	require.Len(t, un[0].Attrs[0], 2, "unlabeled")
	assert.Equal(t, Attr{"b", 2}, un[0].Attrs[0][1], "unlabeled")
}

// TestCRFsuiteIgnoreLabels checks that IgnoreLabels reads the attributes
// of a file exactly as the labeled reader does, whatever the label field
// holds (a label, nothing, or a string that looks like an attribute), as
// crfsuite tag reads its input, and leaves Labels nil.
func TestCRFsuiteIgnoreLabels(t *testing.T) {
	labeled := "B-NP\tw=He\tpos=PRP:0.5\nO\n\nI-NP\tz\n"
	unknown := "\tw=He\tpos=PRP:0.5\nw=x:3\n\n \tz\n" // empty, attribute-like and blank labels
	want, err := ReadCRFsuite("l", strings.NewReader(labeled), CRFsuiteOptions{})
	require.NoError(t, err)
	for _, in := range []string{labeled, unknown} {
		got, err := ReadCRFsuite("i", strings.NewReader(in), CRFsuiteOptions{IgnoreLabels: true})
		require.NoError(t, err, "%q", in)
		require.Len(t, got, len(want), "%q", in)
		for i := range want {
			assert.Nil(t, got[i].Labels, "%q", in)
			assert.Equal(t, want[i].Attrs, got[i].Attrs, "%q sequence %d", in, i)
			assert.Equal(t, want[i].Line, got[i].Line, "%q sequence %d", in, i)
		}
	}
	// Unlabeled takes precedence: the first field is an attribute.
	un, err := ReadCRFsuite("u", strings.NewReader("a\tb\n"), CRFsuiteOptions{Unlabeled: true, IgnoreLabels: true})
	require.NoError(t, err)
	assert.Equal(t, [][]Attr{{{"a", 1}, {"b", 1}}}, un[0].Attrs)
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
	require.Len(t, got, len(want))
	for i := range want {
		require.Equal(t, want[i].Labels, got[i].Labels, "sequence %d", i)
		require.Len(t, got[i].Attrs, len(want[i].Attrs), "sequence %d", i)
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

// TestCRFsuiteBOM: a label that starts with a byte-order mark after the
// first line (a second file concatenated to the first) is a positioned
// error; an attribute name that starts with one is ordinary and round-trips;
// the writer refuses a BOM only where it would open a line.
func TestCRFsuiteBOM(t *testing.T) {
	_, err := ReadCRFsuite("f", strings.NewReader("a\tx\n\n\ufeffb\ty\n"), CRFsuiteOptions{})
	var pe *ParseError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, 3, pe.Line)
	assert.Contains(t, err.Error(), "byte-order mark")

	seqs, err := ReadCRFsuite("f", strings.NewReader("\ufeffa\t\ufeffx\n"), CRFsuiteOptions{})
	require.NoError(t, err)
	require.Equal(t, []string{"a"}, seqs[0].Labels, "the BOM opening the file is skipped")
	require.Equal(t, "\ufeffx", seqs[0].Attrs[0][0].Name)
	var buf bytes.Buffer
	require.NoError(t, WriteCRFsuite(&buf, seqs[0]))
	again, err := ReadCRFsuite("f", &buf, CRFsuiteOptions{})
	require.NoError(t, err)
	require.Equal(t, seqs[0].Attrs, again[0].Attrs)

	assert.Error(t, WriteCRFsuite(io.Discard, Sequence{Labels: []string{"\ufeffb"}, Attrs: [][]Attr{{{Name: "x", Value: 1}}}}))
	assert.Error(t, WriteCRFsuite(io.Discard, Sequence{Attrs: [][]Attr{{{Name: "\ufeffx", Value: 1}}}}))
	assert.NoError(t, WriteCRFsuite(io.Discard, Sequence{Attrs: [][]Attr{{{Name: "x", Value: 1}, {Name: "\ufeffy", Value: 2}}}}))
}
