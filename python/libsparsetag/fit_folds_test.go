package main

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/dataset"
	"github.com/sparsetag/sparsetag/features"
	"github.com/sparsetag/sparsetag/train/selection"
)

// noisyExamples are sequences whose labels follow their attributes most of
// the time: a penalty too high or too low scores worse on held-out ones.
func noisyExamples(n int) []dataset.Example {
	var exs []dataset.Example
	words := []string{"a", "b", "c", "d", "e"}
	for i := 0; i < n; i++ {
		var names [][]string
		var vals [][]float64
		var labels []string
		for t := 0; t < 4; t++ {
			w := words[(i*7+t*3)%len(words)]
			l := "B-" + strings.ToUpper(w)
			if (i+t)%5 == 0 {
				l = "O"
			}
			names = append(names, []string{"w:" + w, "bias", "n:" + words[(i+t)%len(words)]})
			vals = append(vals, []float64{1, 1, 1})
			labels = append(labels, l)
		}
		exs = append(exs, dataset.Example{Names: names, Values: vals, Labels: labels})
	}
	return exs
}

// TestFitFolds: path.folds selects what selection.CrossValidate selects on
// the same sequences and folds (each fold encoded on its own, scored by
// chunk F1 on its held-out part), and keeps the model of its refit,
// weight for weight.
func TestFitFolds(t *testing.T) {
	exs := noisyExamples(60)
	p, err := parseParams("lbfgs", map[string]string{"c1": "0.5", "c2": "0.05", "path": "6", "path.min_ratio": "0.01", "path.folds": "3", "threads": "1"})
	if err != nil {
		t.Fatal(err)
	}
	if err := checkAlgorithm("lbfgs", p, exs, 0); err != nil {
		t.Fatal(err)
	}
	j := newTestJob()
	if err := j.fit("lbfgs", p, exs, nil, ""); err != nil {
		t.Fatal(err)
	}
	got := j.info["cv"].(cvReport)

	// The same selection, by the library directly.
	op := lbfgsOptions(p)
	cv, err := selection.CrossValidate(context.Background(), op, selection.CVOptions{Folds: 3, Betas: 6, MinRatio: 0.01,
		Fold: func(f int) (selection.CVFold, error) {
			part, held := selection.Fold(exs, 3, f)
			fm, fc, err := dataset.NewTrainingModel(features.NewAttributeEncoder(), part, 0)
			if err != nil {
				return selection.CVFold{}, err
			}
			score, err := selection.TaggerScorer(fm, func(tg *chain.Tagger) (float64, error) {
				ev, err := dataset.EvaluateAll(tg, held, 0)
				if err != nil {
					return 0, err
				}
				return ev.F1(), nil
			})
			return selection.CVFold{Model: fm, Corpus: fc, Score: score}, err
		}})
	if err != nil {
		t.Fatal(err)
	}
	if got.Chosen != cv.Chosen || !reflect.DeepEqual(got.Ratios, cv.Ratios) || !reflect.DeepEqual(got.Scores, cv.Scores) {
		t.Fatalf("path.folds chose %d of %v (scores %v); CrossValidate %d of %v (scores %v)", got.Chosen, got.Ratios, got.Scores, cv.Chosen, cv.Ratios, cv.Scores)
	}
	if cv.Chosen == 0 || cv.Chosen == len(cv.Ratios)-1 {
		t.Logf("the choice is at an end of the grid (%d of %d)", cv.Chosen, len(cv.Ratios))
	}
	m, c, err := dataset.NewTrainingModel(features.NewAttributeEncoder(), exs, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cv.Refit(context.Background(), m, c, op, nil); err != nil {
		t.Fatal(err)
	}
	kept, err := j.model.weights()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(kept.W, m.W) {
		t.Fatal("the model kept is not the refit's")
	}
	if pts := j.info["path"].([]pathPoint); len(pts) != cv.Chosen+1 || j.info["selected"] != cv.Chosen {
		t.Fatalf("refit path of %d points, selected %v; want %d", len(pts), j.info["selected"], cv.Chosen+1)
	}
}

// TestCheckFolds: path.folds needs a path, no holdout, at least 2 folds
// and as many sequences.
func TestCheckFolds(t *testing.T) {
	for _, c := range []struct {
		given   map[string]string
		n, hold int
		msg     string
	}{
		{map[string]string{"path": "4", "path.folds": "1"}, 10, 0, "at least 2 folds"},
		{map[string]string{"path": "4", "path.folds": "-3"}, 10, 0, "at least 2 folds"},
		{map[string]string{"path.folds": "3"}, 10, 0, "set path"},
		{map[string]string{"path": "4", "path.folds": "3"}, 10, 2, "not both"},
		{map[string]string{"path": "4", "path.folds": "11"}, 10, 0, "at least 11 training sequences"},
	} {
		p, err := parseParams("lbfgs", c.given)
		if err != nil {
			t.Fatal(err)
		}
		if err := checkFolds(p, c.n, c.hold); err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%v, %d sequences, %d held out: %v, want %q", c.given, c.n, c.hold, err, c.msg)
		}
	}
	p, _ := parseParams("lbfgs", map[string]string{"path": "4", "path.folds": "3"})
	if err := checkFolds(p, 3, 0); err != nil {
		t.Error(err)
	}
}
