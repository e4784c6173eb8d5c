package tagging

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/corpora"
	"github.com/sparsetag/sparsetag/dataset"
)

// Output formats of Stream.
const (
	CoNLL = "conll" // the input columns plus the predicted label (CoNLL-U input: CoNLL-U, the label column replaced)
	Slash = "slash" // one line per sequence: word/TAG word/TAG ...
	JSON  = "json"  // one JSON object per line
)

// StreamOptions are the options of Stream.
type StreamOptions struct {
	Output    string              // CoNLL, Slash or JSON
	Decode    chain.DecodeOptions // Decode.N > 1 lists the N best sequences
	Marginals bool                // also write marginals and sequence probabilities
	Threads   int                 // goroutines (output order is input order)
	// Fixer, if not nil, fixes the labels given in the input (forced
	// decoding: models that support Forced).
	Fixer *dataset.LabelFixer
}

// Stream decodes every sequence of r with m on o.Threads goroutines and
// writes them to out in input order as soon as they and all before them
// are done (output is flushed whenever the input is waited for). It is a
// Writer whose decoding runs on the goroutines and whose writing runs in
// input order: its output is the output of a Writer over the same
// sequences, by construction.
func Stream(out io.Writer, m Tagger, r *dataset.Reader, o StreamOptions) error {
	tw := NewWriter(m, o)
	decs := make([]chain.Decoding, DefaultBatch)
	w := bufio.NewWriter(out)
	err := inOrder(r, o.Threads, DefaultBatch, func(_, i, seq int, ex *dataset.Example) error {
		return tw.decode(&decs[i], ex, seq)
	}, func(i, _ int, ex *dataset.Example) error {
		return tw.write(w, ex, &decs[i])
	}, w.Flush)
	if ferr := w.Flush(); err == nil {
		err = ferr
	}
	return err
}

// Writer decodes and writes one sequence at a time in the format of its
// StreamOptions: the one output path of the package (Stream is made of
// it), and the building block of pipelines that read and order their input
// themselves (the Apache Beam example in examples/beam). A Writer is not
// safe for concurrent use: make one per goroutine (they can share the
// Tagger).
type Writer struct {
	m      Tagger
	o      StreamOptions
	labels []string
	dec    chain.Decoding
}

// NewWriter returns a Writer of m's decodings in the format of o
// (o.Threads is ignored).
func NewWriter(m Tagger, o StreamOptions) *Writer {
	return &Writer{m: m, o: o, labels: m.Labels()}
}

// Write decodes ex, sequence seq (0-based) of its input, and writes it to
// w. On error nothing is written.
func (tw *Writer) Write(w *bufio.Writer, ex *dataset.Example, seq int) error {
	e := *ex // a Pipeline's decode sets e's columns
	if err := tw.decode(&tw.dec, &e, seq); err != nil {
		return err
	}
	return tw.write(w, &e, &tw.dec)
}

// Best returns the label ids of the best sequence of the last successful
// Write (valid until the next Write).
func (tw *Writer) Best() []int { return tw.dec.Best() }

// decode decodes ex, sequence seq (0-based) of its input, into d as the
// options ask. With a Pipeline, ex's token columns become those the last
// model reads (Pipeline.Augment), which the conll output writes. It only
// reads tw: goroutines may share it.
func (tw *Writer) decode(d *chain.Decoding, ex *dataset.Example, seq int) error {
	m := tw.m
	if p, ok := m.(*Pipeline); ok {
		aug, err := p.Augment(ex)
		if err != nil {
			return seqError(ex, seq, err)
		}
		*ex, m = aug, p.last()
	}
	opt := tw.o.Decode
	if tw.o.Fixer != nil {
		var err error
		if opt.Fixed, err = tw.o.Fixer.Fixed(ex, seq); err != nil {
			return err
		}
	}
	if err := m.Decode(d, ex, opt); err != nil {
		return seqError(ex, seq, err)
	}
	return nil
}

