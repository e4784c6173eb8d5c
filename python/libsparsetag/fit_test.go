package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
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

func newTestJob() *job {
	return &job{notify: make(chan struct{}, 1), done: make(chan struct{}), intr: make(chan struct{}), info: map[string]any{}}
}

// TestFitOnline: every online algorithm trains, logs CRFsuite's header and
// one block per epoch with the holdout evaluation inside it, tags its
// training data, and writes nothing when interrupted before its first
// epoch.
func TestFitOnline(t *testing.T) {
	header := map[string]string{
		"l2sgd": "Stochastic Gradient Descent (SGD)\n", "averaged-perceptron": "Averaged perceptron\n",
		"passive-aggressive": "Passive Aggressive\n", "arow": "Adaptive Regularization of Weights (AROW)\n",
	}
	exs := toyExamples()
	for alg, head := range header {
		p, err := parseParams(alg, map[string]string{"max_iterations": "3"})
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "m.crfsuite")
		j := newTestJob()
		if err := j.fit(alg, p, exs, exs[:2], path); err != nil {
			t.Fatal(alg, err)
		}
		log, _ := j.wait(0)
		log = strings.ReplaceAll(log, "\x1e", "")
		// arow and ap may stop on epsilon = 0 before max_iterations on
		// this separable toy.
		n, _ := j.info["iterations"].(int)
		block := fmt.Sprintf("***** Iteration #%d *****\n", n)
		if alg == "l2sgd" {
			block = fmt.Sprintf("***** Epoch #%d *****\n", n)
		}
		if !strings.Contains(log, head) || !strings.Contains(log, block) || strings.Count(log, "Item accuracy: ") != n {
			t.Errorf("%s: log\n%s", alg, log)
		}
		if n < 1 || n > 3 || j.info["written"] != path || j.model == nil {
			t.Errorf("%s: info %v", alg, j.info)
		}
		tg, err := j.model.weights()
		if err != nil {
			t.Fatal(err)
		}
		if tg.NonZero() == 0 {
			t.Errorf("%s: every weight is zero", alg)
		}

		j = newTestJob()
		j.interrupt()
		if err := j.fit(alg, p, exs, nil, path+"2"); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(path + "2"); !os.IsNotExist(err) || j.model != nil || j.info["interrupted"] != true {
			t.Errorf("%s interrupted before its first epoch: model %v, file %v, info %v", alg, j.model, err, j.info)
		}
	}
}

// TestSequenceWeights: a weight changes what an online algorithm learns
// (a negative control: the same data unweighted gives other weights),
// and lbfgs refuses weights other than 1 before training.
func TestSequenceWeights(t *testing.T) {
	train := func(exs []dataset.Example) []float64 {
		p, _ := parseParams("passive-aggressive", map[string]string{"max_iterations": "2"})
		j := newTestJob()
		if err := j.fit("passive-aggressive", p, exs, nil, ""); err != nil {
			t.Fatal(err)
		}
		m, err := j.model.weights()
		if err != nil {
			t.Fatal(err)
		}
		return m.W
	}
	plain := toyExamples()
	weighted := toyExamples()
	for i := range weighted {
		if i%3 == 0 {
			weighted[i].Weight = 5
		}
	}
	a, b := train(plain), train(weighted)
	if reflect.DeepEqual(a, b) {
		t.Error("sequence weights of 5 trained the same weights as none")
	}
	p, _ := parseParams("lbfgs", nil)
	if err := checkAlgorithm("lbfgs", p, weighted, 0); err == nil || !strings.Contains(err.Error(), "sequence weights") {
		t.Errorf("lbfgs with weights: %v", err)
	}
	ones := toyExamples()
	ones[0].Weight = 1
	if err := checkAlgorithm("lbfgs", p, ones, 0); err != nil {
		t.Errorf("lbfgs with weights of 1: %v", err)
	}
}

