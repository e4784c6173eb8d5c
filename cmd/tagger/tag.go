package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"strings"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/dataset"
	"github.com/sparsetag/sparsetag/peer"
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
	threads   int
}

const tagUsage = `[flags] [FILE]

Labels every sequence of FILE (standard input when FILE is "-" or missing)
and writes it to standard output as soon as it is tagged, in input order:
memory is bounded by a batch of sequences, not by the input's size.

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
With --bio or --forced, probabilities are conditional on the constraints.

--model may also name a model trained by CRFsuite, CRF++ (binary or text) or
Wapiti (text), gzipped or not; its format is detected and it tags exactly as
the toolkit's own tagger does. A CRFsuite model reads CRFsuite attribute
files (label first, as crfsuite tag reads them: --format crfsuite is
implied); CRF++ and Wapiti models read CoNLL-style columns with every column
passed to the model's own templates. --nbest and --marginals work with peer
models; --bio and --forced do not.`

func runTag(e *env, args []string) error {
	var tf tagFlags
	fs := newFlagSet(e, "tag", tagUsage,
		"tagger tag --format conll --model chunk.model --nbest 3 --bio --output json test.txt")
	fs.StringVar(&tf.format, "format", "conll", "input `format`: conll, crfsuite, conllu, ocr or text (raw text, one sentence per line)")
	fs.StringVar(&tf.folds, "folds", "", "OCR folds to use, e.g. `0` (default all)")
	fs.StringVar(&tf.model, "model", "tagger.model", "model `file`: this toolkit's, or CRFsuite, CRF++ or Wapiti")
	fs.StringVar(&tf.output, "output", "conll", "output `format`: conll, slash or json")
	fs.IntVar(&tf.nbest, "nbest", 1, "list the `N` best label sequences with their probabilities")
	fs.BoolVar(&tf.bio, "bio", false, "forbid impossible BIO transitions (O -> I-X, start -> I-X, B-X/I-X -> I-Y)")
	fs.BoolVar(&tf.marginals, "marginals", false, "also print each token's label probability and the sequence probability")
	fs.BoolVar(&tf.forced, "forced", false, "fix the labels given in the label column (\"_\" or \"?\": free) and decode the rest")
	fs.IntVar(&tf.threads, "threads", runtime.GOMAXPROCS(0), "tag on `N` goroutines (output order is input order)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	input, err := inputArg(pos)
	if err != nil {
		return err
	}
	switch tf.output {
	case "conll", "slash", "json":
	default:
		return usagef("unknown --output %q (want conll, slash or json)", tf.output)
	}
	if tf.nbest < 1 {
		return usagef("--nbest must be at least 1, got %d", tf.nbest)
	}
	if tf.threads < 1 {
		return usagef("--threads must be at least 1, got %d", tf.threads)
	}
	if tf.forced && (tf.format == "ocr" || tf.format == "text") {
		return usagef("--forced needs a label column: use it with conll, conllu or crfsuite input, not %s", tf.format)
	}
	m, err := loadModel(tf.model)
	if err != nil {
		return err
	}
	boundHeap(e)
	var opt chain.DecodeOptions
	opt.N = tf.nbest
	opt.Posterior = tf.marginals || tf.output == "json"
	// OCR input always carries its letters; other formats are read as
	// labeled only for --forced.
	labeled := tf.format == "ocr" || tf.forced
	if m.peer != nil {
		if tf.bio || tf.forced {
			return usagef("--bio and --forced need a model of this toolkit, not a %s model", m.peer.Format())
		}
		if tf.format, err = peerInputFormat(fs, tf.format, m.peer); err != nil {
			return err
		}
		labeled = peerLabeled(m.peer, false)
	} else {
		if m.ours.Encoder == nil {
			return chain.ErrNoEncoder
		}
		if err := checkFormat(tf.format, m.ours.Encoder.Kind()); err != nil {
			return err
		}
		if tf.bio {
			if !chain.HasChunkLabels(m.ours.Labels) {
				return fmt.Errorf("--bio: the labels of %s are not BIO chunk tags (B-X, I-X, O): %s",
					tf.model, strings.Join(m.ours.Labels, " "))
			}
			opt.Constraints = chain.BIOConstraints(m.ours.Labels)
		}
	}
	r, closeInput, err := openExamples(input, tf.dataFlags, labeled, e.stdin)
	if err != nil {
		return err
	}
	defer closeInput()
	return streamTag(e.stdout, m, r, &tf, opt, dataset.InputName(input))
}

// streamTag decodes every sequence of r with m and opt on tf.threads
// goroutines and writes them to out in input order as soon as they and all
// before them are done (output is flushed whenever the input is waited
// for); name is the input's name in error messages.
func streamTag(out io.Writer, m *anyModel, r *dataset.Reader, tf *tagFlags, opt chain.DecodeOptions, name string) error {
	var fixer *dataset.LabelFixer
	if tf.forced {
		fixer = dataset.NewLabelFixer(m.ours.Labels, name)
	}
	labels := m.labels()
	decs := make([]chain.Decoding, dataset.DefaultBatch)
	w := bufio.NewWriter(out)
	err := dataset.Stream(r, tf.threads, dataset.DefaultBatch, func(_, i, seq int, ex *dataset.Example) error {
		if m.peer != nil {
			if err := peerDecode(m.peer, &decs[i], ex, opt.N, opt.Posterior); err != nil {
				return fmt.Errorf("sequence %d: %w", seq+1, err)
			}
			return nil
		}
		o := opt
		if fixer != nil {
			var err error
			if o.Fixed, err = fixer.Fixed(ex, seq); err != nil {
				return err
			}
		}
		if err := m.tg.Decode(&decs[i], ex.Input(), o); err != nil {
			return fmt.Errorf("sequence %d: %w", seq+1, err)
		}
		return nil
	}, func(i, _ int, ex *dataset.Example) error {
		switch tf.output {
		case "conll":
			writeTagCoNLL(w, labels, ex, &decs[i], tf)
		case "slash":
			writeTagSlash(w, labels, ex, &decs[i], tf)
		case "json":
			return writeTagJSON(w, labels, ex, &decs[i], tf)
		}
		return nil
	}, w.Flush)
	if ferr := w.Flush(); err == nil {
		err = ferr
	}
	return err
}

// inputArg returns the input named by the positional arguments: "-"
// (standard input) when there are none.
func inputArg(pos []string) (string, error) {
	switch len(pos) {
	case 0:
		return "-", nil
	case 1:
		return pos[0], nil
	}
	return "", usagef("want at most one input file (none or - for stdin), got %d", len(pos))
}

// peerInputFormat returns the input format for a peer model: the one the
// model reads, or a usage error if --format was set to another.
func peerInputFormat(fs *flag.FlagSet, format string, m peer.Model) (string, error) {
	want := string(peerFormat(m))
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == "format" })
	if set && format != want {
		return "", usagef("--format %s does not fit this %s model, which reads %s input", format, m.Format(), want)
	}
	return want, nil
}