// write writes the decoding d of ex in the output format.
func (tw *Writer) write(w *bufio.Writer, ex *dataset.Example, d *chain.Decoding) error {
	switch tw.o.Output {
	case CoNLL:
		writeTagCoNLL(w, tw.labels, ex, d, &tw.o)
	case Slash:
		writeTagSlash(w, tw.labels, ex, d, &tw.o)
	case JSON:
		return writeTagJSON(w, tw.labels, ex, d, &tw.o)
	default:
		return fmt.Errorf("unknown output format %q (want conll, slash or json)", tw.o.Output)
	}
	return nil
}

// fmtProb formats a probability with 4 decimals (enough for reading, and
// stable across platforms in golden tests).
func fmtProb(p float64) string { return strconv.FormatFloat(p, 'f', 4, 64) }

// writeProb writes p as fmtProb formats it, without allocating (it formats
// into w's free buffer).
func writeProb(w *bufio.Writer, p float64) {
	w.Write(strconv.AppendFloat(w.AvailableBuffer(), p, 'f', 4, 64))
}

// tokenMarginal returns the marginal probability of label y at position t.
func tokenMarginal(d *chain.Decoding, L, t, y int) float64 { return d.Marginal[t*L+y] }

// writePathHeader writes the comment line before path k of a conll or
// conllu sentence: its rank and probability with n-best lists, its
// probability with marginals, nothing otherwise.
func writePathHeader(w *bufio.Writer, d *chain.Decoding, k int, o *StreamOptions) {
	switch {
	case o.Decode.N > 1:
		fmt.Fprintf(w, "# nbest %d prob %s\n", k+1, fmtProb(d.Probs[k]))
	case o.Marginals:
		fmt.Fprintf(w, "# prob %s\n", fmtProb(d.Probs[k]))
	}
}

func writeTagCoNLL(w *bufio.Writer, labels []string, ex *dataset.Example, d *chain.Decoding, o *StreamOptions) {
	if ex.CoNLLU != nil {
		writeTagCoNLLU(w, labels, ex.CoNLLU, d, o)
		return
	}
	L := len(labels)
	for k, path := range d.Paths {
		writePathHeader(w, d, k, o)
		for t, y := range path {
			if ex.Tokens != nil {
				for c, col := range ex.Tokens[t] {
					if c > 0 {
						w.WriteByte(' ')
					}
					w.WriteString(col)
				}
			} else {
				w.WriteString(ex.Text[t])
			}
			w.WriteByte(' ')
			w.WriteString(labels[y])
			if o.Marginals {
				w.WriteByte(' ')
				writeProb(w, tokenMarginal(d, L, t, y))
			}
			w.WriteByte('\n')
		}
		w.WriteByte('\n')
	}
}

// writeTagCoNLLU writes a CoNLL-U sentence back as it was read (comments,
// multiword-token ranges, empty nodes and every column) with the predicted
// label in its label column, followed by a blank line: valid CoNLL-U
// whatever the options. The n-best and probability lines of conll output
// are comment lines before the sentence's own, and a token's marginal is a
// Marginal=P entry of its MISC column.
func writeTagCoNLLU(w *bufio.Writer, labels []string, s *corpora.CoNLLUSentence, d *chain.Decoding, o *StreamOptions) {
	L := len(labels)
	for k, path := range d.Paths {
		writePathHeader(w, d, k, o)
		t := 0
		for i, line := range s.Lines {
			if t >= len(path) || s.Words[t] != i {
				w.WriteString(line)
				w.WriteByte('\n')
				continue
			}
			var marginal float64
			if o.Marginals {
				marginal = tokenMarginal(d, L, t, path[t])
			}
			writeCoNLLUWord(w, line, s.LabelColumn, labels[path[t]], o.Marginals, marginal)
			t++
		}
		w.WriteByte('\n')
	}
}

