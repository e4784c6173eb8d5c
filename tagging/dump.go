package tagging

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"

	"github.com/sparsetag/sparsetag/peer"
)

// Dump writes the non-zero weights of m to out as TSV, one per line:
//
//	state	ATTRIBUTE	LABEL	WEIGHT
//	trans	PREV	LABEL	WEIGHT
//	pair	ATTRIBUTE	PREV	LABEL	WEIGHT
//
// state lines first (all of them, or with top > 0 only the top largest by
// absolute value per label, label by label), then trans, then pair lines.
// Weights are written in the shortest form that reads back exactly. A peer
// model's weights are named as its tool names them (peer.Weight): CRFsuite
// attributes, CRF++ feature strings (U02:the), Wapiti observations; CRF++
// and Wapiti bigram templates that read no input ("B", "b") give trans
// lines, the others pair lines.
func Dump(out io.Writer, am *Model, top int) error {
	if am.Peer != nil {
		return dumpPeer(out, am.Peer, top)
	}
	m := am.Ours
	w := bufio.NewWriter(out)
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

// fmtWeight is the shortest decimal that reads back as v.
func fmtWeight(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// dumpPeer is Dump for a peer model.
func dumpPeer(out io.Writer, m peer.Model, top int) error {
	labels := m.Labels()
	byLabel := make([][]peer.Weight, len(labels)) // state weights, with top > 0
	var trans, pair []peer.Weight
	w := bufio.NewWriter(out)
	err := m.Weights(func(x peer.Weight) error {
		switch {
		case x.Value == 0:
		case x.Kind == peer.TransWeight:
			trans = append(trans, x)
		case x.Kind == peer.PairWeight:
			pair = append(pair, x)
		case top > 0:
			byLabel[x.Label] = append(byLabel[x.Label], x)
		default:
			fmt.Fprintf(w, "state\t%s\t%s\t%s\n", x.Feature, labels[x.Label], fmtWeight(x.Value))
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, ws := range byLabel {
		sort.SliceStable(ws, func(i, j int) bool { return math.Abs(ws[i].Value) > math.Abs(ws[j].Value) })
		for _, x := range ws[:min(top, len(ws))] {
			fmt.Fprintf(w, "state\t%s\t%s\t%s\n", x.Feature, labels[x.Label], fmtWeight(x.Value))
		}
	}
	for _, x := range trans {
		fmt.Fprintf(w, "trans\t%s\t%s\t%s\n", labels[x.Prev], labels[x.Label], fmtWeight(x.Value))
	}
	for _, x := range pair {
		fmt.Fprintf(w, "pair\t%s\t%s\t%s\t%s\n", x.Feature, labels[x.Prev], labels[x.Label], fmtWeight(x.Value))
	}
	return w.Flush()
}
