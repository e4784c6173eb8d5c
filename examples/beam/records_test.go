package beamtag

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRecordsAndLines checks the record splitter (blank-line runs, CRLF line ends dropped as the readers drop them,
// -DOCSTART- only records, CRLF, raw text lines) and that a chunk maps a
// reader's line numbers back to the file's, from any starting record.
func TestRecordsAndLines(t *testing.T) {
	in := "\n-DOCSTART- -X- O\n\nA a\nB b\n\n\n\nC c\r\n\r\nD d\nE e\nF f\n"
	rr := newRecordReader(strings.NewReader(in), false)
	ch := &chunk{sep: true}
	var firsts []int
	for rr.next() {
		firsts = append(firsts, rr.first)
		ch.add(rr.rec, rr.first)
	}
	require.NoError(t, rr.err)
	require.Equal(t, []int{4, 9, 11}, firsts)
	require.Equal(t, "A a\nB b\n\nC c\n\nD d\nE e\nF f\n\n", string(ch.buf))
	for _, c := range []struct{ k, rel, line, rec int }{
		{0, 1, 4, 0}, {0, 2, 5, 0}, {0, 4, 9, 1}, {0, 6, 11, 2}, {0, 8, 13, 2},
		{1, 1, 9, 1}, {1, 3, 11, 2}, {2, 2, 12, 2},
	} {
		line, rec := ch.fileLine(c.k, c.rel)
		require.Equal(t, c.line, line, "reader from record %d, line %d", c.k, c.rel)
		require.Equal(t, c.rec, rec)
	}
	require.Equal(t, "C c\n\n", string(ch.record(1)))

	rr = newRecordReader(strings.NewReader("one line\n\ntwo\n"), true)
	var recs []string
	for rr.next() {
		recs = append(recs, string(rr.rec))
	}
	require.Equal(t, []string{"one line\n", "two\n"}, recs)
}
