package tagging

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/dataset"
	"github.com/sparsetag/sparsetag/peer"
	"github.com/sparsetag/sparsetag/sparse"
)

// Explain tags every example of exs with m and writes why, as tagger
// explain prints it: for each token the predicted label with its marginal
// probability, its state score and the runner-up label's, the transition
// (and pair) weights from the previous label, and the top attributes by
// absolute contribution (all with top = 0). Models of this toolkit are
// explained by chain.Model.Explain, peer models by their Explain (their
// features named as the tool names them).
func Explain(out io.Writer, m *Model, exs []dataset.Example, top int) error {
	w := bufio.NewWriter(out)
	labels := m.Labels()
	if m.Peer != nil {
		var d chain.Decoding
		for i := range exs {
			if err := explainPeer(m.Peer, &d, &exs[i]); err != nil {
				return fmt.Errorf("sequence %d: %w", i+1, err)
			}
			pe, err := m.Peer.Explain(PeerSequence(&exs[i]), d.Best())
			if err != nil {
				return fmt.Errorf("sequence %d: %w", i+1, err)
			}
			writeExplanation(w, labels, &exs[i], &d, fromPeer(pe), i, top)
		}
		return w.Flush()
	}
	mo, tg := m.Ours, m.Tagger
	var c sparse.Corpus
	var d chain.Decoding
	for i := range exs {
		c.Reset()
		if err := dataset.Encode(mo.Encoder, &c, &exs[i], nil, false); err != nil {
			return fmt.Errorf("sequence %d: %w", i+1, err)
		}
		if err := tg.Decode(&d, chain.Encoded{Corpus: &c}, chain.DecodeOptions{Posterior: true}); err != nil {
			return fmt.Errorf("sequence %d: %w", i+1, err)
		}
		ex, err := mo.Explain(&c, 0, d.Best())
		if err != nil {
			return fmt.Errorf("sequence %d: %w", i+1, err)
		}
		writeExplanation(w, labels, &exs[i], &d, ex, i, top)
	}
	return w.Flush()
}

// explainPeer decodes ex with a peer model into d: the tool's Viterbi
// labels and the node marginals.
func explainPeer(m peer.Model, d *chain.Decoding, ex *dataset.Example) error {
	seq := PeerSequence(ex)
	if cap(d.Paths) < 1 {
		d.Paths = make([][]int, 1)
	}
	d.Paths = d.Paths[:1]
	var err error
	if d.Paths[0], err = m.Tag(d.Paths[0], seq); err != nil {
		return err
	}
	d.Marginal, d.LogZ, err = m.Marginals(d.Marginal[:0], seq)
	return err
}

// fromPeer converts a peer explanation (attribute ids are -1).
func fromPeer(pe []peer.TokenExplanation) []chain.TokenExplanation {
	conv := func(cs []peer.Contribution) []chain.Contribution {
		var out []chain.Contribution
		for _, c := range cs {
			out = append(out, chain.Contribution{Attr: -1, Name: c.Name, Value: c.Value})
		}
		return out
	}
	out := make([]chain.TokenExplanation, len(pe))
	for t, e := range pe {
		out[t] = chain.TokenExplanation{Label: e.Label, State: e.State, RunnerUp: e.RunnerUp, Attrs: conv(e.Attrs),
			Prev: e.Prev, Trans: e.Trans, Pairs: conv(e.Pairs)}
	}
	return out
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
