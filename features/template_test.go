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

func TestDerivedMacros(t *testing.T) {
	tm := MustCompile("U00:%l[0,0]\nU01:%w[0,0]\nU02:%p[0,0,3]/%s[0,0,3]\nU03:%s[-1,0,2]/%w[1,0]\nU04:%x[0,1]\n")
	assert.Equal(t, 2, tm.Columns(), "input columns (the derived ones are not input)")
	cols := [][]string{{"Été", "A"}, {"mid-1990s", "B"}, {"U.S.", "C"}, {"1,234.5", "D"}}
	for _, tc := range []struct {
		pos  int
		want []string
	}{
		{0, []string{"U00:été", "U01:Xx", "U02:Été/Été", "U03:_B-1/x-dx", "U04:A"}},
		{1, []string{"U00:mid-1990s", "U01:x-dx", "U02:mid/90s", "U03:té/X.X.", "U04:B"}},
		{2, []string{"U00:u.s.", "U01:X.X.", "U02:U.S/.S.", "U03:0s/d,d.d", "U04:C"}},
		{3, []string{"U00:1,234.5", "U01:d,d.d", "U02:1,2/4.5", "U03:S./_B+1", "U04:D"}},
	} {
		unary, _, err := tm.Expand(cols, tc.pos)
		require.NoError(t, err)
		assert.Equal(t, tc.want, unary, "position %d", tc.pos)
	}
	// Encoding (growing, then frozen) gives the attributes Expand names.
	e := NewTemplateEncoder(tm)
	require.NoError(t, e.Count(Columns(cols)))
	e.Freeze(1)
	checkFrozen(t, e, cols)
	checkFrozen(t, e, [][]string{{"Hello", "A"}, {"x", "Q"}})
	// A derived macro needs its input column like %x.
	_, _, err := MustCompile("U:%s[0,2,1]").Expand([][]string{{"a", "b"}}, 0)
	var te *TemplateError
	require.ErrorAs(t, err, &te)
	assert.Contains(t, te.Msg, "names column 2")
}

func TestDerivedMacroErrors(t *testing.T) {
	for _, tc := range []struct{ src, msg string }{
		{"U:%p[0,0]", "want ',' and a length"},
		{"U:%s[0,0,0]", "length: want a length from 1 to 32"},
		{"U:%s[0,0,33]", "too large"},
		{"U:%l[0,0,1]", "want ']' to close %l[row,col]"},
		{"U:%p[0,0,2", "want ']' to close %p[row,col,n]"},
		{"U:%q[0,0]", "unknown macro %'q'"},
	} {
		_, err := Compile(tc.src)
		require.Error(t, err, tc.src)
		assert.Contains(t, err.Error(), tc.msg, tc.src)
	}
}

func TestColumnNames(t *testing.T) {
	tm := MustCompile("# columns: word, POS\nU00:%x[0,0]\n# columns: ignored\nU01:%x[0,1]\n")
	assert.Equal(t, []string{"word", "POS"}, tm.ColumnNames())
	assert.Nil(t, MustCompile("# words\nU00:%x[0,0]\n").ColumnNames())
}