// writeCoNLLUWord writes a word line of 10 TAB-separated columns with
// column col replaced by label and, if withMarginal, a Marginal=P entry
// (P the marginal) added to the MISC column (which "_" means empty).
func writeCoNLLUWord(w *bufio.Writer, line string, col int, label string, withMarginal bool, marginal float64) {
	const miscCol = 9
	for c := 0; c <= miscCol; c++ {
		cell, rest, _ := strings.Cut(line, "\t")
		line = rest
		if c > 0 {
			w.WriteByte('\t')
		}
		switch {
		case c == col:
			w.WriteString(label)
		case c == miscCol && withMarginal:
			if cell != "_" {
				w.WriteString(cell)
				w.WriteByte('|')
			}
			w.WriteString("Marginal=")
			writeProb(w, marginal)
		default:
			w.WriteString(cell)
		}
	}
	w.WriteByte('\n')
}

func writeTagSlash(w *bufio.Writer, labels []string, ex *dataset.Example, d *chain.Decoding, o *StreamOptions) {
	L := len(labels)
	for k, path := range d.Paths {
		for t, y := range path {
			if t > 0 {
				w.WriteByte(' ')
			}
			w.WriteString(ex.Text[t])
			w.WriteByte('/')
			w.WriteString(labels[y])
			if o.Marginals {
				w.WriteByte('/')
				writeProb(w, tokenMarginal(d, L, t, y))
			}
		}
		if o.Decode.N > 1 {
			w.WriteByte('\t')
			w.WriteString(fmtProb(d.Probs[k]))
		}
		w.WriteByte('\n')
	}
	if o.Decode.N > 1 {
		w.WriteByte('\n')
	}
}

// tagFloat is a probability or score written with 6 decimals.
type tagFloat float64

func (f tagFloat) MarshalJSON() ([]byte, error) {
	return strconv.AppendFloat(nil, float64(f), 'f', 6, 64), nil
}

type tagCandidate struct {
	Labels    []string   `json:"labels"`
	Marginals []tagFloat `json:"marginals"`
	Prob      tagFloat   `json:"prob"`
	Score     tagFloat   `json:"score"`
}

type tagSequence struct {
	Tokens []string `json:"tokens"`
	tagCandidate
	NBest []tagCandidate `json:"nbest,omitempty"`
	// Offsets, for raw text input, place each token in its line.
	Offsets []tagOffsets `json:"offsets,omitempty"`
}

// tagOffsets are a token's offsets in code points and bytes.
type tagOffsets struct {
	Start     int `json:"start"`
	End       int `json:"end"`
	StartByte int `json:"start_byte"`
	EndByte   int `json:"end_byte"`
}

func writeTagJSON(w io.Writer, labels []string, ex *dataset.Example, d *chain.Decoding, o *StreamOptions) error {
	L := len(labels)
	cand := func(k int) tagCandidate {
		c := tagCandidate{Prob: tagFloat(d.Probs[k]), Score: tagFloat(d.Scores[k])}
		for t, y := range d.Paths[k] {
			c.Labels = append(c.Labels, labels[y])
			c.Marginals = append(c.Marginals, tagFloat(tokenMarginal(d, L, t, y)))
		}
		return c
	}
	s := tagSequence{Tokens: ex.Text, tagCandidate: cand(0)}
	if s.Tokens == nil {
		s.Tokens = []string{}
	}
	if s.Labels == nil {
		s.Labels, s.Marginals = []string{}, []tagFloat{}
	}
	if o.Decode.N > 1 {
		for k := range d.Paths {
			s.NBest = append(s.NBest, cand(k))
		}
	}
	for _, off := range ex.Offsets {
		s.Offsets = append(s.Offsets, tagOffsets{Start: off.Start, End: off.End, StartByte: off.StartByte, EndByte: off.EndByte})
	}
	b, err := json.Marshal(&s)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	_, err = w.Write(b)
	return err
}
