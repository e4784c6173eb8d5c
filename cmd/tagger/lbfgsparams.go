package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// lbfgsParams are the CRFsuite parameters --algorithm lbfgs takes with -p,
// mapped onto the flags of the certified elastic net.
var lbfgsParams = []string{"c1", "c2", "num_memories", "max_iterations", "delta", "period", "epsilon", "feature.possible_states", "feature.possible_transitions"}

// checkLBFGS applies --algorithm lbfgs: CRFsuite's defaults for what
// neither a flag nor -p sets (c1 = 0, c2 = 1, the observed attribute-label
// pairs, delta = 1e-5 over period = 10 iterations), then the -p
// parameters. The certificate still stops the run at the gap of
// --rel-epsilon; c2 = 0 is pure L1 (certified by its own gap) and c1 = c2
// = 0 no penalty, the one case where CRFsuite's epsilon (its gradient-norm
// test) applies: it is refused otherwise, as are linesearch and
// max_linesearch, which have no counterpart.
func (tf *trainFlags) checkLBFGS(set map[string]bool) error {
	c1, c2 := 0.0, 1.0
	eps := -1.0 // -p epsilon (-1: not given)
	if set["c1"] || set["c2"] || set["alpha"] || set["beta"] || set["beta-ratio"] {
		c1, c2 = tf.c1, tf.c2
	}
	if !set["delta"] {
		tf.op.Delta = 1e-5
	}
	if !set["observed-pairs"] {
		tf.op.ObservedPairs = true
	}
	for _, kv := range tf.params {
		name, v, _ := strings.Cut(kv, "=")
		bad := func(why string) error { return usagef("-p %s: %s", kv, why) }
		num := func() (float64, error) {
			x, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil || math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
				return 0, bad("want a finite number >= 0")
			}
			return x, nil
		}
		integer := func(min int) (int, error) {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil || n < min {
				return 0, bad(fmt.Sprintf("want an integer >= %d", min))
			}
			return n, nil
		}
		var err error
		switch name {
		case "c1":
			c1, err = num()
		case "c2":
			c2, err = num()
		case "num_memories":
			tf.op.Memory, err = integer(1)
		case "max_iterations":
			tf.op.MaxIter, err = integer(1)
		case "delta":
			tf.op.Delta, err = num()
		case "period":
			tf.op.Period, err = integer(1)
		case "feature.possible_states":
			switch v {
			case "0", "1":
				tf.op.ObservedPairs = v == "0"
			default:
				err = bad("want 0 or 1")
			}
		case "feature.possible_transitions":
			if v != "0" && v != "1" {
				err = bad("want 0 or 1")
			} // every transition is a feature of lbfgs here
		case "epsilon":
			eps, err = num()
		case "linesearch", "max_linesearch":
			err = bad("OWL-QN here has its own line search; it has no options")
		default:
			err = usagef("-p %s: unknown parameter of --algorithm lbfgs (its parameters: %s)", kv, strings.Join(lbfgsParams, ", "))
		}
		if err != nil {
			return err
		}
	}
	if eps >= 0 {
		if c1 != 0 || c2 != 0 {
			return usagef("-p epsilon: CRFsuite's gradient-norm test applies only without a penalty (c1 = c2 = 0): with one, lbfgs stops on the certified duality gap (--rel-epsilon, --epsilon)")
		}
		tf.op.Epsilon = eps
	}
	tf.c1, tf.c2 = c1, c2
	return nil
}
