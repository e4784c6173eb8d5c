package features

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sparsetag/sparsetag/sparse"
)

// handTemplate exercises several macros per line, literal text between
// macros, offsets beyond both ends, a macro-free U line, the bare B line and
// an observation-conditioned B line.
const handTemplate = `# comment line
U00:%x[-2,0]
U01:%x[1,0]/%x[0,1]

U02:%x[3,1]x%x[-3,0]
U03
B
B01:%x[0,0]/%x[-1,0]
`

var handSentence = [][]string{
	{"He", "PRP"},
	{"reckons", "VBZ"},
	{"the", "DT"},
}

// TestExpandByHand checks the expansion against strings written out by hand
// from the CRF++ rules: offset i = t+row; i < 0 gives "_B-<-i>", i >= T gives
// "_B+<i-T+1>".
func TestExpandByHand(t *testing.T) {
	tm := MustCompile(handTemplate)
	want := []struct {
		unary, pair []string
	}{
		{ // t = 0
			unary: []string{"U00:_B-2", "U01:reckons/PRP", "U02:_B+1x_B-3", "U03"},
		},
		{ // t = 1
			unary: []string{"U00:_B-1", "U01:the/VBZ", "U02:_B+2x_B-2", "U03"},
			pair:  []string{"B01:reckons/He"},
		},
		{ // t = 2
			unary: []string{"U00:He", "U01:_B+1/DT", "U02:_B+3x_B-1", "U03"},
			pair:  []string{"B01:the/reckons"},
		},
	}
	for pos, w := range want {
		u, p, err := tm.Expand(handSentence, pos)
		require.NoError(t, err, "position %d", pos)
		assert.Equal(t, w.unary, u, "position %d unary", pos)
		assert.Equal(t, w.pair, p, "position %d pair", pos)
	}
	assert.True(t, tm.HasTransitions(), "HasTransitions")
	assert.Equal(t, 4, tm.NumUnary(), "NumUnary")
	assert.Equal(t, 1, tm.NumPair(), "NumPair")
	assert.Equal(t, 2, tm.Columns(), "Columns")
	assert.Equal(t, handTemplate, tm.Source(), "Source() differs from the compiled text")
	_, _, err := tm.Expand(handSentence, 3)
	assert.Error(t, err, "Expand at position 3 of 3")
}

func TestCompileBlanksAndCRLF(t *testing.T) {
	src := "  U00:%x[0,0]  \r\n\t# indented comment\r\n\r\nB\r\n"
	tm, err := Compile(src)
	require.NoError(t, err)
	assert.Equal(t, src, tm.Source())
	u, _, err := tm.Expand([][]string{{"w"}}, 0)
	require.NoError(t, err)
	assert.Equal(t, []string{"U00:w"}, u)
}

func TestCompileByteOrderMark(t *testing.T) {
	tm, err := Compile("\uFEFFU00:%x[0,0]\nB\n")
	if err != nil {
		t.Fatal(err)
	}
	u, _, err := tm.Expand([][]string{{"w"}}, 0)
	assert.NoError(t, err)
	assert.Equal(t, []string{"U00:w"}, u)
}

func TestHasTransitions(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want bool
	}{
		{"U00:%x[0,0]\n", false},
		{"U00:%x[0,0]\n# B\n", false},
		{"", false},
		{"B", true},
		{"B01:%x[0,0]", true},
		{"U00:%x[0,0]\nB\n", true},
	} {
		assert.Equal(t, tc.want, MustCompile(tc.src).HasTransitions(), "HasTransitions(%q)", tc.src)
	}
}

func TestCompileErrors(t *testing.T) {
	for _, tc := range []struct {
		name      string
		src       string
		line, col int
		msg       string // substring of the message
	}{
		{"unknown type", "X00:%x[0,0]", 1, 1, "unknown template type"},
		{"unknown type after blanks", "U00:%x[0,0]\n\n  Z", 3, 3, "unknown template type"},
		{"unknown macro", "U00:%y[0,0]", 1, 5, "unknown macro %'y'"},
		{"Wapiti test macro", "U00:%t[0,0,\"a\"]", 1, 5, "unknown macro"},
		{"percent at end", "U00:%", 1, 5, "end of line"},
		{"percent at end before blanks", "U00:%  ", 1, 5, "end of line"},
		{"missing open bracket", "U00:%x0,0]", 1, 7, "want '['"},
		{"missing close bracket", "U00:%x[0,0", 1, 11, "want ']'"},
		{"missing close bracket mid line", "U00:%x[0,0/%x[1,0]", 1, 11, "want ']'"},
		{"non-integer row", "U00:%x[a,0]", 1, 8, "row offset"},
		{"empty row", "U00:%x[,0]", 1, 8, "row offset"},
		{"fractional row", "U00:%x[1.5,0]", 1, 9, "want ','"},
		{"negative column", "U00:%x[0,-1]", 1, 10, "non-negative"},
		{"empty column", "U00:%x[0,]", 1, 10, "column"},
		{"row too large", "U00:%x[99999999999,0]", 1, 8, "too large"},
		{"column too large", "U00:%x[0,99999999999]", 1, 10, "too large"},
		{"error on second line", "U00:%x[0,0]\nU01:%x[0,0", 2, 11, "want ']'"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tm, err := Compile(tc.src)
			require.Error(t, err, "Compile(%q) = %v", tc.src, tm)
			var te *TemplateError
			require.ErrorAs(t, err, &te)
			assert.Equal(t, tc.line, te.Line, "line")
			assert.Equal(t, tc.col, te.Column, "column")
			assert.Contains(t, te.Msg, tc.msg)
			assert.True(t, strings.HasPrefix(err.Error(), "template:"), "Error() = %q, want prefix %q", err, "template:")
		})
	}
}

func TestTemplateErrorFile(t *testing.T) {
	e := &TemplateError{File: "chunk.tpl", Line: 3, Column: 7, Msg: "want ']'"}
	assert.EqualError(t, e, "chunk.tpl:3:7: want ']'")
}

func TestColumnOutOfRangeAtExpansion(t *testing.T) {
	tm := MustCompile("U00:%x[0,0]\nU01:%x[-1,2]\n")
	for _, tc := range []struct {
		name string
		cols [][]string
	}{
		{"all tokens too narrow", [][]string{{"a", "b"}, {"c", "d"}}},
		{"one ragged token", [][]string{{"a", "b", "c"}, {"d"}}},
		{"empty token", [][]string{{}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := tm.Expand(tc.cols, 0)
			var te *TemplateError
			require.ErrorAs(t, err, &te, "Expand")
			// The error is at 2:5, the %x[-1,2] macro.
			assert.Equal(t, 2, te.Line, "line")
			assert.Equal(t, 5, te.Column, "column")
			e := NewTemplateEncoder(tm)
			var c sparse.Corpus
			err = e.Encode(&c, Columns(tc.cols), nil, true)
			require.ErrorAs(t, err, &te, "EncodeColumns")
			// A failed encode changes neither the corpus nor the dictionary.
			assert.Zero(t, c.Len(), "corpus length")
			assert.Zero(t, e.Unary().Len(), "dictionary length")
		})
	}
}

func TestMustCompilePanics(t *testing.T) {
	defer func() {
		r := recover()
		if s, ok := r.(string); !ok || !strings.HasPrefix(s, "features: MustCompile: template:1:5:") {
			t.Errorf("panic value = %v", r)
		}
	}()
	MustCompile("U00:%q")
}
