package peer

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/corpora"
	"github.com/sparsetag/sparsetag/features"
)

// fixtureAsOurs returns the CRFsuite fixture model as one of ours, attributes
// in the fixture's id order (as tagging.Convert does).
func fixtureAsOurs(t testing.TB) (*CRFsuiteModel, *chain.Model) {
	t.Helper()
	pm := openModel(t, "conll.crfsuite.gz").(*CRFsuiteModel)
	return pm, crfsuiteAsOurs(t, pm)
}

func crfsuiteAsOurs(t testing.TB, pm *CRFsuiteModel) *chain.Model {
	t.Helper()
	names := make([]string, pm.NumAttributes())
	for s, a := range pm.attrs {
		names[a] = s
	}
	m, err := chain.NewAttributeModel(slices.Clone(pm.Labels()), names)
	if err != nil {
		t.Fatal(err)
	}
	L := len(pm.Labels())
	ids := map[string]int{}
	for i, s := range names {
		ids[s] = i
	}
	err = pm.Weights(func(w Weight) error {
		switch w.Kind {
		case StateWeight:
			m.W[ids[w.Feature]*L+w.Label] = w.Value
		case TransWeight:
			m.W[m.Layout.TransIndex(w.Prev, w.Label)] = w.Value
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func attributesOf(seq corpora.Sequence) features.Attributes {
	in := features.Attributes{Names: make([][]string, len(seq.Attrs)), Values: make([][]float64, len(seq.Attrs))}
	for t, items := range seq.Attrs {
		for _, a := range items {
			in.Names[t] = append(in.Names[t], a.Name)
			in.Values[t] = append(in.Values[t], a.Value)
		}
	}
	return in
}

// TestLookup3 checks the hash against the hashes CRFsuite stored in the
// fixture model's string databases: every bucket in use holds
// hashlittle(key with its NUL, 0), computed by CRFsuite's C.
func TestLookup3(t *testing.T) {
	data := gunzip(t, "conll.crfsuite.gz")
	n := 0
	for _, hdr := range []int{32, 36} { // label and attribute CQDB offsets
		off := int(binary.LittleEndian.Uint32(data[hdr:]))
		db := data[off:]
		for tb := 0; tb < cqdbTables; tb++ {
			toff := int(binary.LittleEndian.Uint32(db[cqdbHeaderSize+8*tb:]))
			num := int(binary.LittleEndian.Uint32(db[cqdbHeaderSize+8*tb+4:]))
			for k := 0; k < num; k++ {
				h := binary.LittleEndian.Uint32(db[toff+8*k:])
				p := int(binary.LittleEndian.Uint32(db[toff+8*k+4:]))
				if p == 0 {
					continue
				}
				ks := int(binary.LittleEndian.Uint32(db[p+4:]))
				key := db[p+8 : p+8+ks]
				if got := lookup3(key, 0); got != h {
					t.Fatalf("hash of %q: %#x, CRFsuite stored %#x", key, got, h)
				}
				if int(h%cqdbTables) != tb {
					t.Fatalf("%q in table %d, hash says %d", key, tb, h%cqdbTables)
				}
				n++
			}
		}
	}
	if n < 1000 {
		t.Fatalf("only %d keys checked", n)
	}
	t.Logf("%d keys hash as CRFsuite hashed them", n)
}

// TestCQDBBytes writes the fixture's label and attribute databases from
// their keys in id order and compares them with CRFsuite's bytes.
func TestCQDBBytes(t *testing.T) {
	data := gunzip(t, "conll.crfsuite.gz")
	pm, _ := fixtureAsOurs(t)
	names := make([]string, pm.NumAttributes())
	for s, a := range pm.attrs {
		names[a] = s
	}
	for _, c := range []struct {
		what string
		hdr  int
		keys []string
	}{{"labels", 32, pm.Labels()}, {"attributes", 36, names}} {
		off := binary.LittleEndian.Uint32(data[c.hdr:])
		size := binary.LittleEndian.Uint32(data[off+4:])
		want := data[off : off+size]
		got := appendCQDB(nil, c.keys)
		if !bytes.Equal(got, want) {
			t.Errorf("%s database: %d bytes, CRFsuite's %d, equal: false", c.what, len(got), len(want))
		}
	}
}

// TestCRFsuiteWriteRoundTrip writes the fixture (as one of our models) as a
// CRFsuite model and reads it back: the same labels and weights, the same
// labels on the fixture's test sentences as our tagger gives with our model
// and as the fixture gives, and the same bytes when written again.
func TestCRFsuiteWriteRoundTrip(t *testing.T) {
	pm, m := fixtureAsOurs(t)
	data, err := MarshalCRFsuite(m)
	if err != nil {
		t.Fatal(err)
	}
	checkCRFsuiteInvariants(t, data, m)
	back, err := ParseCRFsuite(data)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(back.Labels(), m.Labels) {
		t.Fatalf("labels %v, want %v", back.Labels(), m.Labels)
	}
	var want, got []Weight
	collect := func(dst *[]Weight) func(Weight) error {
		return func(w Weight) error { *dst = append(*dst, w); return nil }
	}
	if err := pm.Weights(collect(&want)); err != nil {
		t.Fatal(err)
	}
	if err := back.Weights(collect(&got)); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("%d weights read back, %d in the fixture, not the same list", len(got), len(want))
	}

	tg := chain.NewTagger(m)
	var a, b, c []int
	tokens := 0
	for i, seq := range attrInput(t) {
		if a, err = tg.Tag(a, attributesOf(seq)); err != nil {
			t.Fatal(err)
		}
		if b, err = back.Tag(b, seq); err != nil {
			t.Fatal(err)
		}
		if c, err = pm.Tag(c, seq); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(a, b) || !slices.Equal(b, c) {
			t.Fatalf("sequence %d: ours %v, written %v, fixture %v", i, a, b, c)
		}
		tokens += len(a)
	}
	again, err := MarshalCRFsuite(crfsuiteAsOurs(t, back))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again, data) {
		t.Fatal("writing the model read back gives other bytes")
	}
	t.Logf("%d tokens tagged alike; %d bytes (CRFsuite wrote %d for the same weights)", tokens, len(data), len(gunzip(t, "conll.crfsuite.gz")))
}

// TestCRFsuiteWriteEmbeddedCoNLL tags all of the embedded CoNLL-2000 test
// set (2,012 sentences), its attributes expanded by the chunking template,
// with our model and with the CRFsuite model written from it.
func TestCRFsuiteWriteEmbeddedCoNLL(t *testing.T) {
	if testing.Short() {
		t.Skip("tags 47k tokens twice")
	}
	_, m := fixtureAsOurs(t)
	data, err := MarshalCRFsuite(m)
	if err != nil {
		t.Fatal(err)
	}
	back, err := ParseCRFsuite(data)
	if err != nil {
		t.Fatal(err)
	}
	rc, err := corpora.OpenEmbedded("conll2000/chunking.template")
	if err != nil {
		t.Fatal(err)
	}
	src, err := io.ReadAll(rc)
	rc.Close()
	if err != nil {
		t.Fatal(err)
	}
	tmpl, err := features.Compile(string(src))
	if err != nil {
		t.Fatal(err)
	}
	seqs, err := corpora.EmbeddedCoNLL2000("test")
	if err != nil {
		t.Fatal(err)
	}
	tg := chain.NewTagger(m)
	var a, b []int
	tokens, diffs := 0, 0
	for _, s := range seqs {
		seq := corpora.Sequence{Attrs: make([][]corpora.Attr, len(s.Tokens))}
		for pos := range s.Tokens {
			unary, _, err := tmpl.Expand(s.Tokens, pos)
			if err != nil {
				t.Fatal(err)
			}
			for _, u := range unary {
				seq.Attrs[pos] = append(seq.Attrs[pos], corpora.Attr{Name: u, Value: 1})
			}
		}
		if a, err = tg.Tag(a, attributesOf(seq)); err != nil {
			t.Fatal(err)
		}
		if b, err = back.Tag(b, seq); err != nil {
			t.Fatal(err)
		}
		for k := range a {
			if a[k] != b[k] {
				diffs++
			}
		}
		tokens += len(a)
	}
	if diffs != 0 || tokens < 40000 {
		t.Fatalf("%d of %d tokens tagged differently", diffs, tokens)
	}
	t.Logf("%d sentences, %d tokens: 0 differences", len(seqs), tokens)
}

// checkCRFsuiteInvariants checks the byte layout crf1d_model.c and cqdb.c
// read: header fields, chunk tags and sizes, alignment, feature ids and
// types, the L+2 label lists, and that every label and attribute is found
// by CRFsuite's hash lookup (cqdb_to_id) under its id.
func checkCRFsuiteInvariants(t *testing.T, data []byte, m *chain.Model) {
	t.Helper()
	u32 := func(off uint32) uint32 { return binary.LittleEndian.Uint32(data[off:]) }
	if string(data[:4]) != "lCRF" || string(data[8:12]) != "FOMC" || u32(12) != 100 || u32(16) != 0 {
		t.Fatalf("header %q", data[:20])
	}
	if int(u32(4)) != len(data) {
		t.Fatalf("header size %d, file %d", u32(4), len(data))
	}
	L := u32(20)
	if int(L) != len(m.Labels) {
		t.Fatalf("%d labels, want %d", L, len(m.Labels))
	}
	numAttrs := u32(24)
	offFeat, offLabels, offAttrs, offL, offA := u32(28), u32(32), u32(36), u32(40), u32(44)
	if offFeat != crfsuiteHeaderSize || !(offFeat < offLabels && offLabels < offAttrs && offAttrs < offL && offL < offA) {
		t.Fatalf("chunk offsets %d %d %d %d %d out of CRFsuite's order", offFeat, offLabels, offAttrs, offL, offA)
	}
	if offL%4 != 0 || offA%4 != 0 {
		t.Fatalf("reference chunks at %d, %d: not aligned to 4", offL, offA)
	}
	// FEAT
	K := u32(offFeat + 8)
	if string(data[offFeat:offFeat+4]) != "FEAT" || u32(offFeat+4) != crfsuiteChunkSize+crfsuiteFeatureSize*K {
		t.Fatal("FEAT chunk header")
	}
	if offFeat+u32(offFeat+4) != offLabels {
		t.Fatal("the label database does not follow FEAT")
	}
	nonZero := 0
	for _, w := range m.W {
		if w != 0 {
			nonZero++
		}
	}
	if int(K) != nonZero {
		t.Fatalf("%d features, %d non-zero weights", K, nonZero)
	}
	refs := make([]int, K)
	for k := uint32(0); k < K; k++ {
		p := offFeat + crfsuiteChunkSize + crfsuiteFeatureSize*k
		typ, src, dst := u32(p), u32(p+4), u32(p+8)
		w := math.Float64frombits(binary.LittleEndian.Uint64(data[p+12:]))
		if typ > 1 || dst >= L || (typ == 0 && src >= numAttrs) || (typ == 1 && src >= L) || w == 0 {
			t.Fatalf("feature %d: type %d src %d dst %d weight %v", k, typ, src, dst, w)
		}
	}
	// LFRF and AFRF: every feature referenced exactly once, from the list
	// of its source.
	for _, c := range []struct {
		off  uint32
		tag  string
		n    uint32
		typ  uint32
		used uint32 // lists in use
	}{{offL, "LFRF", L + 2, 1, L}, {offA, "AFRF", numAttrs, 0, numAttrs}} {
		if string(data[c.off:c.off+4]) != c.tag || u32(c.off+8) != c.n {
			t.Fatalf("%s chunk header: %q, %d lists", c.tag, data[c.off:c.off+4], u32(c.off+8))
		}
		end := c.off + u32(c.off+4)
		if c.tag == "LFRF" && end > offA || c.tag == "AFRF" && int(end) != len(data) {
			t.Fatalf("%s chunk ends at %d", c.tag, end)
		}
		for i := uint32(0); i < c.n; i++ {
			p := u32(c.off + crfsuiteChunkSize + 4*i)
			if i >= c.used {
				if p != 0 {
					t.Fatalf("%s list %d at %d, CRFsuite leaves it 0", c.tag, i, p)
				}
				continue
			}
			n := u32(p)
			for j := uint32(0); j < n; j++ {
				fid := u32(p + 4 + 4*j)
				f := offFeat + crfsuiteChunkSize + crfsuiteFeatureSize*fid
				if fid >= K || u32(f) != c.typ || u32(f+4) != i {
					t.Fatalf("%s list %d refers to feature %d (type %d, source %d)", c.tag, i, fid, u32(f), u32(f+4))
				}
				refs[fid]++
			}
		}
	}
	for k, n := range refs {
		if n != 1 {
			t.Fatalf("feature %d referenced %d times", k, n)
		}
	}
	// The string databases: cqdb_to_id finds every key under its id.
	lookup := func(db []byte, key string) (uint32, bool) {
		kb := append([]byte(key), 0)
		h := lookup3(kb, 0)
		tb := h % cqdbTables
		toff := binary.LittleEndian.Uint32(db[cqdbHeaderSize+8*tb:])
		num := binary.LittleEndian.Uint32(db[cqdbHeaderSize+8*tb+4:])
		if num == 0 {
			return 0, false
		}
		for k := (h >> 8) % num; ; k = (k + 1) % num {
			bh := binary.LittleEndian.Uint32(db[toff+8*k:])
			p := binary.LittleEndian.Uint32(db[toff+8*k+4:])
			if p == 0 {
				return 0, false
			}
			ks := binary.LittleEndian.Uint32(db[p+4:])
			if bh == h && bytes.Equal(db[p+8:p+8+ks], kb) {
				return binary.LittleEndian.Uint32(db[p:]), true
			}
		}
	}
	labels := data[offLabels : offLabels+u32(offLabels+4)]
	if offLabels+u32(offLabels+4) != offAttrs {
		t.Fatal("the attribute database does not follow the label database")
	}
	for i, l := range m.Labels {
		if id, ok := lookup(labels, l); !ok || id != uint32(i) {
			t.Fatalf("label %q: id %d, found %v", l, id, ok)
		}
	}
	attrs := data[offAttrs : offAttrs+u32(offAttrs+4)]
	if binary.LittleEndian.Uint32(attrs[16:]) != numAttrs {
		t.Fatalf("attribute database has %d backward links for %d attributes", binary.LittleEndian.Uint32(attrs[16:]), numAttrs)
	}
	d := m.Encoder.Unary()
	next := uint32(0)
	for a := 0; a < m.Layout.NumUnary; a++ {
		name := d.Name(int32(a))
		id, ok := lookup(attrs, name)
		hasWeight := slices.ContainsFunc(m.State[a*len(m.Labels):(a+1)*len(m.Labels)], func(w float64) bool { return w != 0 })
		if ok != hasWeight || ok && id != next {
			t.Fatalf("attribute %q: found %v with id %d (want %v, id %d)", name, ok, id, hasWeight, next)
		}
		if ok {
			next++
		}
	}
}

// TestCRFsuiteWriteRefuses: models CRFsuite's format cannot express are
// refused with ErrNotCRFsuite and a reason, and nothing is written.
func TestCRFsuiteWriteRefuses(t *testing.T) {
	tmpl := features.MustCompile("U00:%x[0,0]\nB00:%x[0,0]\n")
	enc := features.NewTemplateEncoder(tmpl)
	if _, err := enc.Unary().Add("U00:a"); err != nil {
		t.Fatal(err)
	}
	if _, err := enc.Pair().Add("B00:a"); err != nil {
		t.Fatal(err)
	}
	tm, err := chain.NewModel([]string{"A", "B"}, 1, 1, true, enc)
	if err != nil {
		t.Fatal(err)
	}
	bare, err := chain.NewModel([]string{"A"}, 2, 0, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	nul, err := chain.NewAttributeModel([]string{"A\x00B"}, []string{"x"})
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct {
		m    *chain.Model
		want string
	}{
		"template": {tm, "reads template input"},
		"no names": {bare, "no attribute names"},
		"NUL":      {nul, "NUL byte"},
	} {
		_, err := MarshalCRFsuite(c.m)
		if !errors.Is(err, ErrNotCRFsuite) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want ErrNotCRFsuite saying %q", name, err, c.want)
		}
		path := filepath.Join(t.TempDir(), "m.crfsuite")
		if err := SaveCRFsuite(path, c.m); err == nil {
			t.Errorf("%s: saved", name)
		}
		if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: a file was written", name)
		}
	}
}

// TestCRFsuiteWriteEmpty: a model without a non-zero weight is still a
// valid CRFsuite file (no feature, no attribute) that tags every token with
// label 0, as CRFsuite's Viterbi does on all-zero scores.
func TestCRFsuiteWriteEmpty(t *testing.T) {
	m, err := chain.NewAttributeModel([]string{"X", "Y"}, []string{"a", "b"})
	if err != nil {
		t.Fatal(err)
	}
	data, err := MarshalCRFsuite(m)
	if err != nil {
		t.Fatal(err)
	}
	checkCRFsuiteInvariants(t, data, m)
	back, err := ParseCRFsuite(data)
	if err != nil {
		t.Fatal(err)
	}
	got, err := back.Tag(nil, corpora.Sequence{Attrs: [][]corpora.Attr{{{Name: "a", Value: 1}}, nil}})
	if err != nil || !slices.Equal(got, []int{0, 0}) {
		t.Fatalf("tags %v, %v", got, err)
	}
}

// TestCRFsuiteWriteRandom writes random attribute models (names with
// separators, escapes and non-ASCII text, weights with exact zeros, with
// and without transitions) and reads each back: the invariants hold, every
// non-zero weight comes back bit for bit and nothing else does.
func TestCRFsuiteWriteRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 36))
	pieces := []string{"a", "B", ":", "\\", " ", "é", "好", "x=1", "\t", "__"}
	name := func(i int) string {
		var b strings.Builder
		for k := 0; k < 1+rng.IntN(4); k++ {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		return b.String() + "#" + strconv.Itoa(i)
	}
	for trial := 0; trial < 50; trial++ {
		L, U := 1+rng.IntN(6), rng.IntN(40)
		labels := make([]string, L)
		for i := range labels {
			labels[i] = name(i)
		}
		attrs := make([]string, U)
		for i := range attrs {
			attrs[i] = name(i)
		}
		m, err := chain.NewAttributeModel(labels, attrs)
		if err != nil {
			t.Fatal(err)
		}
		m.Layout.Transitions = trial%5 != 0
		for i := range m.W {
			if rng.IntN(3) == 0 {
				m.W[i] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(7)-3))
			}
		}
		if !m.Layout.Transitions {
			clear(m.Trans)
		}
		data, err := MarshalCRFsuite(m)
		if err != nil {
			t.Fatal(err)
		}
		checkCRFsuiteInvariants(t, data, m)
		back, err := ParseCRFsuite(data)
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		want := map[string]float64{}
		for a := 0; a < U; a++ {
			for y := 0; y < L; y++ {
				if w := m.State[a*L+y]; w != 0 {
					want[attrs[a]+"\x00"+labels[y]] = w
				}
			}
		}
		for p := 0; p < L; p++ {
			for y := 0; y < L; y++ {
				if w := m.Trans[p*L+y]; w != 0 {
					want["\x01"+labels[p]+"\x00"+labels[y]] = w
				}
			}
		}
		got := map[string]float64{}
		err = back.Weights(func(w Weight) error {
			if w.Kind == StateWeight {
				got[w.Feature+"\x00"+labels[w.Label]] = w.Value
			} else {
				got["\x01"+labels[w.Prev]+"\x00"+labels[w.Label]] = w.Value
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("trial %d: %d weights back, %d written", trial, len(got), len(want))
		}
		for k, w := range want {
			if math.Float64bits(got[k]) != math.Float64bits(w) {
				t.Fatalf("trial %d: weight %q: %v back, %v written", trial, k, got[k], w)
			}
		}
	}
}
