package peer

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/sparsetag/sparsetag/corpora"
)

// TestHashlittle checks the test writer's lookup3 against the hash values
// CRFsuite stored in the fixture's CQDB buckets.
func TestHashlittle(t *testing.T) {
	data := gunzip(t, "conll.crfsuite.gz")
	b := binReader{FormatCRFsuite, data}
	off := int64(binary32(data[36:])) // the attribute CQDB
	db, err := readCQDB(b, "attributes", off)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	c := db.chunk
	for tb := 0; tb < cqdbTables; tb++ {
		toff := int64(binary32(c[cqdbHeaderSize+8*tb:]))
		num := int64(binary32(c[cqdbHeaderSize+8*tb+4:]))
		for k := int64(0); k < num; k++ {
			h, p := binary32(c[toff+8*k:]), int64(binary32(c[toff+8*k+4:]))
			if p == 0 {
				continue
			}
			_, key, err := db.record(p)
			if err != nil {
				t.Fatal(err)
			}
			if got := lookup3(append([]byte(key), 0), 0); got != h {
				t.Errorf("lookup3(%q) = %#x, CRFsuite stored %#x", key, got, h)
			}
			n++
		}
	}
	if n != 11786 {
		t.Errorf("%d attributes hashed, want 11786", n)
	}
}

func binary32(b []byte) uint32 {
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}

// tinySeqs are the inputs the tiny models are checked and fuzzed with.
var (
	tinyCols  = corpora.Sequence{Tokens: [][]string{{"a"}, {"b"}, {"a"}, {"c"}}}
	tinyAttrs = corpora.Sequence{Attrs: [][]corpora.Attr{{{Name: "a", Value: 1}}, {{Name: "b", Value: 1}}, {{Name: "a", Value: 1}}, {{Name: "c", Value: 1}}}}
)

