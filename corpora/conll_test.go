package corpora

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCoNLLBasic(t *testing.T) {
	in := "-DOCSTART- -X- O\n\nHe PRP B-NP\nran VBD B-VP\n\n\n\nOK UH O\n"
	seqs, err := ReadCoNLL("x.txt", strings.NewReader(in), CoNLLOptions{})
	require.NoError(t, err)
	require.Len(t, seqs, 2)
	s := seqs[0]
	assert.Equal(t, 3, s.Line, "first sequence")
	require.Len(t, s.Tokens, 2, "first sequence")
	assert.Equal(t, []string{"ran", "VBD"}, s.Tokens[1], "first sequence")
	assert.Equal(t, []string{"B-NP", "B-VP"}, s.Labels, "first sequence")
	assert.Equal(t, 8, seqs[1].Line, "second sequence")
	assert.Equal(t, []string{"O"}, seqs[1].Labels, "second sequence")
	// Appending to one token row must not overwrite the next one.
	_ = append(s.Tokens[0], "X")
	assert.Equal(t, "ran", s.Tokens[1][0], "rows share capacity: %v", s.Tokens)
}

func TestCoNLLUnlabeledCRLFGzipBOM(t *testing.T) {
	plain := "\ufeffa b\r\nc d\r\n\r\ne f\r\n"
	for _, in := range [][]byte{[]byte(plain), gz(t, []byte(plain))} {
		seqs, err := ReadCoNLL("u", bytes.NewReader(in), CoNLLOptions{Unlabeled: true})
		require.NoError(t, err)
		require.Len(t, seqs, 2)
		assert.Nil(t, seqs[0].Labels)
		require.Len(t, seqs[0].Tokens, 2)
		assert.Equal(t, []string{"a", "b"}, seqs[0].Tokens[0])
		assert.Equal(t, []string{"c", "d"}, seqs[0].Tokens[1])
		assert.Equal(t, []string{"e", "f"}, seqs[1].Tokens[0])
	}
}

func TestCoNLLRoundTrip(t *testing.T) {
	want := []Sequence{
		{Tokens: [][]string{{"Él", "NN"}, {"ü", ","}}, Labels: []string{"B-NP", "O"}, Line: 1},
		{Tokens: [][]string{{"x", "y"}}, Labels: []string{"I-NP"}, Line: 4},
	}
	var buf bytes.Buffer
	for _, s := range want {
		if err := WriteCoNLL(&buf, s); err != nil {
			t.Fatal(err)
		}
	}
	got, err := ReadCoNLL("rt", &buf, CoNLLOptions{})
	require.NoError(t, err)
	require.Len(t, got, len(want))
	for i := range want {
		assert.Equal(t, want[i].Line, got[i].Line, "sequence %d", i)
		assert.Equal(t, want[i].Labels, got[i].Labels, "sequence %d", i)
		assert.Equal(t, want[i].Tokens, got[i].Tokens, "sequence %d", i)
	}
	assert.Error(t, WriteCoNLL(&buf, Sequence{Tokens: [][]string{{"a b"}}}), "WriteCoNLL accepted a cell with a space")
}

func TestCoNLLErrors(t *testing.T) {
	huge := strings.Repeat("x", 10<<20)
	cases := []struct {
		name, in  string
		opts      CoNLLOptions
		sentinel  error
		line, col int
		msg       string
	}{
		{"fewer columns", "a B O\nb C\n", CoNLLOptions{}, ErrFieldCount, 2, 4, "x:2:4: expected 3 columns, got 2"},
		{"more columns", "a B O\n\nb C D E\n", CoNLLOptions{}, ErrFieldCount, 3, 7, "expected 3 columns, got 4"},
		{"missing label", "word\nother\n", CoNLLOptions{}, ErrMissingLabel, 1, 5, "expected a token column and a label column"},
		{"empty file", "", CoNLLOptions{}, ErrEmpty, 1, 0, "x:1: no sequences"},
		{"blank lines only", "\n \t\n\n", CoNLLOptions{}, ErrEmpty, 3, 0, ""},
		{"docstart only", "-DOCSTART- -X- O\n", CoNLLOptions{}, ErrEmpty, 1, 0, ""},
		{"invalid UTF-8", "a B O\nb\xff C I\n", CoNLLOptions{}, ErrInvalidUTF8, 2, 2, ""},
		{"10 MB line", "a B O\n" + huge + "\n", CoNLLOptions{}, ErrLineTooLong, 2, DefaultMaxLineBytes + 1, ""},
		{"10 MB line at EOF", huge, CoNLLOptions{}, ErrLineTooLong, 1, 0, ""},
		{"bare CR", "a B O\nb C\rI\n", CoNLLOptions{}, ErrSyntax, 2, 4, "carriage return"},
		{"small limit", "a B O\nabcdefgh B O\n", CoNLLOptions{MaxLineBytes: 8}, ErrLineTooLong, 2, 9, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ReadCoNLL("x", strings.NewReader(c.in), c.opts)
			wantParseError(t, err, c.sentinel, "x", c.line, c.col)
			if c.msg != "" {
				assert.ErrorContains(t, err, c.msg)
			}
		})
	}
}

