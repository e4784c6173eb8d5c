package main

import (
	"bufio"
	"compress/gzip"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/sparsetag/sparsetag/peer"
)

// peerData holds the models of CRFsuite, CRF++ and Wapiti and their own
// tagging outputs (peer/testdata/README.peer-models.md).
const peerData = "../../peer/testdata"

// lastFields returns the last whitespace-separated field of every
// non-blank line: the label of a conll-style output line.
func lastFields(text string) []string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "@") {
			continue
		}
		out = append(out, f[len(f)-1])
	}
	return out
}

func gunzipFile(t *testing.T, name string) string {
	t.Helper()
	f, err := os.Open(filepath.Join(peerData, name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if _, err := bufio.NewReader(zr).WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestTagPeerModels: tag --model with a model of each peer toolkit prints
// exactly the labels the toolkit's own tagger printed, from a file and from
// standard input, on one and two threads.
func TestTagPeerModels(t *testing.T) {
	colInput := filepath.Join(peerData, "test.txt.gz")
	for _, tc := range []struct {
		name, model, input, want string
		extra                    []string
	}{
		{"crfsuite", "conll.crfsuite.gz", filepath.Join(peerData, "test.crfsuite.gz"), "crfsuite.tags.gz", nil},
		{"crfsuite-format", "conll.crfsuite.gz", filepath.Join(peerData, "test.crfsuite.gz"), "crfsuite.tags.gz", []string{"--format", "crfsuite"}},
		{"crfpp-binary", "conll.crfpp.gz", colInput, "crfpp.labels.gz", nil},
		{"crfpp-text", "conll.crfpp.txt.gz", colInput, "crfpp.labels.gz", []string{"--threads", "1"}},
		{"wapiti", "conll.wapiti.gz", colInput, "wapiti.labels.gz", nil},
		{"wapiti-stdin", "conll.wapiti.gz", "", "wapiti.labels.gz", []string{"--threads", "2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdin := ""
			args := append([]string{"tag", "--model", filepath.Join(peerData, tc.model)}, tc.extra...)
			if tc.input == "" {
				stdin = gunzipFile(t, "test.txt.gz")
			} else {
				args = append(args, tc.input)
			}
			stdout, stderr, code := tagRun(t, "$NONE", stdin, args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			got, want := lastFields(stdout), lastFields(gunzipFile(t, tc.want))
			if len(got) != len(want) || len(want) != 4916 {
				t.Fatalf("%d labels, the tool printed %d (want 4916)", len(got), len(want))
			}
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("token %d: label %s, the tool printed %s", i+1, got[i], want[i])
				}
			}
		})
	}
}

// TestTagPeerProbabilities: the sequence probabilities of --marginals for a
// CRFsuite model are those of crfsuite tag -p (to the 4 decimals printed).
func TestTagPeerProbabilities(t *testing.T) {
	stdout, stderr, code := tagRun(t, "$NONE", "", "tag", "--model", filepath.Join(peerData, "conll.crfsuite.gz"),
		"--marginals", filepath.Join(peerData, "test.crfsuite.gz"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var got, want []string
	for _, line := range strings.Split(stdout, "\n") {
		if p, ok := strings.CutPrefix(line, "# prob "); ok {
			got = append(got, p)
		}
	}
	for _, line := range strings.Split(gunzipFile(t, "crfsuite.tags-prob-marginal.gz"), "\n") {
		if p, ok := strings.CutPrefix(line, "@probability\t"); ok {
			want = append(want, p)
		}
	}
	if len(got) != 200 || len(want) != 200 {
		t.Fatalf("%d probabilities, crfsuite printed %d (want 200)", len(got), len(want))
	}
	for i := range want {
		// crfsuite prints 6 decimals, tag 4: equal after rounding.
		g, _ := strconv.ParseFloat(got[i], 64)
		w, _ := strconv.ParseFloat(want[i], 64)
		if math.Abs(g-w) > 0.5e-4+1e-6 {
			t.Errorf("sequence %d: prob %s, crfsuite %s", i+1, got[i], want[i])
		}
	}
}

// TestDumpPeerModel: dump lists the non-zero weights of each peer model in
// the layout of our own models; the number of lines and the weights
// themselves are checked against the model files (CRFsuite's FEAT chunk,
// the weight lines of the CRF++ and Wapiti text models), and the CRF++
// binary model dumps exactly as its text twin.
func TestDumpPeerModel(t *testing.T) {
	dump := func(name string, args ...string) []string {
		t.Helper()
		stdout, stderr, code := tagRun(t, "$NONE", "", append([]string{"dump", "--model", filepath.Join(peerData, name)}, args...)...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", name, code, stderr)
		}
		return strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	}
	// values returns the sorted weights of dump lines (the last field),
	// checking the field count of each kind of line.
	values := func(lines []string) []float64 {
		t.Helper()
		var out []float64
		for _, l := range lines {
			f := strings.Split(l, "\t")
			if n := map[string]int{"state": 4, "trans": 4, "pair": 5}[f[0]]; n == 0 || len(f) != n {
				t.Fatalf("dump line %q", l)
			}
			v, err := strconv.ParseFloat(f[len(f)-1], 64)
			if err != nil || v == 0 {
				t.Fatalf("dump line %q: weight %v %v", l, v, err)
			}
			out = append(out, v)
		}
		sort.Float64s(out)
		return out
	}
	same := func(name string, got, want []float64) {
		t.Helper()
		if len(got) != len(want) {
			t.Fatalf("%s: %d weights, the model file has %d", name, len(got), len(want))
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("%s: sorted weight %d is %v, the model file has %v", name, i, got[i], want[i])
			}
		}
	}

	// CRFsuite: the FEAT chunk (header word 7 is its offset) holds n
	// features of 20 bytes, the weight at byte 12; all are non-zero.
	raw := []byte(gunzipFile(t, "conll.crfsuite.gz"))
	le := binary.LittleEndian
	feat := le.Uint32(raw[28:])
	n := le.Uint32(raw[feat+8:])
	var want []float64
	for i := uint32(0); i < n; i++ {
		want = append(want, math.Float64frombits(le.Uint64(raw[feat+12+20*i+12:])))
	}
	sort.Float64s(want)
	lines := dump("conll.crfsuite.gz")
	same("crfsuite", values(lines), want)
	if !slices.Contains(lines, "state\tU02:the\tB-NP\t"+strconv.FormatFloat(crfsuiteWeight(t, raw, "U02:the", "B-NP"), 'g', -1, 64)) {
		t.Errorf("crfsuite: no state line for U02:the B-NP")
	}

	// CRF++ text: after the header, labels, templates and "id key"
	// sections, one weight per line; crf_test holds them as float32.
	sections := strings.SplitN(gunzipFile(t, "conll.crfpp.txt.gz"), "\n\n", 5)
	labels := strings.Split(sections[1], "\n")
	var alpha []float64
	want = want[:0]
	for _, s := range strings.Fields(sections[4]) {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatal(err)
		}
		alpha = append(alpha, float64(float32(v)))
		if v != 0 {
			want = append(want, float64(float32(v)))
		}
	}
	sort.Float64s(want)
	text := dump("conll.crfpp.txt.gz")
	same("crfpp text", values(text), want)
	// Spot checks by name: U02:the for every label, and the B transition
	// from the first label to the second.
	ids := map[string]int{}
	for _, l := range strings.Split(sections[3], "\n") {
		id, key, _ := strings.Cut(l, " ")
		ids[key], _ = strconv.Atoi(id)
	}
	L := len(labels)
	for y, lab := range labels {
		if v := alpha[ids["U02:the"]+y]; v != 0 && !slices.Contains(text, "state\tU02:the\t"+lab+"\t"+strconv.FormatFloat(v, 'g', -1, 64)) {
			t.Errorf("crfpp: no state line for U02:the %s %v", lab, v)
		}
	}
	if v := alpha[ids["B"]+0*L+1]; !slices.Contains(text, "trans\t"+labels[0]+"\t"+labels[1]+"\t"+strconv.FormatFloat(v, 'g', -1, 64)) {
		t.Errorf("crfpp: no trans line %s %s %v", labels[0], labels[1], v)
	}
	if bin := dump("conll.crfpp.gz"); !slices.Equal(bin, text) {
		t.Errorf("the CRF++ binary model dumps %d lines, its text twin %d, or they differ", len(bin), len(text))
	}

	// Wapiti: "#mdl#2#NACT", then NACT lines "f=%la" at the end of the file.
	wf := strings.Fields(gunzipFile(t, "conll.wapiti.gz"))
	nact, err := strconv.Atoi(strings.TrimPrefix(wf[0], "#mdl#2#"))
	if err != nil {
		t.Fatal(err)
	}
	want = want[:0]
	for _, s := range wf[len(wf)-nact:] {
		_, hex, _ := strings.Cut(s, "=")
		v, err := strconv.ParseFloat(hex, 64)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, v)
	}
	sort.Float64s(want)
	same("wapiti", values(dump("conll.wapiti.gz")), want)

	// --top keeps the N largest state weights per label.
	top := dump("conll.wapiti.gz", "--top", "2")
	states := 0
	for _, l := range top {
		if strings.HasPrefix(l, "state\t") {
			states++
		}
	}
	if states != 2*len(openPeer(t, "conll.wapiti.gz").Labels()) {
		t.Errorf("--top 2: %d state lines", states)
	}
}

// TestTagPeerUsage: a format the peer model does not read is a usage
// error.
func TestTagPeerUsage(t *testing.T) {
	model := filepath.Join(peerData, "conll.crfpp.gz")
	for _, args := range [][]string{
		{"tag", "--model", model, "--format", "crfsuite", "x"},
		{"tag", "--model", model, "a", "b"},
	} {
		_, stderr, code := tagRun(t, "$NONE", "", args...)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2 (%s)", args, code, stderr)
		}
	}
}

