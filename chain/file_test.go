package chain

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"flag"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden model files in testdata")

// fixedModel returns a small model whose weights are chosen by hand.
func fixedModel(t testing.TB) *Model {
	m, err := NewModel([]string{"B-NP", "I-NP", "O"}, 2, 1, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	m.State[0] = 1.5    // attr 0, B-NP
	m.State[5] = -0.25  // attr 1, O
	m.Trans[2*3+1] = -4 // O -> I-NP
	m.PairW[4] = 0.125  // pair attr 0, I-NP -> I-NP
	return m
}

func TestModelRoundTrip(t *testing.T) {
	m := fixedModel(t)
	data, err := m.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	back, err := ReadModel(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if len(back.W) != len(m.W) || back.Layout.Transitions != m.Layout.Transitions || back.Layout.NumUnary != 2 || back.Layout.NumPair != 1 {
		t.Fatalf("round trip changed the layout: %+v", back)
	}
	for j := range m.W {
		if math.Float64bits(m.W[j]) != math.Float64bits(back.W[j]) {
			t.Fatalf("weight %d: %v, want %v", j, back.W[j], m.W[j])
		}
	}
	for i := range m.Labels {
		if back.Labels[i] != m.Labels[i] {
			t.Fatalf("label %d: %q", i, back.Labels[i])
		}
	}
	again, _ := back.MarshalBinary()
	if !bytes.Equal(again, data) {
		t.Fatal("re-encoding a loaded model changed its bytes")
	}
}

// TestMarshalGzip: the gzip stream holds the model file, its header no
// name and no time, the same model gives the same bytes, and LoadFile
// reads the file back.
func TestMarshalGzip(t *testing.T) {
	m := fixedModel(t)
	z, err := m.MarshalGzip()
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(z))
	if err != nil {
		t.Fatal(err)
	}
	if zr.Name != "" || !zr.ModTime.IsZero() {
		t.Fatalf("gzip header name %q, time %v: want neither", zr.Name, zr.ModTime)
	}
	plain, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := m.MarshalBinary()
	if !bytes.Equal(plain, want) {
		t.Fatal("the gzip stream is not the model file")
	}
	again, _ := fixedModel(t).MarshalGzip()
	if !bytes.Equal(again, z) {
		t.Fatal("the same model gave other bytes")
	}
	path := filepath.Join(t.TempDir(), "m.model.gz")
	if err := os.WriteFile(path, z, 0o666); err != nil {
		t.Fatal(err)
	}
	back, err := LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := back.MarshalBinary(); !bytes.Equal(b, want) {
		t.Fatal("LoadFile read another model")
	}
}

// goldenModels are the models whose current file bytes are kept in
// testdata/<name>-v2.model (rewritten by go test -update). The
// testdata/*-v1.model files were written by the version 1 writer and are
// never rewritten: they check that old files still load.
var goldenModels = []struct {
	name  string
	model func(testing.TB) *Model
}{
	{"fixed", fixedModel},
	{"fixed-encoder", fixedEncoderModel},
}

func TestModelGolden(t *testing.T) {
	for _, g := range goldenModels {
		t.Run(g.name, func(t *testing.T) {
			data, err := g.model(t).MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", g.name+"-v2.model")
			if *update {
				if err := os.WriteFile(golden, data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update once to create it)", err)
			}
			if !bytes.Equal(data, want) {
				t.Fatal("model bytes differ from the golden file: the format changed; bump fileVersion and keep reading versions 1 and 2")
			}
			m, err := ReadModel(bytes.NewReader(want))
			if err != nil {
				t.Fatal(err)
			}
			c, err := g.model(t).Compact()
			if err != nil {
				t.Fatal(err)
			}
			sameModel(t, c, m)
		})
	}
}

// TestModelGoldenV1 loads files written by the version 1 writer: they load
// as they were (dead attributes included), and saving them again writes the
// compact version 2 golden file.
func TestModelGoldenV1(t *testing.T) {
	for _, g := range goldenModels {
		t.Run(g.name, func(t *testing.T) {
			old, err := os.ReadFile(filepath.Join("testdata", g.name+"-v1.model"))
			if err != nil {
				t.Fatal(err)
			}
			if v := binary.LittleEndian.Uint32(old[8:]); v != 1 {
				t.Fatalf("%s-v1.model has version %d", g.name, v)
			}
			m, err := ReadModel(bytes.NewReader(old))
			if err != nil {
				t.Fatal(err)
			}
			sameModel(t, g.model(t), m)
			again, err := m.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(filepath.Join("testdata", g.name+"-v2.model"))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(again, want) {
				t.Fatal("saving a version 1 file again does not give the version 2 golden file")
			}
		})
	}
	// Version 1 files may hold dead attributes; this one does.
	m, err := LoadFile(filepath.Join("testdata", "fixed-encoder-v1.model"))
	if err != nil {
		t.Fatal(err)
	}
	if m.Layout.NumUnary != 6 || m.Layout.NumPair != 3 {
		t.Fatalf("version 1 model loaded with U=%d P=%d, want 6 and 3", m.Layout.NumUnary, m.Layout.NumPair)
	}
}

func TestModelLoadRejectsBadFiles(t *testing.T) {
	for _, name := range []string{"fixed-v1", "fixed-v2", "fixed-encoder-v1", "fixed-encoder-v2"} {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", name+".model"))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := ReadModel(bytes.NewReader(data)); err != nil {
				t.Fatal(err)
			}
			// Every strict prefix is a truncated file.
			for n := 0; n < len(data); n++ {
				if _, err := ReadModel(bytes.NewReader(data[:n])); err == nil {
					t.Fatalf("prefix of %d bytes loaded without error", n)
				}
			}
			// Every single-byte corruption is caught (magic, version, header or CRC).
			for i := range data {
				bad := append([]byte(nil), data...)
				bad[i] ^= 0x5a
				if _, err := ReadModel(bytes.NewReader(bad)); err == nil {
					t.Fatalf("corrupting byte %d went unnoticed", i)
				}
			}
			// Wrong magic, future or zero version, trailing data.
			bad := append([]byte(nil), data...)
			copy(bad, "NOTAMODL")
			if _, err := ReadModel(bytes.NewReader(bad)); err == nil {
				t.Fatal("wrong magic accepted")
			}
			for _, v := range []uint32{0, fileVersion + 1} {
				bad = append([]byte(nil), data...)
				binary.LittleEndian.PutUint32(bad[8:], v)
				if _, err := ReadModel(bytes.NewReader(bad)); !errors.Is(err, ErrVersion) {
					t.Fatalf("version %d: got %v, want ErrVersion", v, err)
				}
			}
			if _, err := ReadModel(bytes.NewReader(append(append([]byte(nil), data...), 0))); err == nil {
				t.Fatal("trailing byte accepted")
			}
		})
	}
}

