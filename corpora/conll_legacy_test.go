package corpora

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// legacyReadCoNLL is the CoNLL reader as it was before sentences were read
// into one buffer (one string per line): the reference that
// TestCoNLLMatchesLegacy compares the reader with.
func legacyReadCoNLL(name string, rd io.Reader, opts CoNLLOptions) ([]Sequence, error) {
	r := &legacyCoNLLReader{lr: newLineReader(name, rd, opts.MaxLineBytes), opts: opts}
	var out []Sequence
	for r.Next() {
		out = append(out, r.seq)
	}
	return out, r.err
}

type legacyCoNLLReader struct {
	lr    *lineReader
	opts  CoNLLOptions
	ncols int
	spans []span
	seq   Sequence
	count int
	err   error
	done  bool
}

func (r *legacyCoNLLReader) Next() bool {
	if r.err != nil || r.done {
		return false
	}
	var cells []string
	if r.ncols > 0 {
		cells = make([]string, 0, 32*r.ncols)
	}
	T, first := 0, 0
	emit := func() bool {
		r.seq = buildColumns(cells, r.ncols, !r.opts.Unlabeled, first)
		r.count++
		return true
	}
	for {
		line, ok := r.lr.next()
		if !ok {
			if r.lr.err != nil {
				r.err = r.lr.err
				return false
			}
			r.done = true
			if T > 0 {
				return emit()
			}
			if r.count == 0 {
				r.err = &ParseError{File: r.lr.name, Line: max(r.lr.line, 1), Err: errorf(ErrEmpty, "no sequences in input")}
			}
			return false
		}
		if isBlank(line) {
			if T > 0 {
				return emit()
			}
			continue
		}
		if col := checkUTF8(line); col > 0 {
			r.fail(col, errorf(ErrInvalidUTF8, "invalid UTF-8"))
			return false
		}
		sp := splitSpans(r.spans[:0], line, isSpaceOrTab)
		r.spans = sp
		if bytes.Equal(line[sp[0].start:sp[0].end], docStart) {
			if T > 0 {
				return emit()
			}
			continue
		}
		k := len(sp)
		switch {
		case r.ncols == 0 && k < 2 && !r.opts.Unlabeled:
			r.fail(len(line)+1, errorf(ErrMissingLabel, "expected a token column and a label column, got 1 column"))
			return false
		case r.ncols == 0:
			r.ncols = k
			cells = make([]string, 0, 32*k)
		case k != r.ncols:
			col := len(line) + 1
			if k > r.ncols {
				col = sp[r.ncols].start + 1
			}
			r.fail(col, errorf(ErrFieldCount, "expected %d columns, got %d", r.ncols, k))
			return false
		}
		s := string(line)
		for _, f := range sp {
			cells = append(cells, s[f.start:f.end])
		}
		if T == 0 {
			first = r.lr.line
		}
		T++
	}
}

func (r *legacyCoNLLReader) fail(col int, err error) {
	r.err = &ParseError{File: r.lr.name, Line: r.lr.line, Column: col, Err: err}
}

// requireSameCoNLL reads in with the reader and with legacyReadCoNLL and
// requires the same sequences (values, lines, capacities of the rows) and
// the same error, message included.
func requireSameCoNLL(t *testing.T, in []byte, opts CoNLLOptions) {
	t.Helper()
	want, werr := legacyReadCoNLL("x", bytes.NewReader(in), opts)
	got, gerr := ReadCoNLL("x", bytes.NewReader(in), opts)
	require.Equal(t, werr, gerr, "errors")
	require.Equal(t, len(want), len(got), "number of sequences")
	for i := range want {
		require.Equal(t, want[i], got[i], "sequence %d", i)
		for p := range want[i].Tokens {
			require.Equal(t, cap(want[i].Tokens[p]), cap(got[i].Tokens[p]), "capacity of row %d of sequence %d", p, i)
		}
		require.Equal(t, cap(want[i].Labels), cap(got[i].Labels), "capacity of the labels of sequence %d", i)
	}
}

