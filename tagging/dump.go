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
func Dump(out io.Writer, m Weighted, top int) error {
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

// fmtWeight is the shortest decimal that reads back as v.
func fmtWeight(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
