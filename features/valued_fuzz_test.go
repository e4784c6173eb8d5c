package features

import (
	"bytes"
	"math"
	"strings"
	"testing"
)

// FuzzReadEmbeddings: any input gives an error or a table whose values
// are finite, within [-1, 1], and whose every word finds its own vector.
func FuzzReadEmbeddings(f *testing.F) {
	f.Add([]byte("2 2\nthe 1 -2\ndog 0 4\n"))
	f.Add([]byte("the 1e300 -1e300\nThe 0 0\n"))
	f.Add([]byte("\x1f\x8b"))
	f.Fuzz(func(t *testing.T, in []byte) {
		m, err := ReadEmbeddings(bytes.NewReader(in), "v.txt")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "v.txt") && !strings.HasPrefix(err.Error(), "features:") {
				t.Fatalf("error %q names neither the file nor the package", err)
			}
			return
		}
		for i := range m.Len() {
			for _, v := range m.Vector(i) {
				if math.IsNaN(v) || math.Abs(v) > 1 {
					t.Fatalf("word %q: value %v", m.Word(i), v)
				}
			}
			if got := m.Lookup(m.Word(i)); &got[0] != &m.Vector(i)[0] {
				t.Fatalf("word %q does not find its own vector", m.Word(i))
			}
		}
	})
}

// FuzzParseItem: a valued cell parses or fails, never panics; a parsed
// name is non-empty and its value finite.
func FuzzParseItem(f *testing.F) {
	for _, s := range []string{"a:1", `a\:b:2`, `a\\`, ":1", "a:", `\`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, cell string) {
		name, v, err := parseItem(cell)
		if err == nil && (name == "" || math.IsNaN(v) || math.IsInf(v, 0)) {
			t.Fatalf("%q: name %q value %v", cell, name, v)
		}
	})
}
