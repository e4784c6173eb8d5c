package dataset

import (
	"os"
	"path/filepath"
	"reflect"
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