// TestFitColumns: token columns train with a CRF++ template (lbfgs and an
// online algorithm), the model reads columns and is saved in sparsetag's
// format (CRFsuite's cannot hold a template); mixed kinds, columns
// without a template and a template with attributes are refused.
func TestFitColumns(t *testing.T) {
	var exs []dataset.Example
	for i := 0; i < 20; i++ {
		w := []string{"the", "dog", "runs"}
		if i%2 == 1 {
			w = []string{"a", "cat", "sleeps"}
		}
		exs = append(exs, dataset.Example{Tokens: [][]string{{w[0], "DT"}, {w[1], "NN"}, {w[2], "VB"}}, Labels: []string{"B", "I", "O"}})
	}
	tmpl := "U00:%x[0,0]\nU01:%x[0,1]\nU02:%x[-1,1]\nB\n"
	for _, alg := range []string{"lbfgs", "averaged-perceptron"} {
		p, err := parseParams(alg, map[string]string{"template": tmpl, "max_iterations": "20"})
		if err != nil {
			t.Fatal(err)
		}
		if err := checkAlgorithm(alg, p, exs, 0); err != nil {
			t.Fatal(alg, err)
		}
		path := filepath.Join(t.TempDir(), "m")
		j := newTestJob()
		if err := j.fit(alg, p, exs, nil, path); err != nil {
			t.Fatal(alg, err)
		}
		m, err := openModelFile(path)
		if err != nil {
			t.Fatal(alg, err)
		}
		if m.summary().Reads != "columns" || m.format != "sparsetag" {
			t.Fatalf("%s: the saved model is %+v", alg, m.summary())
		}
		got, err := m.tg.Tag(nil, &dataset.Example{Tokens: [][]string{{"a", "DT"}, {"cat", "NN"}, {"runs", "VB"}}})
		if err != nil || len(got) != 3 {
			t.Fatalf("%s: tag %v, %v", alg, got, err)
		}
		if labels := m.tg.Labels(); labels[got[0]] != "B" || labels[got[2]] != "O" {
			t.Errorf("%s: tagged %v (labels %v)", alg, got, labels)
		}
	}
	noTmpl, _ := parseParams("lbfgs", nil)
	withTmpl, _ := parseParams("lbfgs", map[string]string{"template": tmpl})
	badTmpl, _ := parseParams("lbfgs", map[string]string{"template": "U00:%x[0"})
	mixed := append(append([]dataset.Example(nil), exs...), toyExamples()[0])
	for name, c := range map[string]struct {
		p   params
		exs []dataset.Example
		msg string
	}{
		"columns without a template": {noTmpl, exs, "need a CRF++ template"},
		"a template with attributes": {withTmpl, toyExamples(), "applies to token columns"},
		"a bad template":             {badTmpl, exs, "parameter template"},
		"both kinds":                 {withTmpl, mixed, "other kind"},
	} {
		if err := checkAlgorithm("lbfgs", c.p, c.exs, 0); err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: %v, want an error saying %q", name, err, c.msg)
		}
	}
}

// TestFitPath: a path of penalties, c1 decreasing from c1_max at a fixed
// c2/c1, each scored on the holdout sequences, the selected point scoring
// best; bad path parameters are refused before training.
func TestFitPath(t *testing.T) {
	exs := toyExamples()
	p, err := parseParams("lbfgs", map[string]string{"c1": "1", "c2": "0.1", "path": "6", "path.min_ratio": "0.01", "threads": "1"})
	if err != nil {
		t.Fatal(err)
	}
	if err := checkAlgorithm("lbfgs", p, exs, 0); err != nil {
		t.Fatal(err)
	}
	j := newTestJob()
	if err := j.fit("lbfgs", p, exs[:20], exs[20:], ""); err != nil {
		t.Fatal(err)
	}
	pts := j.info["path"].([]pathPoint)
	sel := j.info["selected"].(int)
	if len(pts) == 0 || sel < 0 || sel >= len(pts) || j.model == nil {
		t.Fatalf("path %+v, selected %d", pts, sel)
	}
	for k, pt := range pts {
		if pt.Score == nil || *pt.Score < 0 || *pt.Score > 1 {
			t.Errorf("point %d unscored: %+v", k, pt)
		}
		if k > 0 && !(pt.C1 < pts[k-1].C1) {
			t.Errorf("c1 does not decrease: %+v", pts)
		}
		if ratio := pt.C2 / pt.C1; math.Abs(ratio-0.1) > 1e-9 {
			t.Errorf("point %d: c2/c1 = %g, want 0.1", k, ratio)
		}
		if *pt.Score > *pts[sel].Score {
			t.Errorf("point %d scores %g above the selected one's %g", k, *pt.Score, *pts[sel].Score)
		}
	}
	for given, msg := range map[string]string{"path=-1": "path >= 0", "path.min_ratio=1": "path.min_ratio", "c1=0": "c1 > 0"} {
		k, v, _ := strings.Cut(given, "=")
		q, _ := parseParams("lbfgs", map[string]string{"c1": "1", "path": "3", k: v})
		if err := checkAlgorithm("lbfgs", q, exs, 0); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: %v", given, err)
		}
	}
}
