package beamtag

import (
	"bufio"
	"bytes"
	"fmt"
	"io"

	"github.com/sparsetag/sparsetag/corpora"
)

// recordReader splits an input into records that can be read on their own:
// the blocks between blank lines of column and attribute files, or the
// lines of raw text. A record that holds no sequence (only -DOCSTART- lines)
// is skipped. Memory is bounded by the longest record and
// corpora.DefaultMaxLineBytes per line.
type recordReader struct {
	sc      *bufio.Scanner
	perLine bool   // raw text: every line is a record
	line    int    // lines read so far
	rec     []byte // the current record
	first   int    // line of its first line
	err     error
}

func newRecordReader(r io.Reader, perLine bool) *recordReader {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), corpora.DefaultMaxLineBytes+2)
	return &recordReader{sc: sc, perLine: perLine}
}

// next reads the next record and reports whether there was one.
func (r *recordReader) next() bool {
	r.rec, r.first = r.rec[:0], 0
	content := false
	for r.sc.Scan() {
		r.line++
		b := r.sc.Bytes()
		blank := len(bytes.TrimSpace(b)) == 0
		if blank && !r.perLine {
			if content {
				return true
			}
			r.rec, r.first = r.rec[:0], 0
			continue
		}
		if blank {
			continue
		}
		if r.first == 0 {
			r.first = r.line
		}
		r.rec = append(append(r.rec, b...), '\n')
		content = content || !bytes.HasPrefix(bytes.TrimSpace(b), []byte("-DOCSTART-"))
		if r.perLine {
			return true
		}
	}
	if err := r.sc.Err(); err != nil {
		r.err = fmt.Errorf("line %d: %w (the rest of the input is skipped)", r.line+1, err)
		return false
	}
	return content
}
