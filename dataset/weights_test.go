package dataset

import (
	"strings"
	"testing"
)

func TestReadSequenceWeights(t *testing.T) {
	w, err := readSequenceWeights("w.txt", strings.NewReader("1\n2.5\r\n0.25\n"), 3)
	if err != nil || len(w) != 3 || w[1] != 2.5 || w[2] != 0.25 {
		t.Fatalf("got %v, %v", w, err)
	}
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"1\n0\n1\n", 3, "w.txt:2: "},
		{"1\n-1\n1\n", 3, "w.txt:2: "},
		{"NaN\n1\n1\n", 3, "w.txt:1: "},
		{"1\n1\n+Inf\n", 3, "w.txt:3: "},
		{"1\n1e300\n1\n", 3, "w.txt:2: "},
		{"1\n\n1\n", 3, "w.txt:2: "},
		{"1\nheavy\n1\n", 3, "w.txt:2: "},
		{"1\n1\n", 3, "w.txt:2: 2 weights for the 3 sequences"},
		{"1\n1\n1\n1\n", 3, "w.txt:4: more weights"},
	} {
		if _, err := readSequenceWeights("w.txt", strings.NewReader(c.in), c.n); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.in, err, c.want)
		}
	}
}

func TestSequenceWeights(t *testing.T) {
	if w := SequenceWeights([]Example{{}, {}}); w != nil {
		t.Errorf("no weight given: %v, want nil", w)
	}
	if w := SequenceWeights([]Example{{}, {Weight: 3}}); len(w) != 2 || w[0] != 1 || w[1] != 3 {
		t.Errorf("got %v", w)
	}
}
