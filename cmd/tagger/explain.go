package main

import (
	"bufio"
	"fmt"
	"strconv"
	"strings"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/dataset"
	"github.com/sparsetag/sparsetag/sparse"
)

const explainUsage = `[flags] FILE

Tags every sequence of FILE ("-" for standard input) and shows why: for each
token, the predicted label with its marginal probability, its state score
(the sum of the weights of the token's attributes for that label) and the
runner-up label's, then the attributes that weigh most for the predicted
label (value x weight, largest absolute contribution first) and the
transition weight from the previous label (plus any observation-conditioned
pair features).

  # sequence 1: B-NP I-NP B-VP
  1    the DT   B-NP   p 0.9837   state 3.9268   (runner-up B-VP 0.0000)
       +1.8815  U00:_B-2
       ...
  2    cat NN   I-NP   p 0.9616   state 1.7670   (runner-up B-VP 0.0000)
       trans B-NP -> I-NP   +1.2818
       +0.8907  U01:the
       ... 2 more

Fields are separated by tabs.`

func runExplain(e *env, args []string) error {
	var df dataFlags
	var modelPath string
	var top int
	fs := newFlagSet(e, "explain", explainUsage,
		"tagger explain --model chunk.model --format conll --top 5 sentences.txt")
	fs.StringVar(&df.format, "format", "conll", "input `format`: conll, crfsuite, conllu, ocr or text")
	fs.StringVar(&df.folds, "folds", "", "OCR folds to use, e.g. `0` (default all)")
	fs.StringVar(&modelPath, "model", "tagger.model", "model `file`")
	fs.IntVar(&top, "top", 5, "show the `N` attributes that weigh most for each token's label (0: all)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("want exactly one input file (or - for stdin), got %d", len(pos))
	}
	if top < 0 {
		return usagef("--top must be >= 0, got %d", top)
	}
	m, err := chain.LoadFile(modelPath)
	if err != nil {
		return err
	}
	if m.Encoder == nil {
		return chain.ErrNoEncoder
	}
	if err := checkFormat(df.format, m.Encoder.Kind()); err != nil {
		return err
	}
	exs, err := readExamples(pos[0], df, df.format == "ocr", e.stdin)
	if err != nil {
		return err
	}
	tg := chain.NewTagger(m)
	w := bufio.NewWriter(e.stdout)
	var c sparse.Corpus
	var d chain.Decoding
	for i := range exs {
		c.Reset()
		if err := dataset.Encode(m.Encoder, &c, &exs[i], nil, false); err != nil {
			return fmt.Errorf("sequence %d: %w", i+1, err)
		}
		if err := tg.Decode(&d, chain.Encoded{Corpus: &c}, chain.DecodeOptions{Posterior: true}); err != nil {
			return fmt.Errorf("sequence %d: %w", i+1, err)
		}
		ex, err := m.Explain(&c, 0, d.Best())
		if err != nil {
			return fmt.Errorf("sequence %d: %w", i+1, err)
		}
		writeExplanation(w, m, &exs[i], &d, ex, i, top)
	}
	return w.Flush()
}

func signed(v float64) string {
	s := strconv.FormatFloat(v, 'f', 4, 64)
	if v >= 0 {
		return "+" + s
	}
	return s
}

func fmt4(v float64) string { return strconv.FormatFloat(v, 'f', 4, 64) }

// writeExplanation writes the explanation (chain.Model.Explain) of sequence
// i, decoded into d.
func writeExplanation(w *bufio.Writer, m *chain.Model, ex *dataset.Example, d *chain.Decoding, exp []chain.TokenExplanation, i, top int) {
	L := m.NumLabels()
	path := d.Best()
	names := make([]string, len(path))
	for t, y := range path {
		names[t] = m.Labels[y]
	}
	fmt.Fprintf(w, "# sequence %d: %s\n", i+1, strings.Join(names, " "))
	for t, e := range exp {
		y := e.Label
		word := ex.Text[t]
		if ex.Tokens != nil {
			word = strings.Join(ex.Tokens[t], " ")
		}
		fmt.Fprintf(w, "%d\t%s\t%s\tp %s\tstate %s", t+1, word, m.Labels[y], fmt4(d.Marginal[t*L+y]), fmt4(e.State[y]))
		if r := e.RunnerUp; r >= 0 {
			fmt.Fprintf(w, "\t(runner-up %s %s)", m.Labels[r], fmt4(e.State[r]))
		}
		w.WriteByte('\n')
		if e.Prev >= 0 {
			fmt.Fprintf(w, "\ttrans %s -> %s\t%s\n", m.Labels[e.Prev], m.Labels[y], signed(e.Trans))
			for _, p := range e.Pairs {
				fmt.Fprintf(w, "\tpair %s\t%s\n", p.Name, signed(p.Value))
			}
		}
		n := len(e.Attrs)
		if top > 0 && n > top {
			n = top
		}
		for _, p := range e.Attrs[:n] {
			fmt.Fprintf(w, "\t%s\t%s\n", signed(p.Value), p.Name)
		}
		if n < len(e.Attrs) {
			fmt.Fprintf(w, "\t... %d more\n", len(e.Attrs)-n)
		}
	}
	w.WriteByte('\n')
}
