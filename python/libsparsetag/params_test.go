package main

import (
	"reflect"
	"strings"
	"testing"

	"github.com/sparsetag/sparsetag/train/online"
)

// TestParams: CRFsuite's lbfgs table and defaults, an unknown algorithm
// refused by name, values checked.
func TestParams(t *testing.T) {
	tab, err := paramTable("lbfgs")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range tab {
		names = append(names, p.Name)
	}
	want := "feature.minfreq feature.possible_states feature.possible_transitions c1 c2 max_iterations num_memories epsilon period delta linesearch max_linesearch threads template path path.min_ratio path.folds"
	if got := strings.Join(names, " "); got != want {
		t.Fatalf("lbfgs parameters\n got %s\nwant %s", got, want)
	}
	p, err := parseParams("lbfgs", nil)
	if err != nil {
		t.Fatal(err)
	}
	op := lbfgsOptions(p)
	if op.C1 != 0 || op.C2 != 1 || op.Memory != 6 || op.Period != 10 || op.Delta != 1e-5 || op.RelEpsilon != 1e-5 || !op.ObservedPairs {
		t.Fatalf("CRFsuite's lbfgs defaults mapped to %+v", op)
	}
	if _, err := paramTable("foo"); err == nil || !strings.Contains(err.Error(), "unknown") {
		t.Errorf("foo: %v", err)
	}
	for given, msg := range map[string]string{
		"c1=x": "finite number", "c2=nan": "finite number", "max_iterations=1.5": "integer",
		"linesearch=Foo": "one of", "foo=1": "not found",
	} {
		k, v, _ := strings.Cut(given, "=")
		if _, err := parseParams("lbfgs", map[string]string{k: v}); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: error %v, want %q", given, err, msg)
		}
	}
	p, err = parseParams("lbfgs", map[string]string{"feature.possible_states": "1", "c1": "0.5", "max_iterations": "1e3"})
	if err != nil || lbfgsOptions(p).ObservedPairs || lbfgsOptions(p).C1 != 0.5 || lbfgsOptions(p).MaxIter != 1000 {
		t.Fatalf("%v %+v", err, lbfgsOptions(p))
	}
}

// TestOnlineParams: each online algorithm's table has CRFsuite's names in
// CRFsuite's order, its defaults map onto train/online's own defaults
// (online.NewParams, written from train_*.c independently of this
// table), and out-of-range values are refused with the parameter named.
func TestOnlineParams(t *testing.T) {
	want := map[string]string{
		"l2sgd":               "c2 max_iterations period delta calibration.eta calibration.rate calibration.samples calibration.candidates calibration.max_trials",
		"ap":                  "max_iterations epsilon",
		"averaged-perceptron": "max_iterations epsilon",
		"pa":                  "type c error_sensitive averaging max_iterations epsilon",
		"passive-aggressive":  "type c error_sensitive averaging max_iterations epsilon",
		"arow":                "variance gamma max_iterations epsilon",
	}
	for a, own := range want {
		tab, err := paramTable(a)
		if err != nil {
			t.Fatal(a, err)
		}
		var names []string
		for _, p := range tab {
			names = append(names, p.Name)
		}
		w := "feature.minfreq feature.possible_states feature.possible_transitions " + own + " threads template seed"
		if got := strings.Join(names, " "); got != w {
			t.Errorf("%s parameters\n got %s\nwant %s", a, got, w)
		}
		alg, _ := canonical(a)
		p, err := parseParams(alg, nil)
		if err != nil {
			t.Fatal(a, err)
		}
		op, err := onlineParams(alg, p)
		if err != nil {
			t.Fatal(a, err)
		}
		def, _ := online.NewParams(onlineAlgorithm[alg])
		if !reflect.DeepEqual(op, def) {
			t.Errorf("%s: the table's defaults give\n%+v\nCRFsuite's (online.NewParams) are\n%+v", a, op, def)
		}
	}
	for given, msg := range map[string]string{
		"pa:type=3": "type", "pa:c=0": "c=0", "arow:variance=-1": "variance", "l2sgd:calibration.rate=1": "calibration.rate",
		"ap:max_iterations=0": "max_iterations", "l2sgd:c2=0": "c2", "ap:seed=-1": "seed", "arow:feature.minfreq=-1": "feature.minfreq",
	} {
		alg, kv, _ := strings.Cut(given, ":")
		k, v, _ := strings.Cut(kv, "=")
		alg, _ = canonical(alg)
		p, err := parseParams(alg, map[string]string{k: v})
		if err == nil {
			_, err = onlineParams(alg, p)
		}
		if err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: error %v, want one naming %q", given, err, msg)
		}
	}
	// A parameter of another algorithm is not one of this one's.
	if _, err := parseParams("arow", map[string]string{"c1": "1"}); err == nil {
		t.Error("arow took c1")
	}
	p, _ := parseParams("passive-aggressive", map[string]string{"type": "2", "c": "0.5", "error_sensitive": "0", "averaging": "0"})
	if op, err := onlineParams("passive-aggressive", p); err != nil || op.Type != 2 || op.C != 0.5 || op.ErrorSensitive || op.Averaging {
		t.Errorf("pa parameters mapped to %+v, %v", op, err)
	}
}