// TestTinyModels checks the four seeds against scores worked out by hand:
// unary A on "a" 1, B on "b" 0.5; transitions A→B 0.25, B→A -0.5. Every
// format must give the best path A B A B, score 1 + (0.25+0.5) + (-0.5+1)
// + 0.25 = 2.5 ("c" is unknown), and second A B A A, score 2.25.
func TestTinyModels(t *testing.T) {
	for _, c := range []struct {
		name string
		data []byte
		seq  corpora.Sequence
	}{
		{"CRFsuite", tinyCRFsuite(), tinyAttrs},
		{"CRF++ binary", tinyCRFPPBinary(), tinyCols},
		{"CRF++ text", tinyCRFPPText(), tinyCols},
	} {
		m, err := Parse(c.data)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		path, err := m.Tag(nil, c.seq)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if want := []int{0, 1, 0, 1}; !equalInts(path, want) {
			t.Errorf("%s: path %v, want %v", c.name, path, want)
		}
		nb, err := m.NBest(c.seq, 2)
		if err != nil || len(nb) != 2 || nb[0].Score != 2.5 || nb[1].Score != 2.25 {
			t.Errorf("%s: NBest = %+v, %v; want scores 2.5, 2.25", c.name, nb, err)
		}
		node, logZ, err := m.Marginals(nil, c.seq)
		if err != nil || len(node) != 8 || math.IsNaN(logZ) {
			t.Errorf("%s: Marginals = %v, %v, %v", c.name, node, logZ, err)
		}
	}
	// The Wapiti seed adds u:true (0.125 for B) wherever the previous
	// token starts with a letter, i.e. at positions 1..3: A B A B scores
	// 2.5 + 2·0.125.
	m, err := Parse(tinyWapiti())
	if err != nil {
		t.Fatal(err)
	}
	p, err := m.(*WapitiModel).Viterbi(tinyCols)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{0, 1, 0, 1}; !equalInts(p.Labels, want) || p.Score != 2.75 {
		t.Errorf("Wapiti: %+v, want path %v score 2.75", p, want)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestTruncated reads every prefix of each seed and of the fixtures' first
// kilobytes: each must be refused with ErrFormat (or ErrUnsupported), or
// load; none may panic.
func TestTruncated(t *testing.T) {
	seeds := map[string][]byte{
		"CRFsuite": tinyCRFsuite(), "CRF++ binary": tinyCRFPPBinary(),
		"CRF++ text": tinyCRFPPText(), "Wapiti": tinyWapiti(),
	}
	for name, data := range seeds {
		for n := 0; n < len(data); n++ {
			m, err := Parse(data[:n])
			if err == nil {
				// Text formats may lose only trailing white space.
				if _, terr := m.Tag(nil, tinyCols); terr != nil && !errors.Is(terr, ErrInput) {
					t.Errorf("%s[:%d]: Tag: %v", name, n, terr)
				}
				continue
			}
			if !errors.Is(err, ErrFormat) && !errors.Is(err, ErrUnsupported) {
				t.Errorf("%s[:%d]: error %v does not wrap ErrFormat", name, n, err)
			}
		}
	}
	// A truncated CRFsuite fixture names the section and offset.
	data := gunzip(t, "conll.crfsuite.gz")
	_, err := Parse(data[:len(data)/2])
	var fe *FormatError
	if !errors.As(err, &fe) || fe.Section == "" {
		t.Fatalf("half a CRFsuite model: %v", err)
	}
	t.Logf("half a CRFsuite model: %v", err)
}

// TestCRFPPTextEqualsBinary checks that the text model holds the binary
// model's weights after float32 rounding and the same feature ids.
func TestCRFPPTextEqualsBinary(t *testing.T) {
	bin := openModel(t, "conll.crfpp.gz").(*CRFPPModel)
	txt := openModel(t, "conll.crfpp.txt.gz").(*CRFPPModel)
	if len(bin.alpha) != len(txt.alpha) {
		t.Fatalf("maxid %d vs %d", len(bin.alpha), len(txt.alpha))
	}
	for i := range bin.alpha {
		if math.Float32bits(bin.alpha[i]) != math.Float32bits(txt.alpha[i]) {
			t.Fatalf("weight %d: binary %v, float32(text) %v", i, bin.alpha[i], txt.alpha[i])
		}
	}
	for key, id := range txt.dict {
		if got := dartsExact(bin.da, []byte(key)); got != id {
			t.Fatalf("key %q: double array gives %d, text model %d", key, got, id)
		}
	}
	if got := dartsExact(bin.da, []byte("U02:no-such-word")); got != -1 {
		t.Errorf("unknown key found with id %d", got)
	}
	t.Logf("%d weights and %d keys identical", len(bin.alpha), len(txt.dict))
}

// TestDetect checks format detection, gzip sniffing and the input checks.
func TestDetect(t *testing.T) {
	for _, c := range []struct {
		data []byte
		want Format
	}{
		{tinyCRFsuite(), FormatCRFsuite}, {tinyCRFPPBinary(), FormatCRFPPBinary},
		{tinyCRFPPText(), FormatCRFPPText}, {tinyWapiti(), FormatWapiti},
		{[]byte("hello"), FormatUnknown}, {nil, FormatUnknown},
	} {
		if got := Detect(c.data); got != c.want {
			t.Errorf("Detect(%.8q) = %v, want %v", c.data, got, c.want)
		}
	}
	if _, err := Parse([]byte("hello")); !errors.Is(err, ErrFormat) {
		t.Errorf("Parse(hello) = %v", err)
	}
	m, _ := Parse(tinyCRFsuite())
	if _, err := m.Tag(nil, tinyCols); !errors.Is(err, ErrInput) {
		t.Errorf("CRFsuite model on columns: %v", err)
	}
	m, _ = Parse(tinyCRFPPText())
	if _, err := m.Tag(nil, tinyAttrs); !errors.Is(err, ErrInput) {
		t.Errorf("CRF++ model on attributes: %v", err)
	}
	if _, err := m.Tag(nil, corpora.Sequence{Tokens: [][]string{{}}}); !errors.Is(err, ErrInput) {
		t.Errorf("CRF++ model on a token without columns: %v", err)
	}
}

// TestConcurrent tags the fixtures from several goroutines with shared
// models and compares with serial tagging (run with -race).
func TestConcurrent(t *testing.T) {
	cols := columnInput(t)[:40]
	attrs := attrInput(t)[:40]
	for _, name := range []string{"conll.crfsuite.gz", "conll.crfpp.gz", "conll.wapiti.gz"} {
		m := openModel(t, name)
		seqs := cols
		if m.Format() == FormatCRFsuite {
			seqs = attrs
		}
		want := make([][]int, len(seqs))
		for i, s := range seqs {
			want[i], _ = m.Tag(nil, s)
		}
		errs := make(chan error, 4)
		for g := 0; g < 4; g++ {
			go func() {
				var path []int
				var err error
				for i, s := range seqs {
					if path, err = m.Tag(path, s); err != nil || !equalInts(path, want[i]) {
						errs <- fmt.Errorf("%s: sequence %d: %v %v", name, i, path, err)
						return
					}
					if _, _, err = m.Marginals(nil, s); err != nil {
						errs <- err
						return
					}
				}
				errs <- nil
			}()
		}
		for g := 0; g < 4; g++ {
			if err := <-errs; err != nil {
				t.Error(err)
			}
		}
	}
}
