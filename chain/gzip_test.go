package chain

import (
	"bytes"
	"compress/gzip"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoadGzipped: LoadFile and LoadTagger read a gzip-compressed model
// file (as committed for the web page) to the same model and the same tags
// as the plain file; a damaged gzip stream fails with the file's name.
func TestLoadGzipped(t *testing.T) {
	rng := rand.New(rand.NewPCG(51, 52))
	c := randomCorpus(rng, 40, 20, 12, 1, 6, true)
	tg, serial := randomTagger(rng, c, 6)
	data, err := tg.Model().MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var zb bytes.Buffer
	zw := gzip.NewWriter(&zb)
	zw.Write(data)
	zw.Close()
	dir := t.TempDir()
	plain, gz, bad := filepath.Join(dir, "m.model"), filepath.Join(dir, "m.model.gz"), filepath.Join(dir, "bad.model.gz")
	for _, f := range []struct {
		path string
		b    []byte
	}{{plain, data}, {gz, zb.Bytes()}, {bad, zb.Bytes()[:zb.Len()/2]}} {
		if err := os.WriteFile(f.path, f.b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	m, err := LoadFile(gz)
	if err != nil {
		t.Fatal(err)
	}
	back, err := m.MarshalBinary()
	if err != nil || !bytes.Equal(back, data) {
		t.Fatalf("gzipped LoadFile: model differs (err %v)", err)
	}
	lite, err := LoadTagger(gz)
	if err != nil {
		t.Fatal(err)
	}
	var path []int
	for i := 0; i < c.Len(); i++ {
		if path, err = lite.Tag(path, Encoded{Corpus: c, Seq: i}); err != nil {
			t.Fatal(err)
		}
		for k := range path {
			if path[k] != serial[i][k] {
				t.Fatalf("sequence %d: tag-only from gzip %v, want %v", i, path, serial[i])
			}
		}
	}
	for _, load := range []func(string) error{
		func(p string) error { _, err := LoadFile(p); return err },
		func(p string) error { _, err := LoadTagger(p); return err },
	} {
		if err := load(bad); err == nil || !strings.Contains(err.Error(), bad) {
			t.Errorf("truncated gzip: error %v, want one naming %s", err, bad)
		}
	}
}