// TestEvalPeerModel: eval streams labeled input through a peer model and
// prints the usual report lines.
func TestEvalPeerModel(t *testing.T) {
	stdout, stderr, code := tagRun(t, "$NONE", "", "eval", "--model", filepath.Join(peerData, "conll.crfpp.txt.gz"),
		"--threads", "2", filepath.Join(peerData, "test.txt.gz"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"sequences: 200, ", "processed 4916 tokens", "\naccuracy: 0.", "\nf1: 0."} {
		if !strings.Contains(stdout, want) {
			t.Errorf("missing %q in\n%s", want, stdout)
		}
	}
}

// crfsuiteWeight returns the weight of the state feature (attr, label) of
// a CRFsuite model file's bytes, read from its FEAT chunk and the names of
// its label and attribute CQDBs (backward links: id → record "id, size,
// key").
func crfsuiteWeight(t *testing.T, raw []byte, attr, label string) float64 {
	t.Helper()
	le := binary.LittleEndian
	u32 := func(off uint32) uint32 { return le.Uint32(raw[off:]) }
	name := func(chunk, id uint32) string {
		rec := chunk + u32(chunk+u32(chunk+20)+4*id)
		return strings.TrimRight(string(raw[rec+8:rec+8+u32(rec+4)]), "\x00")
	}
	feat, labels, attrs := u32(28), u32(32), u32(36)
	for i := uint32(0); i < u32(feat+8); i++ {
		p := feat + 12 + 20*i
		if u32(p) == 0 && name(attrs, u32(p+4)) == attr && name(labels, u32(p+8)) == label {
			return math.Float64frombits(le.Uint64(raw[p+12:]))
		}
	}
	t.Fatalf("no state feature %s %s", attr, label)
	return 0
}

func openPeer(t *testing.T, name string) peer.Model {
	t.Helper()
	m, err := peer.Open(filepath.Join(peerData, name))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestExplainPeerModel: explain on each peer model explains the labels the
// tool itself printed (its own output files), and with --top 0 each
// token's contributions add up to its state score.
func TestExplainPeerModel(t *testing.T) {
	for _, c := range []struct{ model, input, tool string }{
		{"conll.crfsuite.gz", "test.crfsuite.gz", "crfsuite.tags.gz"},
		{"conll.crfpp.gz", "test.txt.gz", "crfpp.labels.gz"},
		{"conll.crfpp.txt.gz", "test.txt.gz", "crfpp.labels.gz"},
		{"conll.wapiti.gz", "test.txt.gz", "wapiti.labels.gz"},
	} {
		stdout, stderr, code := tagRun(t, "$NONE", "", "explain", "--top", "0", "--model", filepath.Join(peerData, c.model), filepath.Join(peerData, c.input))
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.model, code, stderr)
		}
		var got []string
		state, sum, tokens := 0.0, 0.0, 0
		check := func() {
			if tokens > 0 && math.Abs(sum-state) > 2e-3 { // 4 decimals per printed value
				t.Fatalf("%s: token %d: contributions sum to %v, state %v", c.model, tokens, sum, state)
			}
		}
		for _, line := range strings.Split(stdout, "\n") {
			f := strings.Split(line, "\t")
			switch {
			case strings.HasPrefix(line, "# sequence "):
				_, labels, _ := strings.Cut(line, ": ")
				got = append(got, strings.Fields(labels)...)
			case len(f) >= 5 && f[0] != "":
				check()
				tokens++
				state, _ = strconv.ParseFloat(strings.TrimPrefix(f[4], "state "), 64)
				sum = 0
			case len(f) == 3 && f[0] == "" && !strings.HasPrefix(f[1], "trans ") && !strings.HasPrefix(f[1], "pair "):
				v, err := strconv.ParseFloat(f[1], 64)
				if err != nil {
					t.Fatalf("%s: line %q", c.model, line)
				}
				sum += v
			}
		}
		check()
		want := lastFields(gunzipFile(t, c.tool))
		if !slices.Equal(got, want) || tokens != len(want) {
			t.Errorf("%s: explained %d labels on %d token lines, the tool printed %d (equal: %v)", c.model, len(got), tokens, len(want), slices.Equal(got, want))
		}
		if !strings.Contains(stdout, "\ttrans ") {
			t.Errorf("%s: no transition lines", c.model)
		}
	}
}
