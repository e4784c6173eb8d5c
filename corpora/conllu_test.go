package corpora

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const conlluSample = "# sent_id = 1\n" +
	"# text = Vámonos al mar.\n" +
	"1-2\tVámonos\t_\t_\t_\t_\t_\t_\t_\t_\n" +
	"1\tVamos\tir\tVERB\tV\tMood=Imp\t0\troot\t_\t_\n" +
	"2\tnos\tnosotros\tPRON\tP\tCase=Acc\t1\tobj\t_\t_\n" +
	"3-4\tal\t_\t_\t_\t_\t_\t_\t_\t_\n" +
	"3\ta\ta\tADP\tSP\t_\t5\tcase\t_\t_\n" +
	"4\tel\tel\tDET\tDA\t_\t5\tdet\t_\t_\n" +
	"4.1\tx\tx\tX\tX\t_\t_\t_\t_\t_\n" +
	"5\tmar\tmar\tNOUN\tNC\t_\t1\tobl\t_\tSpaceAfter=No\n" +
	"6\t.\t.\tPUNCT\tFp\t_\t1\tpunct\t_\t_\n" +
	"\n" +
	"1\tSí\tsí\tINTJ\tI\t_\t0\troot\t_\t_\n"

func TestCoNLLU(t *testing.T) {
	seqs, err := ReadCoNLLU("es.conllu", strings.NewReader(conlluSample), CoNLLUOptions{})
	require.NoError(t, err)
	require.Len(t, seqs, 2)
	s := seqs[0]
	assert.Equal(t, 4, s.Line)
	assert.Equal(t, []string{"VERB", "PRON", "ADP", "DET", "NOUN", "PUNCT"}, s.Labels)
	assert.Equal(t, []string{"nos", "nosotros", "P", "Case=Acc"}, s.Tokens[1], "tokens[1]")
	if s.Tokens[4][CoNLLUForm] != "mar" || s.Tokens[4][CoNLLULemma] != "mar" || s.Tokens[4][CoNLLUOtherPOS] != "NC" || s.Tokens[4][CoNLLUFeats] != "_" {
		t.Errorf("tokens[4] = %q", s.Tokens[4])
	}
	// Every line of the sentence is kept for writing it back; the words are
	// the lines whose ID is an integer.
	lines := strings.Split(conlluSample, "\n")
	require.NotNil(t, s.CoNLLU)
	assert.Equal(t, lines[:11], s.CoNLLU.Lines)
	assert.Equal(t, []int{3, 4, 6, 7, 9, 10}, s.CoNLLU.Words)
	assert.Equal(t, 3, s.CoNLLU.LabelColumn)
	assert.Equal(t, &CoNLLUSentence{Lines: lines[12:13], Words: []int{0}, LabelColumn: 3}, seqs[1].CoNLLU)
	x, err := ReadCoNLLU("es.conllu", strings.NewReader(conlluSample), CoNLLUOptions{Label: XPOS})
	require.NoError(t, err, "XPOS")
	assert.Equal(t, []string{"V", "P", "SP", "DA", "NC", "Fp"}, x[0].Labels, "XPOS")
	assert.Equal(t, "VERB", x[0].Tokens[0][CoNLLUOtherPOS], "XPOS")
	assert.Equal(t, 4, x[0].CoNLLU.LabelColumn, "XPOS")
	u, err := ReadCoNLLU("es.conllu", strings.NewReader(strings.ReplaceAll(conlluSample, "\tVERB\t", "\t_\t")), CoNLLUOptions{Unlabeled: true})
	if err != nil || u[0].Labels != nil || len(u[0].Tokens) != 6 {
		t.Errorf("unlabeled: %+v %v", u, err)
	}
}

func TestCoNLLUErrors(t *testing.T) {
	ok := "1\ta\ta\tX\tX\t_\t0\troot\t_\t_\n"
	cases := []struct {
		name, in  string
		opts      CoNLLUOptions
		sentinel  error
		line, col int
	}{
		{"nine columns", ok + "2\tb\tb\tX\tX\t_\t1\tdep\t_\n", CoNLLUOptions{}, ErrFieldCount, 2, 0},
		{"eleven columns", ok + "2\tb\tb\tX\tX\t_\t1\tdep\t_\t_\textra\n", CoNLLUOptions{}, ErrFieldCount, 2, 23},
		{"missing UPOS", ok + "2\tb\tb\t_\tX\t_\t1\tdep\t_\t_\n", CoNLLUOptions{}, ErrMissingLabel, 2, 7},
		{"missing XPOS", "1\ta\ta\tX\t_\t_\t0\troot\t_\t_\n", CoNLLUOptions{Label: XPOS}, ErrMissingLabel, 1, 9},
		{"bad ID", "one\ta\ta\tX\tX\t_\t0\troot\t_\t_\n", CoNLLUOptions{}, ErrBadValue, 1, 1},
		{"ID gap", ok + "3\tb\tb\tX\tX\t_\t1\tdep\t_\t_\n", CoNLLUOptions{}, ErrSyntax, 2, 1},
		{"comments only", "# a\n# b\n", CoNLLUOptions{}, ErrEmpty, 2, 0},
		{"invalid UTF-8", "1\t\xe2\x82\ta\tX\tX\t_\t0\troot\t_\t_\n", CoNLLUOptions{}, ErrInvalidUTF8, 1, 3},
		{"10 MB line", ok + "\n" + strings.Repeat("#", 10<<20), CoNLLUOptions{}, ErrLineTooLong, 3, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ReadCoNLLU("t.conllu", strings.NewReader(c.in), c.opts)
			wantParseError(t, err, c.sentinel, "t.conllu", c.line, c.col)
		})
	}
}
