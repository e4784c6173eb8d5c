package dataset

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestReadTrainingModel: streaming encodes as ReadFile then
// NewTrainingModel do, and returns the @weight weights.
func TestReadTrainingModel(t *testing.T) {
	path := filepath.Join(t.TempDir(), "train.txt")
	text := "B-NP\tw=He\tpos=PRP\nB-VP\tw=runs:2\n\n@weight:3\nB-NP\tw=It\nO\tw=.\n\nB-VP\tw=runs\n\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	opts := Options{Format: CRFsuite, Labeled: true}
	exs, err := ReadFile(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	enc1, _ := NewEncoder(CRFsuite, nil)
	m1, c1, err := NewTrainingModel(enc1, exs, 1)
	if err != nil {
		t.Fatal(err)
	}
	enc2, _ := NewEncoder(CRFsuite, nil)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := NewReader(path, f, opts)
	if err != nil {
		t.Fatal(err)
	}
	m2, c2, w, err := ReadTrainingModel(r, enc2)
	if err != nil {
		t.Fatal(err)
	}
	if m2.W != nil {
		t.Error("the streamed model has weights: it is a layout only")
	}
	if !reflect.DeepEqual(c1, c2) || !reflect.DeepEqual(m1.Labels, m2.Labels) || m1.Layout != m2.Layout {
		t.Errorf("streaming and reading whole differ:\n%+v\n%+v", c1, c2)
	}
	if !reflect.DeepEqual(w, []float64{1, 3, 1}) || !reflect.DeepEqual(w, SequenceWeights(exs)) {
		t.Errorf("weights %v", w)
	}
}

// randomCRFsuite returns the text of n random sequences of a CRFsuite
// file: escaped names (\\: and \\\\), repeated names in a row, values
// other than 1 in some rows, rows of up to 30 attributes, positions
// without attributes, some @weight lines.
func randomCRFsuite(rng *rand.Rand, n int) string {
	var b strings.Builder
	for range n {
		if rng.IntN(4) == 0 {
			fmt.Fprintf(&b, "@weight:%d\n", 1+rng.IntN(3))
		}
		for range 1 + rng.IntN(6) {
			b.WriteString([]string{"B-NP", "I-NP", "O", "B-VP"}[rng.IntN(4)])
			valued := rng.IntN(3) == 0
			for range rng.IntN(31) {
				fmt.Fprintf(&b, "\tU%02d\\:w%d", rng.IntN(9), rng.IntN(40))
				if rng.IntN(5) == 0 {
					b.WriteString("\\\\x")
				}
				if valued && rng.IntN(2) == 0 {
					fmt.Fprintf(&b, ":%g", []float64{0.5, 2, -1.5, 1}[rng.IntN(4)])
				}
			}
			b.WriteString("\n")
		}
		b.WriteString("\n")
	}
	return b.String()
}

// TestReadTrainingModelRandom: streaming from the file's bytes gives the
// corpus, labels, dictionary (names and counts) and weights of reading
// every Example and encoding it (the strings' path), on random files.
func TestReadTrainingModelRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 9))
	for trial := range 5 {
		text := randomCRFsuite(rng, 60)
		opts := Options{Format: CRFsuite, Labeled: true}
		exs, err := Read("r", strings.NewReader(text), opts)
		if err != nil {
			t.Fatal(err)
		}
		enc1, _ := NewEncoder(CRFsuite, nil)
		m1, c1, err := NewTrainingModel(enc1, exs, 1)
		if err != nil {
			t.Fatal(err)
		}
		enc2, _ := NewEncoder(CRFsuite, nil)
		r, err := NewReader("r", strings.NewReader(text), opts)
		if err != nil {
			t.Fatal(err)
		}
		m2, c2, w, err := ReadTrainingModel(r, enc2)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(c1, c2) || !reflect.DeepEqual(m1.Labels, m2.Labels) || m1.Layout != m2.Layout {
			t.Fatalf("trial %d: streaming and reading whole differ", trial)
		}
		if !reflect.DeepEqual(enc1.Unary().Names(), enc2.Unary().Names()) {
			t.Fatalf("trial %d: the dictionaries differ", trial)
		}
		for id := range int32(enc1.Unary().Len()) {
			if enc1.Unary().Count(id) != enc2.Unary().Count(id) {
				t.Fatalf("trial %d: the counts of %q differ", trial, enc1.Unary().Name(id))
			}
		}
		if want := SequenceWeights(exs); !reflect.DeepEqual(w, want) {
			t.Fatalf("trial %d: weights %v, want %v", trial, w, want)
		}
	}
}

// TestReadTrainingModelErrors: the streamed reading of bytes fails as the
// reading of Examples does: unlabeled input, a too long sequence, bad
// input with its file and line.
func TestReadTrainingModelErrors(t *testing.T) {
	read := func(text string, labeled bool) error {
		enc, _ := NewEncoder(CRFsuite, nil)
		r, err := NewReader("in.crf", strings.NewReader(text), Options{Format: CRFsuite, Labeled: labeled})
		if err != nil {
			t.Fatal(err)
		}
		_, _, _, err = ReadTrainingModel(r, enc)
		return err
	}
	if err := read("B\ta\n", false); err == nil || err.Error() != "sequence 1 has no labels" {
		t.Errorf("unlabeled: %v", err)
	}
	if err := read("B\ta\n\nB\ta:x\n", true); err == nil || !strings.HasPrefix(err.Error(), "in.crf:3:") {
		t.Errorf("bad value: %v", err)
	}
	long := "B\ta\n\n" + strings.Repeat("B\tb\n", MaxSequenceLen+1)
	if err := read(long, true); err == nil || !strings.Contains(err.Error(), "in.crf:3: sequence of 100001 positions") {
		t.Errorf("long sequence: %v", err)
	}
}
