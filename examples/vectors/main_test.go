package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/sparsetag/sparsetag/features"
)

// TestVectorsDeterministic: two runs write the same file, which reads
// back as word vectors of the requested dimension with the documented
// vocabulary (lower-cased words seen at least twice, most frequent first: the comma).
func TestVectorsDeterministic(t *testing.T) {
	dir := t.TempDir()
	var files [][]byte
	for _, name := range []string{"a.txt", "b.txt"} {
		path := filepath.Join(dir, name)
		if err := run([]string{"-dim", "5", "-o", path}, io.Discard); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, b)
	}
	if !bytes.Equal(files[0], files[1]) {
		t.Fatal("two runs wrote different files")
	}
	m, err := features.ReadEmbeddings(bytes.NewReader(files[0]), "a.txt")
	if err != nil {
		t.Fatal(err)
	}
	if m.Dim() != 5 || m.Len() != 8934 || m.Word(0) != "," || m.Lookup("The") == nil {
		t.Fatalf("dim %d, %d words, first %q", m.Dim(), m.Len(), m.Word(0))
	}
	if err := run([]string{"-dim", "0", "-o", filepath.Join(dir, "c.txt")}, io.Discard); err == nil {
		t.Fatal("-dim 0 accepted")
	}
}
