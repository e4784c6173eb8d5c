package chain

import (
	"bytes"
	"errors"
	"flag"
	"math"
	"os"
	"path/filepath"
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
	back, err := UnmarshalModel(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(back.W) != len(m.W) || back.Transitions != m.Transitions || back.NumUnary != 2 || back.NumPair != 1 {
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

func TestModelGolden(t *testing.T) {
	data, err := fixedModel(t).MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "fixed-v1.model")
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
		t.Fatal("model bytes differ from the golden file: the format changed; bump fileVersion and keep reading version 1")
	}
	m, err := UnmarshalModel(want)
	if err != nil {
		t.Fatal(err)
	}
	if m.State[0] != 1.5 || m.Trans[7] != -4 || m.NonZero() != 4 {
		t.Fatalf("golden model decoded wrongly: %v", m.W)
	}
}

func TestModelLoadRejectsBadFiles(t *testing.T) {
	data, _ := fixedModel(t).MarshalBinary()
	// Every strict prefix is a truncated file.
	for n := 0; n < len(data); n++ {
		if _, err := UnmarshalModel(data[:n]); err == nil {
			t.Fatalf("prefix of %d bytes loaded without error", n)
		}
	}
	// Every single-byte corruption is caught (magic, version, header or CRC).
	for i := range data {
		bad := append([]byte(nil), data...)
		bad[i] ^= 0x5a
		if _, err := UnmarshalModel(bad); err == nil {
			t.Fatalf("corrupting byte %d went unnoticed", i)
		}
	}
	// Wrong magic, future version, trailing data.
	bad := append([]byte(nil), data...)
	copy(bad, "NOTAMODL")
	if _, err := UnmarshalModel(bad); err == nil {
		t.Fatal("wrong magic accepted")
	}
	bad = append([]byte(nil), data...)
	bad[8] = 2
	_, err := UnmarshalModel(bad)
	if !errors.Is(err, ErrVersion) {
		t.Fatalf("future version: got %v, want ErrVersion", err)
	}
	if _, err := UnmarshalModel(append(append([]byte(nil), data...), 0)); err == nil {
		t.Fatal("trailing byte accepted")
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

func FuzzReadModel(f *testing.F) {
	data, _ := fixedModel(f).MarshalBinary()
	f.Add(data)
	f.Add(data[:20])
	f.Add([]byte(fileMagic))
	f.Fuzz(func(t *testing.T, in []byte) {
		m, err := UnmarshalModel(in)
		if err != nil {
			return
		}
		out, err := m.MarshalBinary()
		if err != nil {
			t.Fatalf("loaded model does not re-encode: %v", err)
		}
		if !bytes.Equal(out, in) {
			t.Fatal("loaded model re-encodes to different bytes")
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
	if m, err := UnmarshalModel(out.Bytes()); err == nil {
		t.Fatalf("model without labels loaded: %+v", m)
	}
}
