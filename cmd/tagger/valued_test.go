package main

import (
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeFile(t *testing.T, path, text string) string {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestTrainEmbeddings: a model whose only state features are word vectors
// (a gzipped file) tags with the model alone, on words it never saw in
// training, as the vectors say: the vectors are stored in the model and
// read at tagging time. Without the vectors the words are unknown.
func TestTrainEmbeddings(t *testing.T) {
	dir := t.TempDir()
	vecs := filepath.Join(dir, "vectors.txt.gz")
	f, err := os.Create(vecs)
	if err != nil {
		t.Fatal(err)
	}
	zw := gzip.NewWriter(f)
	zw.Write([]byte("4 2\ncat 1 0\ndog 0.8 0.1\nran 0 -1\nsat 0.1 -0.9\n"))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	tmpl := writeFile(t, filepath.Join(dir, "t.template"), "UV:%v[0,0]\n")
	data := writeFile(t, filepath.Join(dir, "train.txt"), "cat N\nran V\n\nran V\ncat N\n\n")
	model := filepath.Join(dir, "m.model")
	mustRun(t, "train", "--format", "conll", "--quiet", "--c1", "0", "--c2", "0.01", "--template", tmpl, "--embeddings", vecs, "--model", model, data)
	input := writeFile(t, filepath.Join(dir, "in.txt"), "Dog\nsat\n\nsat\nDOG\n\n")
	out := mustRun(t, "tag", "--format", "conll", "--model", model, input)
	if want := "Dog N\nsat V\n\nsat V\nDOG N\n\n"; strings.ReplaceAll(out, "\t", " ") != want {
		t.Fatalf("tag with the model alone:\n%q\nwant\n%q", out, want)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--embeddings", vecs, "--format", "crfsuite"}, "column formats"},
		{[]string{"--embeddings", vecs, "--cache", filepath.Join(dir, "c")}, "--cache"},
		{[]string{"--value-columns", "0"}, "1-based"},
		{[]string{"--embeddings", data}, "train.txt:1:"},
	} {
		args := append([]string{"train", "--quiet", "--template", tmpl, "--model", filepath.Join(dir, "x.model")}, c.args...)
		_, stderr, code := runTagger(t, append(args, data)...)
		if code == 0 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want an error naming %q", c.args, code, stderr, c.want)
		}
	}
}

// TestTrainValueColumns: a column declared valued holds name:value items;
// the model learns from the values, so it tags by the sign of a value it
// never saw in training (as a string column, f:7 would be unknown).
func TestTrainValueColumns(t *testing.T) {
	dir := t.TempDir()
	tmpl := writeFile(t, filepath.Join(dir, "t.template"), "U00:%x[0,1]\n")
	data := writeFile(t, filepath.Join(dir, "train.txt"), "a f:1 P\nb f:-2 M\n\nc f:0.5 P\nd f:-1 M\n\n")
	model := filepath.Join(dir, "m.model")
	mustRun(t, "train", "--format", "conll", "--quiet", "--c1", "0", "--c2", "0.01", "--template", tmpl, "--value-columns", "2", "--model", model, data)
	input := writeFile(t, filepath.Join(dir, "in.txt"), "x f:7\ny f:-3\n\n")
	out := mustRun(t, "tag", "--format", "conll", "--model", model, input)
	if want := "x f:7 P\ny f:-3 M\n\n"; strings.ReplaceAll(out, "\t", " ") != want {
		t.Fatalf("tag:\n%q\nwant\n%q", out, want)
	}
	bad := writeFile(t, filepath.Join(dir, "bad.txt"), "x f:z\n\n")
	if _, stderr, code := runTagger(t, "tag", "--format", "conll", "--model", model, bad); code == 0 || !strings.Contains(stderr, "bad.txt") || !strings.Contains(stderr, "f:z") {
		t.Errorf("bad value: exit %d, stderr %q", code, stderr)
	}
}