// TestModelLoadRejectsNonCompact checks the one rule version 2 adds: a
// file with an encoder holds no attribute without a non-zero weight. The
// same bytes under version 1 load.
func TestModelLoadRejectsNonCompact(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(m *Model)
		want string
	}{
		{"unary", func(m *Model) {}, `unary attribute 2 ("U00:dead")`},
		{"pair", func(m *Model) { m.W[m.Layout.StateIndex(2, 2)] = 1; m.W[m.Layout.StateIndex(5, 0)] = 1 }, `pair attribute 0 ("B01:DT")`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := fixedEncoderModel(t)
			tc.edit(m)
			v2, err := m.encodeFile(2)
			if err != nil {
				t.Fatal(err)
			}
			_, err = ReadModel(bytes.NewReader(v2))
			var fe *FormatError
			if !errors.As(err, &fe) || fe.Section != "WGHT" || !strings.Contains(fe.Msg, tc.want) {
				t.Fatalf("non-compact version 2 file: got %v, want a WGHT FormatError naming %s", err, tc.want)
			}
			v1, err := m.encodeFile(1)
			if err != nil {
				t.Fatal(err)
			}
			back, err := ReadModel(bytes.NewReader(v1))
			if err != nil {
				t.Fatalf("the same model as a version 1 file: %v", err)
			}
			sameModel(t, m, back)
		})
	}
	// Without an encoder, attribute ids are the caller's: nothing is dropped
	// and dead attributes are allowed in version 2.
	nm := fixedModel(t)
	clear(nm.State)
	data, err := nm.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	back, err := ReadModel(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if back.Layout.NumUnary != 2 {
		t.Fatalf("model without encoder lost attributes: U=%d", back.Layout.NumUnary)
	}
}

func TestSaveFileAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "m.model")
	m := fixedModel(t)
	if err := m.SaveFile(path); err != nil {
		t.Fatal(err)
	}
	back, err := LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if back.NonZero() != 4 {
		t.Fatalf("loaded %d non-zeros", back.NonZero())
	}
	// A model with NaN is refused and the existing file stays as it was.
	before, _ := os.ReadFile(path)
	m.W[0] = math.NaN()
	if err := m.SaveFile(path); err == nil {
		t.Fatal("saving a NaN weight succeeded")
	}
	after, _ := os.ReadFile(path)
	if !bytes.Equal(before, after) {
		t.Fatal("failed save changed the existing model file")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("temporary files left behind: %v", entries)
	}
	// Unwritable directory.
	if err := fixedModel(t).SaveFile(filepath.Join(dir, "missing", "m.model")); err == nil {
		t.Fatal("saving into a missing directory succeeded")
	}
}

// addModelSeeds seeds a fuzz test of the model reader with every golden
// model as a version 2 file, its first 20 bytes and as a version 1 file,
// and the bare magic.
func addModelSeeds(f *testing.F) {
	for _, g := range goldenModels {
		m := g.model(f)
		data, _ := m.MarshalBinary()
		f.Add(data)
		f.Add(data[:20])
		v1, _ := m.encodeFile(1)
		f.Add(v1)
	}
	f.Add([]byte(fileMagic))
	f.Add(valuedModelBytes(f)) // version 3: valued columns and word vectors
}

// FuzzReadModel: any input gives either an error or a model that saves
// again without error. A version 2 or 3 input re-encodes to the same bytes
// (the format is canonical), but for the version of a version 3 input whose
// model has no valued column or embeddings, which is written as version 2. A version 1 input re-encodes to a version 2 file
// that is its compaction: it loads, re-encodes to itself and holds the same
// labels, encoder and non-zero weights; if the input had no dead attribute,
// the bytes are the input's with the version changed.
func FuzzReadModel(f *testing.F) {
	addModelSeeds(f)
	f.Fuzz(func(t *testing.T, in []byte) {
		m, err := ReadModel(bytes.NewReader(in))
		if err != nil {
			return
		}
		out, err := m.MarshalBinary()
		if err != nil {
			t.Fatalf("loaded model does not re-encode: %v", err)
		}
		if v := binary.LittleEndian.Uint32(in[8:]); v == plainVersion || v == valuedVersion {
			want := in
			if v == valuedVersion && m.writeVersion() == plainVersion {
				// A version 3 file of a model without valued columns or
				// embeddings is read, and written as what it is: version 2.
				want = append([]byte(nil), in...)
				binary.LittleEndian.PutUint32(want[8:], plainVersion)
			}
			if !bytes.Equal(out, want) {
				t.Fatal("loaded model re-encodes to different bytes")
			}
			return
		}
		c, err := ReadModel(bytes.NewReader(out))
		if err != nil {
			t.Fatalf("re-encoded version 1 model does not load: %v", err)
		}
		again, err := c.MarshalBinary()
		if err != nil || !bytes.Equal(again, out) {
			t.Fatalf("re-encoded version 1 model is not canonical (%v)", err)
		}
		checkCompaction(t, m, c)
		if c.Layout.NumUnary == m.Layout.NumUnary && c.Layout.NumPair == m.Layout.NumPair {
			want := append([]byte(nil), in...)
			binary.LittleEndian.PutUint32(want[8:], plainVersion)
			if !bytes.Equal(out, want) {
				t.Fatal("compact version 1 file re-encodes to more than a version change")
			}
		}
	})
}

// TestModelLoadMissingLabels builds a file with valid checksums but no LABL
// section: it must be refused, not loaded as a model without labels.
func TestModelLoadMissingLabels(t *testing.T) {
	var out bytes.Buffer
	out.WriteString(fileMagic)
	out.Write([]byte{fileVersion, 0, 0, 0})
	head := []byte{1, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0} // transitions, L = 2, U = 0, P = 0
	writeSection(&out, "HEAD", head)
	writeSection(&out, "WGHT", []byte{0, 0, 0, 0})
	writeSection(&out, "END ", nil)
	if m, err := ReadModel(bytes.NewReader(out.Bytes())); err == nil {
		t.Fatalf("model without labels loaded: %+v", m)
	}
}
