package peer

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/sparsetag/sparsetag/corpora"
)

// crfppBlock formats seq as crf_test prints it: the input columns, TAB, the
// predicted label, with -v1 "/prob" and with -v2 every label's marginal.
func crfppBlock(labels []string, seq corpora.Sequence, path []int, node []float64, vlevel int) []string {
	L := len(labels)
	var out []string
	for t, y := range path {
		s := strings.Join(seq.Tokens[t], "\t") + "\t" + labels[y]
		if vlevel >= 1 {
			s += fmt.Sprintf("/%f", node[t*L+y])
		}
		if vlevel >= 2 {
			for j := range labels {
				s += fmt.Sprintf("\t%s/%f", labels[j], node[t*L+j])
			}
		}
		out = append(out, s)
	}
	return out
}

func compareBlock(t *testing.T, what string, i int, got, want []string) int {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s sequence %d: %d lines, want %d", what, i, len(got), len(want))
		return 0
	}
	n := 0
	for k := range got {
		if got[k] != want[k] {
			t.Errorf("%s sequence %d line %d:\n got %q\nwant %q", what, i, k, got[k], want[k])
		} else {
			n++
		}
	}
	return n
}

// TestCRFPPFixtures compares with crf_test's output on the binary model
// (labels, -v1, -v2, -n 3) and checks that the text model tags the same.
func TestCRFPPFixtures(t *testing.T) {
	seqs := columnInput(t)
	labelsOut := blocks(gunzip(t, "crfpp.labels.gz"))
	v1 := blocks(gunzip(t, "crfpp.v1.gz"))
	v2 := blocks(gunzip(t, "crfpp.v2.gz"))
	nb := blocks(gunzip(t, "crfpp.nbest3.gz"))
	if len(labelsOut) != len(seqs) || len(v1) != len(seqs) || len(v2) != len(seqs) {
		t.Fatalf("%d sequences, %d/%d/%d output blocks", len(seqs), len(labelsOut), len(v1), len(v2))
	}
	for _, name := range []string{"conll.crfpp.gz", "conll.crfpp.txt.gz"} {
		m := openModel(t, name).(*CRFPPModel)
		labels := m.Labels()
		var path []int
		var node []float64
		var nl, n1, n2, nn int
		nbi := 0
		for i, seq := range seqs {
			var err error
			path, err = m.Tag(path, seq)
			if err != nil {
				t.Fatal(err)
			}
			var logZ float64
			node, logZ, err = m.Marginals(node, seq)
			if err != nil {
				t.Fatal(err)
			}
			nl += compareBlock(t, name+" labels", i, crfppBlock(labels, seq, path, node, 0), labelsOut[i])
			paths, err := m.NBest(seq, 1)
			if err != nil {
				t.Fatal(err)
			}
			head := fmt.Sprintf("# %f", math.Exp(paths[0].Score-logZ))
			n1 += compareBlock(t, name+" -v1", i, append([]string{head}, crfppBlock(labels, seq, path, node, 1)...), v1[i])
			n2 += compareBlock(t, name+" -v2", i, append([]string{head}, crfppBlock(labels, seq, path, node, 2)...), v2[i])
			paths, err = m.NBest(seq, 3)
			if err != nil {
				t.Fatal(err)
			}
			for k, p := range paths {
				got := append([]string{fmt.Sprintf("# %d %f", k, math.Exp(p.Score-logZ))}, crfppBlock(labels, seq, p.Labels, nil, 0)...)
				if nbi >= len(nb) {
					t.Fatalf("more n-best blocks than crfpp.nbest3")
				}
				nn += compareBlock(t, name+" -n 3", i, got, nb[nbi])
				nbi++
			}
		}
		if nbi != len(nb) {
			t.Errorf("%d n-best blocks, crfpp.nbest3 has %d", nbi, len(nb))
		}
		t.Logf("%s: identical lines: labels %d, -v1 %d, -v2 %d, -n 3 %d", name, nl, n1, n2, nn)
	}
}