// TestLineTooLongMemory checks that a 10 MB line is refused without being
// held in memory.
func TestLineTooLongMemory(t *testing.T) {
	in := "a B O\n" + strings.Repeat("x", 10<<20) + "\n"
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := ReadCoNLL("x", strings.NewReader(in), CoNLLOptions{})
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrLineTooLong) {
		t.Fatalf("err = %v", err)
	}
	// The limit is 1 MiB; growing the line buffer by doubling up to 2 MiB
	// allocates about 4 MiB in all, whatever the length of the line.
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 6<<20 {
		t.Errorf("allocated %d bytes for a refused 10 MB line", alloc)
	}
}

func TestCoNLLCorruptGzip(t *testing.T) {
	b := gz(t, []byte(strings.Repeat("a B O\n", 1000)))
	_, err := ReadCoNLL("c.gz", bytes.NewReader(b[:len(b)/2]), CoNLLOptions{})
	var pe *ParseError
	if !errors.As(err, &pe) || pe.File != "c.gz" || pe.Line < 1 {
		t.Fatalf("truncated gzip: err = %v", err)
	}
}

func TestParseErrorFormat(t *testing.T) {
	e := &ParseError{File: "train.txt", Line: 1042, Column: 3, Err: errorf(ErrFieldCount, "expected 3 columns, got 2")}
	assert.EqualError(t, e, "train.txt:1042:3: expected 3 columns, got 2")
	assert.ErrorIs(t, e, ErrFieldCount)
	e = &ParseError{Line: 7, Err: ErrEmpty}
	assert.EqualError(t, e, "<input>:7: corpora: no data")
}

// TestWriteCoNLLBOMCell: a first cell that starts with a byte-order mark
// (read from a line that did not open the file) is written so that it reads
// back whole, also as the first line of a file; -DOCSTART- still cannot be
// written as a token.
func TestWriteCoNLLBOMCell(t *testing.T) {
	for _, s := range []Sequence{
		{Tokens: [][]string{{"\ufeff"}, {"b"}}},
		{Tokens: [][]string{{"\ufeffx", "NN"}, {"\ufeffy", "VB"}}, Labels: []string{"B-NP", "O"}},
	} {
		var buf bytes.Buffer
		require.NoError(t, WriteCoNLL(&buf, s))
		got, err := ReadCoNLL("f", &buf, CoNLLOptions{Unlabeled: s.Labels == nil})
		require.NoError(t, err)
		require.Len(t, got, 1)
		require.Equal(t, s.Tokens, got[0].Tokens)
		require.Equal(t, s.Labels, got[0].Labels)
	}
	require.Error(t, WriteCoNLL(io.Discard, Sequence{Tokens: [][]string{{"-DOCSTART-"}}}))
}

func TestCoNLLLabelColumn(t *testing.T) {
	const in = "He PRP B-NP\nreckons VBZ B-VP\n\nThe DT B-NP\n"
	for _, tc := range []struct {
		col    int
		tokens [][]string
		labels []string
	}{
		{0, [][]string{{"He", "PRP"}, {"reckons", "VBZ"}}, []string{"B-NP", "B-VP"}},
		{-1, [][]string{{"He", "PRP"}, {"reckons", "VBZ"}}, []string{"B-NP", "B-VP"}},
		{3, [][]string{{"He", "PRP"}, {"reckons", "VBZ"}}, []string{"B-NP", "B-VP"}},
		{2, [][]string{{"He", "B-NP"}, {"reckons", "B-VP"}}, []string{"PRP", "VBZ"}},
		{-2, [][]string{{"He", "B-NP"}, {"reckons", "B-VP"}}, []string{"PRP", "VBZ"}},
		{1, [][]string{{"PRP", "B-NP"}, {"VBZ", "B-VP"}}, []string{"He", "reckons"}},
		{-3, [][]string{{"PRP", "B-NP"}, {"VBZ", "B-VP"}}, []string{"He", "reckons"}},
	} {
		for _, into := range []bool{false, true} {
			r := NewCoNLLReader("in", strings.NewReader(in), CoNLLOptions{LabelColumn: tc.col})
			var b Buffer
			next := r.Next
			if into {
				next = func() bool { return r.NextInto(&b) }
			}
			require.True(t, next(), "label column %d: %v", tc.col, r.Err())
			s := r.Sequence()
			assert.Equal(t, tc.tokens, s.Tokens, "label column %d", tc.col)
			assert.Equal(t, tc.labels, s.Labels, "label column %d", tc.col)
			require.True(t, next(), "label column %d: %v", tc.col, r.Err())
			require.False(t, next())
			require.NoError(t, r.Err())
		}
	}
	for _, col := range []int{4, -4} {
		_, err := ReadCoNLL("in", strings.NewReader(in), CoNLLOptions{LabelColumn: col})
		require.ErrorIs(t, err, ErrMissingLabel, "label column %d", col)
		assert.Contains(t, err.Error(), fmt.Sprintf("in:1:12: no label column %d: the line has 3 columns", col))
	}
}
