package flagcheck

import (
	"os"
	"path/filepath"
	"testing"
)

// TestOutputs: writable outputs and outputs without a path pass; the
// first that cannot be written is named by its flag.
func TestOutputs(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f.txt")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	ok := []Output{{Flag: "--model", Path: filepath.Join(dir, "m.model")}, {Flag: "--report"},
		{Flag: "--out", Path: filepath.Join(dir, "figures"), Dir: true}, {Flag: "--out", Path: dir, Dir: true}}
	if err := Outputs(ok...); err != nil {
		t.Errorf("writable outputs: %v", err)
	}
	for _, c := range []struct {
		out  Output
		want string
	}{
		{Output{Flag: "--model", Path: filepath.Join(dir, "missing", "m.model")}, "--model: cannot write "},
		{Output{Flag: "--out", Path: file, Dir: true}, "--out: " + file + " is not a directory"},
		{Output{Flag: "--report", Path: dir}, "--report: " + dir + " is a directory"},
	} {
		err := Outputs(append(ok, c.out)...)
		if err == nil || len(err.Error()) < len(c.want) || err.Error()[:len(c.want)] != c.want {
			t.Errorf("%+v: %v; want an error starting %q", c.out, err, c.want)
		}
	}
}
