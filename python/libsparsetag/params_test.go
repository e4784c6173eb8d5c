package main

import (
	"strings"
	"testing"
)

// TestParams: CRFsuite's lbfgs table and defaults, the algorithms known but
// not trained yet refused by name, values checked.
func TestParams(t *testing.T) {
	tab, err := paramTable("lbfgs")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range tab {
		names = append(names, p.Name)
	}
	want := "feature.minfreq feature.possible_states feature.possible_transitions c1 c2 max_iterations num_memories epsilon period delta linesearch max_linesearch threads"
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
	for _, a := range []string{"l2sgd", "ap", "pa", "averaged-perceptron", "passive-aggressive", "arow"} {
		if _, err := paramTable(a); err == nil || !strings.Contains(err.Error(), "only lbfgs") {
			t.Errorf("%s: %v", a, err)
		}
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
