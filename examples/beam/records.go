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

// chunkRecords is the number of records read by one reader (one buffer):
// memory per file is bounded by this many records.
const chunkRecords = 256

// chunk is a run of records concatenated for one reader, with the line
// bookkeeping that maps the reader's line numbers back to the file's.
type chunk struct {
	sep    bool   // a blank line between records (block formats)
	buf    []byte // the records, concatenated
	offs   []int  // byte offset of each record in buf, and len(buf) at the end
	starts []int  // line of each record in buf (1-based)
	firsts []int  // line of each record in its file
	lines  int    // lines in buf
}

func (ch *chunk) len() int { return len(ch.starts) }

func (ch *chunk) reset() {
	ch.buf, ch.offs, ch.starts, ch.firsts, ch.lines = ch.buf[:0], ch.offs[:0], ch.starts[:0], ch.firsts[:0], 0
}

// add appends a record (lines ending in '\n') that starts at line first of
// its file and returns the number of records.
func (ch *chunk) add(rec []byte, first int) int {
	if len(ch.offs) > 0 {
		ch.offs = ch.offs[:len(ch.offs)-1]
	}
	ch.offs = append(ch.offs, len(ch.buf))
	ch.starts, ch.firsts = append(ch.starts, ch.lines+1), append(ch.firsts, first)
	ch.buf = append(ch.buf, rec...)
	ch.lines += bytes.Count(rec, []byte{'\n'})
	if ch.sep {
		ch.buf = append(ch.buf, '\n')
		ch.lines++
	}
	ch.offs = append(ch.offs, len(ch.buf))
	return len(ch.starts)
}

// from returns the records k.. of the chunk.
func (ch *chunk) from(k int) []byte { return ch.buf[ch.offs[k]:] }

// record returns record k.
func (ch *chunk) record(k int) []byte { return ch.buf[ch.offs[k]:ch.offs[k+1]] }

// fileLine maps line rel of a reader started at record k to its line in
// the file and the record it is in.
func (ch *chunk) fileLine(k, rel int) (line, rec int) {
	x := ch.starts[k] + rel - 1
	rec = k
	for rec+1 < len(ch.starts) && ch.starts[rec+1] <= x {
		rec++
	}
	return ch.firsts[rec] + x - ch.starts[rec], rec
}
