package peer

import (
	"fmt"
	"strings"
	"testing"
)

// wapitiLines returns the raw input lines of the test set, one slice per
// sequence: wapiti label echoes them before a TAB and the label.
func wapitiLines(t *testing.T) [][]string {
	return blocks(gunzip(t, "test.txt.gz"))
}

// TestWapitiFixtures compares with wapiti label (labels), wapiti label -s
// -n 3 (3-best with scores) and wapiti label -p (posterior decoding).
func TestWapitiFixtures(t *testing.T) {
	m := openModel(t, "conll.wapiti.gz").(*WapitiModel)
	seqs := columnInput(t)
	raw := wapitiLines(t)
	labelsOut := blocks(gunzip(t, "wapiti.labels.gz"))
	post := blocks(gunzip(t, "wapiti.posterior.gz"))
	nb := blocks(gunzip(t, "wapiti.nbest3.gz"))
	if len(raw) != len(seqs) || len(labelsOut) != len(seqs) || len(post) != len(seqs) || len(nb) != 3*len(seqs) {
		t.Fatalf("%d sequences, %d raw, %d/%d/%d output blocks", len(seqs), len(raw), len(labelsOut), len(post), len(nb))
	}
	labels := m.Labels()
	var path []int
	var nl, np, nn int
	for i, seq := range seqs {
		var err error
		path, err = m.Tag(path, seq)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for k, y := range path {
			got = append(got, raw[i][k]+"\t"+labels[y])
		}
		nl += compareBlock(t, "labels", i, got, labelsOut[i])

		pp, err := m.Posterior(seq, 1)
		if err != nil {
			t.Fatal(err)
		}
		got = got[:0]
		for k, y := range pp[0].Labels {
			got = append(got, raw[i][k]+"\t"+labels[y])
		}
		np += compareBlock(t, "-p", i, got, post[i])

		paths, err := m.NBest(seq, 3)
		if err != nil {
			t.Fatal(err)
		}
		for n, p := range paths {
			got := []string{fmt.Sprintf("# %d %f", n, p.Score)}
			for k, y := range p.Labels {
				got = append(got, fmt.Sprintf("%s\t%s\t%s/%f", raw[i][k], labels[y], labels[y], p.Local[k]))
			}
			nn += compareBlock(t, "-s -n 3", i, got, nb[3*i+n])
		}
	}
	t.Logf("identical lines: labels %d, -p %d, -s -n 3 %d", nl, np, nn)
}

func TestWapitiRegexp(t *testing.T) {
	for _, c := range []struct {
		re, s    string
		start, n int
		ok       bool
	}{
		{"a", "cab", 1, 1, true},
		{"^a", "cab", -1, 0, false},
		{"\\d\\d*", "ab123", 2, 1, true}, // '*' takes the shortest match
		{"\\d\\d*$", "ab123", 2, 3, true},
		{"b?c", "abc", 1, 2, true},
		{"a?ab", "ab", 0, 3, true}, // Wapiti's count overshoots here
		{"x", "", -1, 0, false},
		{"$", "ab", 2, 0, true},
	} {
		start, n, ok := rexMatchLen(c.re, c.s)
		if start != c.start || n != c.n || ok != c.ok {
			t.Errorf("rexMatchLen(%q, %q) = %d, %d, %v; want %d, %d, %v", c.re, c.s, start, n, ok, c.start, c.n, c.ok)
		}
	}
	pat, msg := compileWapiti(`u:%M[0,0,"\u\l*"]/%t[@1,0,"^\d"]/%X[-9,1]`)
	if msg != "" {
		t.Fatal(msg)
	}
	// \l* takes zero letters: the shortest match.
	toks := [][]string{{"42", "A"}, {"xHello", "B"}}
	got, err := pat.exec(nil, toks, 1)
	if err != nil {
		t.Fatal(err)
	}
	if want := "u:h/true/_x-#"; string(got) != want {
		t.Errorf("exec = %q, want %q", got, want)
	}
	if !strings.Contains(compileMsg(`u:%t[0,0,"*a"]`), "unescaped") {
		t.Errorf("a leading '*' in a regexp was accepted")
	}
}

func compileMsg(p string) string { _, msg := compileWapiti(p); return msg }
