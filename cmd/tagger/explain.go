package main

import (
	"bufio"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/sparsetag/sparsetag/chain"
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
		if err := encodeOne(m.Encoder, &c, &exs[i], nil, false); err != nil {
			return fmt.Errorf("sequence %d: %w", i+1, err)
		}
		if err := tg.DecodeEncoded(&d, &c, 0, chain.DecodeOptions{Posterior: true}); err != nil {
			return fmt.Errorf("sequence %d: %w", i+1, err)
		}
		explainSequence(w, m, &c, &exs[i], &d, i, top)
	}
	return w.Flush()
}

// contribution is one attribute's part of a score.
type contribution struct {
	name  string
	value float64
}

func signed(v float64) string {
	s := strconv.FormatFloat(v, 'f', 4, 64)
	if v >= 0 {
		return "+" + s
	}
	return s
}

// explainSequence writes the explanation of sequence 0 of c, decoded into d.
func explainSequence(w *bufio.Writer, m *chain.Model, c *sparse.Corpus, ex *example, d *chain.Decoding, i, top int) {
	L := m.NumLabels()
	path := d.Best()
	fmt.Fprintf(w, "# sequence %d: %s\n", i+1, strings.Join(labelNames(m, path), " "))
	state := make([]float64, L)
	var parts []contribution
	for t, y := range path {
		// State scores of every label, to name the runner-up.
		clear(state)
		cols, vals := c.Unary.Row(t)
		parts = parts[:0]
		for k, a := range cols {
			v := 1.0
			if vals != nil {
				v = vals[k]
			}
			wa := m.State[int(a)*L : int(a)*L+L]
			for l := range state {
				state[l] += v * wa[l]
			}
			if x := v * wa[y]; x != 0 {
				parts = append(parts, contribution{m.Encoder.Unary().Name(a), x})
			}
		}
		word := ex.text[t]
		if ex.tokens != nil {
			word = strings.Join(ex.tokens[t], " ")
		}
		fmt.Fprintf(w, "%d\t%s\t%s\tp %s\tstate %s", t+1, word, m.Labels[y],
			strconv.FormatFloat(d.Marginal[t*L+y], 'f', 4, 64), strconv.FormatFloat(state[y], 'f', 4, 64))
		if r := runnerUp(state, y); r >= 0 {
			fmt.Fprintf(w, "\t(runner-up %s %s)", m.Labels[r], strconv.FormatFloat(state[r], 'f', 4, 64))
		}
		w.WriteByte('\n')
		if t > 0 {
			p := path[t-1]
			fmt.Fprintf(w, "\ttrans %s -> %s\t%s\n", m.Labels[p], m.Labels[y], signed(m.W[m.TransIndex(p, y)]))
			var pc []int32
			var pv []float64
			if c.Pair.Rows() > t {
				pc, pv = c.Pair.Row(t)
			}
			for k, a := range pc {
				v := 1.0
				if pv != nil {
					v = pv[k]
				}
				if x := v * m.W[m.PairIndex(int(a), p, y)]; x != 0 {
					fmt.Fprintf(w, "\tpair %s\t%s\n", m.Encoder.Pair().Name(a), signed(x))
				}
			}
		}
		sort.SliceStable(parts, func(a, b int) bool { return math.Abs(parts[a].value) > math.Abs(parts[b].value) })
		n := len(parts)
		if top > 0 && n > top {
			n = top
		}
		for _, p := range parts[:n] {
			fmt.Fprintf(w, "\t%s\t%s\n", signed(p.value), p.name)
		}
		if n < len(parts) {
			fmt.Fprintf(w, "\t... %d more\n", len(parts)-n)
		}
	}
	w.WriteByte('\n')
}

// runnerUp returns the label other than y with the highest state score
// (the lowest index among ties), or -1 if there is none.
func runnerUp(state []float64, y int) int {
	r := -1
	for l, s := range state {
		if l != y && (r < 0 || s > state[r]) {
			r = l
		}
	}
	return r
}

func labelNames(m *chain.Model, path []int) []string {
	out := make([]string, len(path))
	for t, y := range path {
		out[t] = m.Labels[y]
	}
	return out
}