// TestCoNLLMatchesLegacy compares the reader with the one-string-per-line
// reader it replaced on the embedded CoNLL-2000 sets and hostile inputs.
func TestCoNLLMatchesLegacy(t *testing.T) {
	for _, name := range []string{"conll2000/train.txt.gz", "conll2000/test.txt.gz"} {
		rc, err := OpenEmbedded(name)
		require.NoError(t, err)
		data, err := io.ReadAll(rc)
		rc.Close()
		require.NoError(t, err)
		for _, unlabeled := range []bool{false, true} {
			requireSameCoNLL(t, data, CoNLLOptions{Unlabeled: unlabeled})
		}
	}
	hostile := []string{
		"", "\n", " \t\n\n", "a\n", "a b\n", "a b\n\n\n", "a b", "a b\r\n\r\nc d\r\n",
		"\ufeffa b\n", "\ufeff\n", " \ufeff x\n",
		"-DOCSTART- -X- O\n\na B O\n", "a B O\n-DOCSTART- -X- O\nb C I\n", "-DOCSTART-\n", "-DOCSTART- x\n",
		"a B O\nb C\n", "a B O\n\nb C D E\n", "a\tB  O \n  b\t\tC\tI\t\n", "word\nother\n",
		"a B O\nb\xff C I\n", "a B O\nb C\rI\n", "a B O\r", "a\u00a0b c\n",
		"a B O\nabcdefgh B O\n", "x y\n\n\n\nz w\n \n", "a b c\n\nd e\nf g h\n",
		strings.Repeat("tok POS B-NP\n", 5000) + "\n" + strings.Repeat("t P I\n", 3),
	}
	for i, in := range hostile {
		for _, unlabeled := range []bool{false, true} {
			for _, maxLine := range []int{0, 8} {
				t.Run(fmt.Sprintf("hostile %d unlabeled=%v max=%d", i, unlabeled, maxLine), func(t *testing.T) {
					opts := CoNLLOptions{Unlabeled: unlabeled, MaxLineBytes: maxLine}
					requireSameCoNLL(t, []byte(in), opts)
					requireSameCoNLL(t, gz(t, []byte(in)), opts)
				})
			}
		}
	}
}

// TestCoNLLSequencesKept checks that a sequence handed out is not
// overwritten by the next ones (training keeps them all).
func TestCoNLLSequencesKept(t *testing.T) {
	r := NewCoNLLReader("x", strings.NewReader("a B O\nb C I\n\nc D O\n\nd E I\ne F O\n"), CoNLLOptions{})
	var seqs []Sequence
	for r.Next() {
		seqs = append(seqs, r.Sequence())
	}
	require.NoError(t, r.Err())
	require.Equal(t, []Sequence{
		{Tokens: [][]string{{"a", "B"}, {"b", "C"}}, Labels: []string{"O", "I"}, Line: 1},
		{Tokens: [][]string{{"c", "D"}}, Labels: []string{"O"}, Line: 4},
		{Tokens: [][]string{{"d", "E"}, {"e", "F"}}, Labels: []string{"I", "O"}, Line: 6},
	}, seqs)
}

// TestCoNLLAllocsPerSequence checks that reading allocates a fixed number
// of times per sequence, whatever its length.
func TestCoNLLAllocsPerSequence(t *testing.T) {
	in := []byte(strings.Repeat(strings.Repeat("token POS B-NP\n", 200)+"\n", 50))
	r := NewCoNLLReader("x", bytes.NewReader(in), CoNLLOptions{})
	r.Next() // the line reader's and the reader's buffers
	allocs := testing.AllocsPerRun(40, func() {
		if !r.Next() {
			t.Fatal("no sequence")
		}
	})
	// The string, the cells (labels included) and Tokens.
	if allocs > 3 {
		t.Errorf("%v allocations per sequence of 200 positions, want at most 3", allocs)
	}
}

// splitSpans appends to dst the non-empty fields of line separated by runs of
// bytes for which isSep is true.
func splitSpans(dst []span, line []byte, isSep func(byte) bool) []span {
	start := -1
	for i, c := range line {
		if isSep(c) {
			if start >= 0 {
				dst = append(dst, span{start, i})
				start = -1
			}
		} else if start < 0 {
			start = i
		}
	}
	if start >= 0 {
		dst = append(dst, span{start, len(line)})
	}
	return dst
}