// fmtProb formats a probability with 4 decimals (enough for reading, and
// stable across platforms in golden tests).
func fmtProb(p float64) string { return strconv.FormatFloat(p, 'f', 4, 64) }

// tokenMarginal returns the marginal probability of label y at position t.
func tokenMarginal(d *chain.Decoding, L, t, y int) float64 { return d.Marginal[t*L+y] }

func writeTagCoNLL(w *bufio.Writer, labels []string, ex *dataset.Example, d *chain.Decoding, tf *tagFlags) {
	L := len(labels)
	for k, path := range d.Paths {
		switch {
		case tf.nbest > 1:
			fmt.Fprintf(w, "# nbest %d prob %s\n", k+1, fmtProb(d.Probs[k]))
		case tf.marginals:
			fmt.Fprintf(w, "# prob %s\n", fmtProb(d.Probs[k]))
		}
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
			if tf.marginals {
				w.WriteByte(' ')
				w.WriteString(fmtProb(tokenMarginal(d, L, t, y)))
			}
			w.WriteByte('\n')
		}
		w.WriteByte('\n')
	}
}

func writeTagSlash(w *bufio.Writer, labels []string, ex *dataset.Example, d *chain.Decoding, tf *tagFlags) {
	L := len(labels)
	for k, path := range d.Paths {
		for t, y := range path {
			if t > 0 {
				w.WriteByte(' ')
			}
			w.WriteString(ex.Text[t])
			w.WriteByte('/')
			w.WriteString(labels[y])
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

func writeTagJSON(w io.Writer, labels []string, ex *dataset.Example, d *chain.Decoding, tf *tagFlags) error {
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
