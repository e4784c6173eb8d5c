package peer

import (
	"fmt"
	"math"
	"testing"
)

// TestCRFsuiteFixtures compares with `crfsuite tag` (labels) and `crfsuite
// tag -p -i` (@score, @probability and the marginal of each predicted
// label), all printed with %f.
func TestCRFsuiteFixtures(t *testing.T) {
	m := openModel(t, "conll.crfsuite.gz").(*CRFsuiteModel)
	seqs := attrInput(t)
	tags := blocks(gunzip(t, "crfsuite.tags.gz"))
	probs := blocks(gunzip(t, "crfsuite.tags-prob-marginal.gz"))
	if len(tags) != len(seqs) || len(probs) != len(seqs) {
		t.Fatalf("%d sequences, %d tag blocks, %d probability blocks", len(seqs), len(tags), len(probs))
	}
	labels := m.Labels()
	var path []int
	var node []float64
	tokens, lines := 0, 0
	for i, seq := range seqs {
		var score, logZ float64
		var err error
		path, score, err = m.Viterbi(path, seq)
		if err != nil {
			t.Fatal(err)
		}
		node, logZ, err = m.Marginals(node, seq)
		if err != nil {
			t.Fatal(err)
		}
		L := len(labels)
		want := probs[i]
		got := []string{
			fmt.Sprintf("@score\t%f\t%f", score, logZ),
			fmt.Sprintf("@probability\t%f", math.Exp(score-logZ)),
		}
		for pos, y := range path {
			got = append(got, fmt.Sprintf("%s:%f", labels[y], node[pos*L+y]))
			if pos < len(tags[i]) && labels[y] == tags[i][pos] {
				tokens++
			} else {
				t.Errorf("sequence %d position %d: label %s, crfsuite.tags has %q", i, pos, labels[y], tags[i][min(pos, len(tags[i])-1)])
			}
		}
		if len(got) != len(want) || len(tags[i]) != len(path) {
			t.Fatalf("sequence %d: %d lines, want %d", i, len(got), len(want))
		}
		for k := range got {
			if got[k] != want[k] {
				t.Errorf("sequence %d line %d: got %q, want %q", i, k, got[k], want[k])
			} else {
				lines++
			}
		}
	}
	t.Logf("%d sequences: %d/%d labels, %d/%d -p -i lines identical", len(seqs), tokens, tokens, lines, lines)
}
