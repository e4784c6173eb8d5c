package corpora

import (
	"bytes"
	"errors"
	"runtime"
	"strings"
	"testing"
)

func TestCoNLLBasic(t *testing.T) {
	in := "-DOCSTART- -X- O\n\nHe PRP B-NP\nran VBD B-VP\n\n\n\nOK UH O\n"
	seqs, err := ReadCoNLL("x.txt", strings.NewReader(in), CoNLLOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(seqs) != 2 {
		t.Fatalf("got %d sequences, want 2", len(seqs))
	}
	s := seqs[0]
	if s.Line != 3 || len(s.Tokens) != 2 || !equalStrings(s.Tokens[1], []string{"ran", "VBD"}) || !equalStrings(s.Labels, []string{"B-NP", "B-VP"}) {
		t.Errorf("first sequence = %+v", s)
	}
	if seqs[1].Line != 8 || !equalStrings(seqs[1].Labels, []string{"O"}) {
		t.Errorf("second sequence = %+v", seqs[1])
	}
	// Appending to one token row must not overwrite the next one.
	_ = append(s.Tokens[0], "X")
	if s.Tokens[1][0] != "ran" {
		t.Errorf("rows share capacity: %v", s.Tokens)
	}
}

func TestCoNLLUnlabeledCRLFGzipBOM(t *testing.T) {
	plain := "\ufeffa b\r\nc d\r\n\r\ne f\r\n"
	for _, in := range [][]byte{[]byte(plain), gz(t, []byte(plain))} {
		seqs, err := ReadCoNLL("u", bytes.NewReader(in), CoNLLOptions{Unlabeled: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(seqs) != 2 || seqs[0].Labels != nil || !equalStrings(seqs[0].Tokens[0], []string{"a", "b"}) ||
			!equalStrings(seqs[0].Tokens[1], []string{"c", "d"}) || !equalStrings(seqs[1].Tokens[0], []string{"e", "f"}) {
			t.Errorf("got %+v", seqs)
		}
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
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("got %d sequences", len(got))
	}
	for i := range want {
		if got[i].Line != want[i].Line || !equalStrings(got[i].Labels, want[i].Labels) || len(got[i].Tokens) != len(want[i].Tokens) {
			t.Fatalf("sequence %d: got %+v want %+v", i, got[i], want[i])
		}
		for j := range want[i].Tokens {
			if !equalStrings(got[i].Tokens[j], want[i].Tokens[j]) {
				t.Errorf("sequence %d row %d: got %q", i, j, got[i].Tokens[j])
			}
		}
	}
	if err := WriteCoNLL(&buf, Sequence{Tokens: [][]string{{"a b"}}}); err == nil {
		t.Error("WriteCoNLL accepted a cell with a space")
	}
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
			if c.msg != "" && !strings.Contains(err.Error(), c.msg) {
				t.Errorf("error %q does not contain %q", err, c.msg)
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
	if got, want := e.Error(), "train.txt:1042:3: expected 3 columns, got 2"; got != want {
		t.Errorf("got %q want %q", got, want)
	}
	if !errors.Is(e, ErrFieldCount) {
		t.Error("errors.Is failed")
	}
	e = &ParseError{Line: 7, Err: ErrEmpty}
	if got, want := e.Error(), "<input>:7: corpora: no data"; got != want {
		t.Errorf("got %q want %q", got, want)
	}
}
