package main

import (
	"reflect"
	"testing"

	"github.com/sparsetag/sparsetag/dataset"
	"github.com/sparsetag/sparsetag/features"
)

// TestPreEncoder: the pre-encoder's model and corpus, built one sequence
// at a time while they are appended, are dataset.NewTrainingModel's on
// the same sequences, field for field (attribute and label ids included:
// the saved models are the same bytes).
func TestPreEncoder(t *testing.T) {
	exs := noisyExamples(50)
	exs[7].Names[1] = append(exs[7].Names[1], "rare")
	exs[7].Values[1] = append(exs[7].Values[1], 0.5)
	pe := newPreEncoder()
	for _, ex := range exs {
		pe.add(ex)
	}
	pe.finish()
	m, c := pe.model()
	wm, wc, err := dataset.NewTrainingModel(features.NewAttributeEncoder(), exs, 0)
	if err != nil {
		t.Fatal(err)
	}
	if m == nil || !reflect.DeepEqual(c, wc) || !reflect.DeepEqual(m, wm) {
		t.Fatalf("pre-encoded model %v and corpus differ from NewTrainingModel's", m)
	}
	// A sequence without labels fails the guess: no model (the run encodes
	// again and reports the error itself).
	pe = newPreEncoder()
	pe.add(exs[0])
	pe.add(dataset.Example{Names: [][]string{{"a"}}, Values: [][]float64{{1}}})
	pe.finish()
	if m, _ := pe.model(); m != nil {
		t.Fatal("a failed guess gave a model")
	}
}

// TestTakeGuess: the guess serves a run of lbfgs keeping every attribute
// whose training sequences are exactly those of group 0, once; any other
// run drops it.
func TestTakeGuess(t *testing.T) {
	lbfgs, _ := parseParams("lbfgs", nil)
	minfreq, _ := parseParams("lbfgs", map[string]string{"feature.minfreq": "2"})
	fill := func(groups ...int) *trainer {
		tr := newTrainer()
		for i, g := range groups {
			ex := noisyExamples(len(groups))[i]
			tr.exs, tr.groups = append(tr.exs, ex), append(tr.groups, g)
			tr.guess(ex, g)
		}
		return tr
	}
	for _, c := range []struct {
		groups  []int
		alg     string
		p       params
		holdout int
		n       int
		ok      bool
	}{
		{[]int{0, 0, 0}, "lbfgs", lbfgs, -1, 3, true},
		{[]int{0, 1, 0}, "lbfgs", lbfgs, 1, 2, true},
		{[]int{0, 1, 0}, "lbfgs", lbfgs, -1, 3, false}, // group 1 trains too
		{[]int{0, 1, 0}, "lbfgs", lbfgs, 0, 1, false},  // group 0 held out
		{[]int{0, 1, 2}, "lbfgs", lbfgs, 1, 2, false},  // group 2 trains too
		{[]int{0, 0}, "lbfgs", minfreq, -1, 2, false},
		{[]int{0, 0}, "ap", lbfgs, -1, 2, false},
	} {
		tr := fill(c.groups...)
		pe := tr.takeGuess(c.alg, c.p, c.holdout, c.n)
		if (pe != nil) != c.ok {
			t.Errorf("groups %v, %s, holdout %d: guess taken %v, want %v", c.groups, c.alg, c.holdout, pe != nil, c.ok)
		}
		if pe != nil {
			if m, _ := pe.model(); m == nil {
				t.Errorf("groups %v: no model", c.groups)
			}
		}
		if tr.takeGuess(c.alg, c.p, c.holdout, c.n) != nil {
			t.Errorf("groups %v: the guess served twice", c.groups)
		}
		tr.clear()
	}
}
