package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/sparsetag/sparsetag/dataset"
)

func toyExamples() []dataset.Example {
	var exs []dataset.Example
	for i := 0; i < 30; i++ {
		a, b := "x", "y"
		if i%3 == 0 {
			a, b = b, a
		}
		exs = append(exs, dataset.Example{
			Names:  [][]string{{"w:" + a, "bias"}, {"w:" + b, "bias"}},
			Values: [][]float64{{1, 1}, {1, 1}},
			Labels: []string{a, b},
		})
	}
	return exs
}

// TestInterruptRule: an interrupted run never replaces an existing model
// (MODEL.interrupted instead) and writes nothing when interrupted before
// its first iteration; a finished run writes MODEL.
func TestInterruptRule(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "m.crfsuite")
	p, err := parseParams("lbfgs", map[string]string{"threads": "1"})
	if err != nil {
		t.Fatal(err)
	}
	newJob := func() *job {
		return &job{notify: make(chan struct{}, 1), done: make(chan struct{}), intr: make(chan struct{}), info: map[string]any{}}
	}

	// Interrupted before it starts.
	j := newJob()
	j.interrupt()
	if err := j.fit("lbfgs", p, toyExamples(), nil, path); err != nil {
		t.Fatal(err)
	}
	if j.info["iterations"] != 0 {
		t.Logf("a run interrupted before it started did %v iterations", j.info["iterations"])
	} else if _, err := os.Stat(path); !os.IsNotExist(err) || j.model != nil {
		t.Fatalf("interrupted before the first iteration: model %v, file %v", j.model, err)
	}

	// Finished: writes path.
	j = newJob()
	if err := j.fit("lbfgs", p, toyExamples(), nil, path); err != nil {
		t.Fatal(err)
	}
	if j.info["written"] != path || j.info["interrupted"] != false {
		t.Fatalf("finished run: %v", j.info)
	}
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// The destination of an interrupted run when the model exists.
	if d, err := destination(path, true); err != nil || d != path+".interrupted" {
		t.Fatalf("destination %q, %v", d, err)
	}
	if d, _ := destination(filepath.Join(dir, "new"), true); d != filepath.Join(dir, "new") {
		t.Fatalf("destination of a new file: %q", d)
	}
	after, _ := os.ReadFile(path)
	if string(after) != string(before) {
		t.Fatal("model changed")
	}
}
