package main

import (
	"bufio"
	"fmt"
	"math"
	"sort"
	"strconv"

	"github.com/sparsetag/sparsetag/peer"
	"github.com/sparsetag/sparsetag/tagging"
)

func runDump(e *env, args []string) error {
	var modelPath string
	var top int
	fs := newFlagSet(e, "dump", "[flags]", "tagger dump --model chunk.model --top 10")
	fs.StringVar(&modelPath, "model", "tagger.model", "model `file`")
	fs.IntVar(&top, "top", 0, "only the `N` largest state weights (by absolute value) per label; 0 lists all")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return usagef("dump takes no positional arguments")
	}
	if top < 0 {
		return usagef("--top must be >= 0")
	}
	am, err := tagging.Load(modelPath)
	if err != nil {
		return err
	}
	if am.Peer != nil {
		return dumpPeer(e, am.Peer)
	}
	m := am.Ours
	w := bufio.NewWriter(e.stdout)
	L := m.NumLabels()
	attrName := func(a int) string {
		if m.Encoder != nil {
			return m.Encoder.Unary().Name(int32(a))
		}
		return "#" + strconv.Itoa(a)
	}
	pairName := func(a int) string {
		if m.Encoder != nil {
			return m.Encoder.Pair().Name(int32(a))
		}
		return "#" + strconv.Itoa(a)
	}
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	if top == 0 {
		for a := 0; a < m.NumUnary; a++ {
			for y := 0; y < L; y++ {
				if v := m.W[m.StateIndex(a, y)]; v != 0 {
					fmt.Fprintf(w, "state\t%s\t%s\t%s\n", attrName(a), m.Labels[y], f(v))
				}
			}
		}
	} else {
		for y := 0; y < L; y++ {
			var idx []int
			for a := 0; a < m.NumUnary; a++ {
				if m.W[m.StateIndex(a, y)] != 0 {
					idx = append(idx, a)
				}
			}
			sort.SliceStable(idx, func(i, j int) bool {
				return math.Abs(m.W[m.StateIndex(idx[i], y)]) > math.Abs(m.W[m.StateIndex(idx[j], y)])
			})
			if len(idx) > top {
				idx = idx[:top]
			}
			for _, a := range idx {
				fmt.Fprintf(w, "state\t%s\t%s\t%s\n", attrName(a), m.Labels[y], f(m.W[m.StateIndex(a, y)]))
			}
		}
	}
	for p := 0; p < L; p++ {
		for q := 0; q < L; q++ {
			if v := m.W[m.TransIndex(p, q)]; v != 0 {
				fmt.Fprintf(w, "trans\t%s\t%s\t%s\n", m.Labels[p], m.Labels[q], f(v))
			}
		}
	}
	for a := 0; a < m.NumPair; a++ {
		for p := 0; p < L; p++ {
			for q := 0; q < L; q++ {
				if v := m.W[m.PairIndex(a, p, q)]; v != 0 {
					fmt.Fprintf(w, "pair\t%s\t%s\t%s\t%s\n", pairName(a), m.Labels[p], m.Labels[q], f(v))
				}
			}
		}
	}
	return w.Flush()
}

// dumpPeer lists what package peer exposes of a model trained by another
// toolkit: its format and labels (and, for CRF++ and Wapiti, its
// templates). peer does not expose weights, so listing them is an error.
func dumpPeer(e *env, m peer.Model) error {
	w := bufio.NewWriter(e.stdout)
	fmt.Fprintf(w, "format\t%s\n", m.Format())
	for _, l := range m.Labels() {
		fmt.Fprintf(w, "label\t%s\n", l)
	}
	switch pm := m.(type) {
	case *peer.CRFPPModel:
		for _, t := range pm.Templates() {
			fmt.Fprintf(w, "template\t%s\n", t)
		}
	case *peer.WapitiModel:
		for _, p := range pm.Patterns() {
			fmt.Fprintf(w, "template\t%s\n", p)
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return fmt.Errorf("weights of %s models are not available: package peer reads them only to tag (labels and templates listed above)", m.Format())
}
