package train

import (
	"math"
	"strings"
	"testing"
)

// TestOptionsValidate: Validate refuses each option that makes no sense
// whatever the data, naming it, and accepts the zero Options (the
// defaults) and DefaultOptions.
func TestOptionsValidate(t *testing.T) {
	for _, c := range []struct {
		name string
		op   Options
		want string
	}{
		{"negative c1", Options{SumForm: true, C1: -5, C2: 1}, "c1 = -5"},
		{"zero c2", Options{SumForm: true, C1: 1}, "c2 must be > 0"},
		{"negative epsilon", Options{Epsilon: -1}, "epsilon = -1"},
		{"NaN beta", Options{Beta: math.NaN()}, "beta = NaN"},
		{"infinite alpha", Options{Alpha: math.Inf(1)}, "alpha = +Inf"},
		{"negative delta", Options{Delta: -0.1}, "delta = -0.1"},
		{"negative gamma", Options{Gamma: -1}, "gamma = -1"},
		{"negative max-iter", Options{MaxIter: -1}, "max-iter"},
		{"negative threads", Options{Threads: -2}, "threads"},
		{"unknown solver", Options{Solver: "newton"}, `unknown solver "newton"`},
		{"unknown screen", Options{Screen: "euclid"}, `unknown screening rule "euclid"`},
	} {
		err := c.op.Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Validate() = %v, want an error with %q", c.name, err, c.want)
		}
	}
	if err := (Options{}).Validate(); err != nil {
		t.Errorf("zero Options: %v", err)
	}
	if err := DefaultOptions().Validate(); err != nil {
		t.Errorf("DefaultOptions: %v", err)
	}
}
