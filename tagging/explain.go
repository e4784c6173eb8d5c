package tagging

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/dataset"
)

// Explain tags every example of exs with m and writes why, as tagger
// explain prints it: for each token the predicted label with its marginal
// probability, its state score and the runner-up label's, the transition
// (and pair) weights from the previous label, and the top attributes by
// absolute contribution (all with top = 0). The features are named as the
// model names them (for a peer model, as its tool does).
func Explain(out io.Writer, m Tagger, exs []dataset.Example, top int) error {
	if err := Require(m, Posterior|Explanation); err != nil {
		return err
	}
	w := bufio.NewWriter(out)
	labels := m.Labels()
	var d chain.Decoding
	for i := range exs {
		if err := m.Decode(&d, &exs[i], chain.DecodeOptions{Posterior: true}); err != nil {
			return seqError(&exs[i], i, err)
		}
		exp, err := m.Explain(&exs[i], d.Best())
		if err != nil {
			return seqError(&exs[i], i, err)
		}
		writeExplanation(w, labels, &exs[i], &d, exp, i, top)
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

// writeExplanation writes the explanation exp of sequence i, decoded into d
// (d.Marginal is T×L).
func writeExplanation(w *bufio.Writer, labels []string, ex *dataset.Example, d *chain.Decoding, exp []chain.TokenExplanation, i, top int) {
	L := len(labels)
	path := d.Best()
	names := make([]string, len(path))
	for t, y := range path {
		names[t] = labels[y]
	}
	fmt.Fprintf(w, "# sequence %d: %s\n", i+1, strings.Join(names, " "))
	for t, e := range exp {
		y := e.Label
		word := ex.Text[t]
		if ex.Tokens != nil {
			word = strings.Join(ex.Tokens[t], " ")
		}
		fmt.Fprintf(w, "%d\t%s\t%s\tp %s\tstate %s", t+1, word, labels[y], fmt4(d.Marginal[t*L+y]), fmt4(e.State[y]))
		if r := e.RunnerUp; r >= 0 {
			fmt.Fprintf(w, "\t(runner-up %s %s)", labels[r], fmt4(e.State[r]))
		}
		w.WriteByte('\n')
		if e.Prev >= 0 {
			fmt.Fprintf(w, "\ttrans %s -> %s\t%s\n", labels[e.Prev], labels[y], signed(e.Trans))
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
