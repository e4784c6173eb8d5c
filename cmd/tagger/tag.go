package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/dataset"
)

// tagFlags are the options of tag.
type tagFlags struct {
	dataFlags
	model     string
	output    string
	nbest     int
	bio       bool
	marginals bool
	forced    bool
}

const tagUsage = `[flags] FILE

Labels every sequence of FILE ("-" for standard input) and writes it to
standard output:

  --output conll  the input columns plus the predicted label, a blank line
                  after each sequence
  --output slash  one line per sequence: word/TAG word/TAG ...
  --output json   one JSON object per line: tokens, labels, marginals (of
                  each chosen label), prob (of the sequence), score, and
                  nbest (with --nbest N > 1)

--nbest N lists the N best label sequences, each with its probability: in
conll output as N blocks per sequence, each after a line "# nbest K prob P";
in slash output as N lines per sequence, each ending with a tab and P, and a
blank line after each sequence.
--marginals adds the marginal probability of each token's label (a column in
conll output, word/TAG/P in slash output) and, in conll output, a line
"# prob P" with the sequence probability.
--bio forbids impossible BIO (IOB2) transitions: O -> I-X, a sequence
starting with I-X, and B-X or I-X -> I-Y.
--forced reads the input as labeled (column formats and crfsuite): where the
label column holds a label of the model, that label is fixed; "_" or "?"
leave the token free. The output shows the decoded labels.
With --bio or --forced, probabilities are conditional on the constraints.`

func runTag(e *env, args []string) error {
	var tf tagFlags
	fs := newFlagSet(e, "tag", tagUsage,
		"tagger tag --format conll --model chunk.model --nbest 3 --bio --output json test.txt")
	fs.StringVar(&tf.format, "format", "conll", "input `format`: conll, crfsuite, conllu, ocr or text (raw text, one sentence per line)")
	fs.StringVar(&tf.folds, "folds", "", "OCR folds to use, e.g. `0` (default all)")
	fs.StringVar(&tf.model, "model", "tagger.model", "model `file`")
	fs.StringVar(&tf.output, "output", "conll", "output `format`: conll, slash or json")
	fs.IntVar(&tf.nbest, "nbest", 1, "list the `N` best label sequences with their probabilities")
	fs.BoolVar(&tf.bio, "bio", false, "forbid impossible BIO transitions (O -> I-X, start -> I-X, B-X/I-X -> I-Y)")
	fs.BoolVar(&tf.marginals, "marginals", false, "also print each token's label probability and the sequence probability")
	fs.BoolVar(&tf.forced, "forced", false, "fix the labels given in the label column (\"_\" or \"?\": free) and decode the rest")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("want exactly one input file (or - for stdin), got %d", len(pos))
	}
	switch tf.output {
	case "conll", "slash", "json":
	default:
		return usagef("unknown --output %q (want conll, slash or json)", tf.output)
	}
	if tf.nbest < 1 {
		return usagef("--nbest must be at least 1, got %d", tf.nbest)
	}
	if tf.forced && (tf.format == "ocr" || tf.format == "text") {
		return usagef("--forced needs a label column: use it with conll, conllu or crfsuite input, not %s", tf.format)
	}
	m, err := chain.LoadFile(tf.model)
	if err != nil {
		return err
	}
	if m.Encoder == nil {
		return chain.ErrNoEncoder
	}
	if err := checkFormat(tf.format, m.Encoder.Kind()); err != nil {
		return err
	}
	var opt chain.DecodeOptions
	opt.N = tf.nbest
	opt.Posterior = tf.marginals || tf.output == "json"
	if tf.bio {
		if !chain.HasChunkLabels(m.Labels) {
			return fmt.Errorf("--bio: the labels of %s are not BIO chunk tags (B-X, I-X, O): %s",
				tf.model, strings.Join(m.Labels, " "))
		}
		opt.Constraints = chain.BIOConstraints(m.Labels)
	}
	// OCR input always carries its letters; other formats are read as
	// labeled only for --forced.
	exs, err := readExamples(pos[0], tf.dataFlags, tf.format == "ocr" || tf.forced, e.stdin)
	if err != nil {
		return err
	}
	var fixed [][]int
	if tf.forced {
		if fixed, err = dataset.FixedLabels(m.Labels, exs, dataset.InputName(pos[0])); err != nil {
			return err
		}
	}
	decs, err := dataset.DecodeAll(chain.NewTagger(m), exs, opt, fixed, 0)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(e.stdout)
	for i := range exs {
		switch tf.output {
		case "conll":
			writeTagCoNLL(w, m, &exs[i], &decs[i], &tf)
		case "slash":
			writeTagSlash(w, m, &exs[i], &decs[i], &tf)
		case "json":
			if err := writeTagJSON(w, m, &exs[i], &decs[i], &tf); err != nil {
				return err
			}
		}
	}
	return w.Flush()
}

// fmtProb formats a probability with 4 decimals (enough for reading, and
// stable across platforms in golden tests).
func fmtProb(p float64) string { return strconv.FormatFloat(p, 'f', 4, 64) }

// tokenMarginal returns the marginal probability of label y at position t.
func tokenMarginal(d *chain.Decoding, L, t, y int) float64 { return d.Marginal[t*L+y] }

func writeTagCoNLL(w *bufio.Writer, m *chain.Model, ex *dataset.Example, d *chain.Decoding, tf *tagFlags) {
	L := m.NumLabels()
	for k, path := range d.Paths {
		switch {
		case tf.nbest > 1:
			fmt.Fprintf(w, "# nbest %d prob %s\n", k+1, fmtProb(d.Probs[k]))
		case tf.marginals:
			fmt.Fprintf(w, "# prob %s\n", fmtProb(d.Probs[k]))
		}
		for t, y := range path {
			if ex.Tokens != nil {
				w.WriteString(strings.Join(ex.Tokens[t], " "))
			} else {
				w.WriteString(ex.Text[t])
			}
			w.WriteByte(' ')
			w.WriteString(m.Labels[y])
			if tf.marginals {
				w.WriteByte(' ')
				w.WriteString(fmtProb(tokenMarginal(d, L, t, y)))
			}
			w.WriteByte('\n')
		}
		w.WriteByte('\n')
	}
}

func writeTagSlash(w *bufio.Writer, m *chain.Model, ex *dataset.Example, d *chain.Decoding, tf *tagFlags) {
	L := m.NumLabels()
	for k, path := range d.Paths {
		for t, y := range path {
			if t > 0 {
				w.WriteByte(' ')
			}
			w.WriteString(ex.Text[t])
			w.WriteByte('/')
			w.WriteString(m.Labels[y])
			if tf.marginals {
				w.WriteByte('/')
				w.WriteString(fmtProb(tokenMarginal(d, L, t, y)))
			}
		}
		if tf.nbest > 1 {
			w.WriteByte('\t')
			w.WriteString(fmtProb(d.Probs[k]))
		}
		w.WriteByte('\n')
	}
	if tf.nbest > 1 {
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
}

func writeTagJSON(w io.Writer, m *chain.Model, ex *dataset.Example, d *chain.Decoding, tf *tagFlags) error {
	L := m.NumLabels()
	cand := func(k int) tagCandidate {
		c := tagCandidate{Prob: tagFloat(d.Probs[k]), Score: tagFloat(d.Scores[k])}
		for t, y := range d.Paths[k] {
			c.Labels = append(c.Labels, m.Labels[y])
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
	if tf.nbest > 1 {
		for k := range d.Paths {
			s.NBest = append(s.NBest, cand(k))
		}
	}
	b, err := json.Marshal(&s)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	_, err = w.Write(b)
	return err
}
