package peer

import (
	"bufio"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sparsetag/sparsetag/corpora"
)

// gunzip returns the decompressed contents of testdata/name.
func gunzip(t testing.TB, name string) []byte {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
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
	return []byte(b.String())
}

// blocks splits a tool's output into blank-line separated blocks of lines.
func blocks(text []byte) [][]string {
	var out [][]string
	var cur []string
	for _, line := range strings.Split(string(text), "\n") {
		if line == "" {
			if cur != nil {
				out = append(out, cur)
				cur = nil
			}
			continue
		}
		cur = append(cur, line)
	}
	if cur != nil {
		out = append(out, cur)
	}
	return out
}

// columnInput reads the CoNLL test set with every column as a token column
// (the tools see the gold chunk column as a third input column).
func columnInput(t testing.TB) []corpora.Sequence {
	t.Helper()
	seqs, err := corpora.ReadCoNLL("test.txt", strings.NewReader(string(gunzip(t, "test.txt.gz"))), corpora.CoNLLOptions{Unlabeled: true})
	if err != nil {
		t.Fatal(err)
	}
	return seqs
}

// attrInput reads the CRFsuite attribute file of the test set.
func attrInput(t testing.TB) []corpora.Sequence {
	t.Helper()
	seqs, err := corpora.ReadCRFsuite("test.crfsuite", strings.NewReader(string(gunzip(t, "test.crfsuite.gz"))), corpora.CRFsuiteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return seqs
}

func openModel(t testing.TB, name string) Model {
	t.Helper()
	m, err := Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return m
}
