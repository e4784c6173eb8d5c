package peer

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
)

// The expected weights of each fixture are read from the model file by the
// small independent readers below (the file layouts documented in
// crfsuite.go, crfpp.go and wapiti.go, decoded directly), not from the
// package's parsers, and compared with Weights as multisets of
// "kind feature prev label value" lines.

func weightLines(t *testing.T, m Model, skipZero bool) map[string]int {
	t.Helper()
	labels := m.Labels()
	got := map[string]int{}
	err := m.Weights(func(w Weight) error {
		if skipZero && w.Value == 0 {
			return nil
		}
		prev := ""
		if w.Prev >= 0 {
			prev = labels[w.Prev]
		}
		got[fmt.Sprintf("%s %s %s %s %v", w.Kind, w.Feature, prev, labels[w.Label], w.Value)]++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func compareLines(t *testing.T, name string, want, got map[string]int) {
	t.Helper()
	n, bad := 0, 0
	for k, c := range want {
		n += c
		if got[k] != c {
			if bad++; bad <= 5 {
				t.Errorf("%s: %q: got %d, want %d", name, k, got[k], c)
			}
		}
	}
	m := 0
	for k, c := range got {
		m += c
		if want[k] == 0 {
			if bad++; bad <= 10 {
				t.Errorf("%s: unexpected %q", name, k)
			}
		}
	}
	t.Logf("%s: %d weights compared", name, n)
	if n != m {
		t.Errorf("%s: %d weights, want %d", name, m, n)
	}
}

func TestWeightsCRFsuite(t *testing.T) {
	data := gunzip(t, "conll.crfsuite.gz")
	le := binary.LittleEndian
	u32 := func(off uint32) uint32 { return le.Uint32(data[off:]) }
	// cqdbName reads the key of id from a CQDB chunk's backward links.
	cqdbName := func(chunk, id uint32) string {
		bwd := u32(chunk + 20)
		rec := chunk + u32(chunk+bwd+4*id)
		if u32(rec) != id {
			t.Fatalf("CQDB record id %d, want %d", u32(rec), id)
		}
		key := data[rec+8 : rec+8+u32(rec+4)]
		return string(bytes.TrimRight(key, "\x00"))
	}
	offFeat, offLabels, offAttrs := u32(28), u32(32), u32(36)
	n := u32(offFeat + 8)
	want := map[string]int{}
	for i := uint32(0); i < n; i++ {
		p := offFeat + 12 + 20*i
		typ, src, dst := u32(p), u32(p+4), u32(p+8)
		w := math.Float64frombits(le.Uint64(data[p+12:]))
		switch typ {
		case 0:
			want[fmt.Sprintf("state %s  %s %v", cqdbName(offAttrs, src), cqdbName(offLabels, dst), w)]++
		case 1:
			want[fmt.Sprintf("trans  %s %s %v", cqdbName(offLabels, src), cqdbName(offLabels, dst), w)]++
		default:
			t.Fatalf("feature %d: type %d", i, typ)
		}
	}
	if n < 1000 {
		t.Fatalf("only %d features in the fixture", n)
	}
	m, err := ParseCRFsuite(data)
	if err != nil {
		t.Fatal(err)
	}
	compareLines(t, "crfsuite", want, weightLines(t, m, false))
}

// crfppText reads a CRF++ text model: labels, the bigram templates without
// input references, and every weight as "kind feature prev label value"
// (values rounded to float32, as crf_test holds them).
func crfppText(t *testing.T, data []byte) (want map[string]int, maxid int) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	section := func() []string {
		var out []string
		for sc.Scan() && sc.Text() != "" {
			out = append(out, sc.Text())
		}
		return out
	}
	for _, h := range section() {
		if v, ok := strings.CutPrefix(h, "maxid: "); ok {
			maxid, _ = strconv.Atoi(v)
		}
	}
	labels, tmpls := section(), section()
	constant := map[string]bool{}
	for _, s := range tmpls {
		if s[0] == 'B' && !strings.Contains(s, "%x") {
			constant[s] = true
		}
	}
	type feat struct {
		id  int
		key string
	}
	var feats []feat
	for _, s := range section() {
		id, key, _ := strings.Cut(s, " ")
		i, err := strconv.Atoi(id)
		if err != nil {
			t.Fatal(err)
		}
		feats = append(feats, feat{i, key})
	}
	var alpha []float64
	for sc.Scan() {
		if s := strings.TrimSpace(sc.Text()); s != "" {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				t.Fatal(err)
			}
			alpha = append(alpha, float64(float32(v)))
		}
	}
	if len(alpha) != maxid {
		t.Fatalf("%d weights, maxid %d", len(alpha), maxid)
	}
	L := len(labels)
	want = map[string]int{}
	total := 0
	for _, f := range feats {
		if f.key[0] == 'U' {
			for y := 0; y < L; y++ {
				want[fmt.Sprintf("state %s  %s %v", f.key, labels[y], alpha[f.id+y])]++
			}
			total += L
			continue
		}
		kind := "pair"
		if constant[f.key] {
			kind = "trans"
		}
		for p := 0; p < L; p++ {
			for y := 0; y < L; y++ {
				want[fmt.Sprintf("%s %s %s %s %v", kind, f.key, labels[p], labels[y], alpha[f.id+p*L+y])]++
			}
		}
		total += L * L
	}
	if total != maxid {
		t.Fatalf("features cover %d weights, maxid %d", total, maxid)
	}
	return want, maxid
}

func TestWeightsCRFPP(t *testing.T) {
	want, maxid := crfppText(t, gunzip(t, "conll.crfpp.txt.gz"))
	if maxid < 1000 {
		t.Fatalf("maxid %d", maxid)
	}
	for _, name := range []string{"conll.crfpp.txt.gz", "conll.crfpp.gz"} {
		// The binary model (its keys in a double array) holds the same
		// features and float32 weights as its text twin.
		compareLines(t, name, want, weightLines(t, openModel(t, name), false))
	}
}

func TestWeightsWapiti(t *testing.T) {
	s := string(gunzip(t, "conll.wapiti.gz"))
	i := 0
	num := func() int {
		j := i
		for s[j] >= '0' && s[j] <= '9' {
			j++
		}
		v, err := strconv.Atoi(s[i:j])
		if err != nil {
			t.Fatalf("offset %d: %v", i, err)
		}
		i = j
		return v
	}
	lit := func(l string) {
		for s[i] == '\n' || s[i] == ' ' {
			i++
		}
		if !strings.HasPrefix(s[i:], l) {
			t.Fatalf("offset %d: want %q", i, l)
		}
		i += len(l)
	}
	str := func() string { // "len:bytes,"
		for s[i] == '\n' || s[i] == ' ' {
			i++
		}
		n := num()
		lit(":")
		v := s[i : i+n]
		i += n
		lit(",")
		return v
	}
	lit("#mdl#2#")
	nact := num()
	lit("#rdr#")
	npats := num()
	lit("/")
	num()
	lit("/")
	num()
	constant := map[string]bool{}
	for range npats {
		if p := str(); !strings.Contains(p, "%") {
			constant[p] = true
		}
	}
	lit("#qrk#")
	labels := make([]string, num())
	for y := range labels {
		labels[y] = str()
	}
	lit("#qrk#")
	obs := make([]string, num())
	for o := range obs {
		obs[o] = str()
	}
	// Feature f's (observation, prev, label), in mdl_sync's layout.
	Y := len(labels)
	type slot struct {
		kind, obs string
		prev, y   int
	}
	var slots []slot
	for _, o := range obs {
		if o[0] == 'u' || o[0] == '*' {
			for y := 0; y < Y; y++ {
				slots = append(slots, slot{"state", o, -1, y})
			}
		}
		if o[0] == 'b' || o[0] == '*' {
			kind := "pair"
			if constant[o] {
				kind = "trans"
			}
			for p := 0; p < Y; p++ {
				for y := 0; y < Y; y++ {
					slots = append(slots, slot{kind, o, p, y})
				}
			}
		}
	}
	want := map[string]int{}
	sawTrans := false
	for range nact {
		lit("")
		f := num()
		lit("=")
		j := strings.IndexAny(s[i:], "\n ")
		if j < 0 {
			j = len(s) - i
		}
		v, err := strconv.ParseFloat(s[i:i+j], 64)
		if err != nil {
			t.Fatal(err)
		}
		i += j
		sl := slots[f]
		prev := ""
		if sl.prev >= 0 {
			prev = labels[sl.prev]
		}
		sawTrans = sawTrans || sl.kind == "trans"
		want[fmt.Sprintf("%s %s %s %s %v", sl.kind, sl.obs, prev, labels[sl.y], v)]++
	}
	if nact < 1000 || !sawTrans {
		t.Fatalf("%d weights (transitions: %v) in the fixture", nact, sawTrans)
	}
	compareLines(t, "wapiti", want, weightLines(t, openModel(t, "conll.wapiti.gz"), false))
}
