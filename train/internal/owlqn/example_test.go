package owlqn_test

import (
	"errors"
	"fmt"

	"github.com/sparsetag/sparsetag/train/internal/owlqn"
)

// f(x) = ½(x₀-3)² + ½(x₁-0.5)²; with l1 = 1 the minimizer of f + ||x||_1 is
// the soft-thresholded center (3-1, 0) = (2, 0), where F = 0.5 + 0.125 + 2.
func shifted(x, grad []float64) float64 {
	c := [2]float64{3, 0.5}
	var f float64
	for j := range x {
		grad[j] = x[j] - c[j]
		f += 0.5 * grad[j] * grad[j]
	}
	return f
}

// The caller owns every evaluation and the stopping rule: it evaluates the
// starting point, then the trial points the optimizer hands out, and learns
// when an iteration is accepted. Here it stops when Next reports the
// optimum, when the line search can no longer decrease F at working
// precision, or after 100 iterations.
func ExampleOptimizer() {
	x0 := []float64{0, 0}
	g0 := make([]float64, 2)
	o, err := owlqn.New(x0, shifted(x0, g0), g0, owlqn.Settings{L1: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	for o.Iterations() < 100 {
		x, grad, err := o.Next()
		if x == nil || errors.Is(err, owlqn.ErrLineSearch) {
			break // optimal, or no further decrease at working precision
		} else if err != nil {
			fmt.Println(err)
			return
		}
		if accepted := o.Tell(shifted(x, grad)); accepted {
			// An iteration ended at o.X(): a caller would log it, test
			// its stopping rule or screen here.
			continue
		}
	}
	x := o.X()
	fmt.Printf("x = (%.6f, %.6f), F = %.6f\n", x[0], x[1], o.Objective())
	// Output:
	// x = (2.000000, 0.000000), F = 2.625000
}

// Compact drops coordinates a screening rule proved zero at the optimum;
// the caller then evaluates the restricted problem. Compact reports
// whether X moved (a dropped coordinate was not zero), in which case the
// caller evaluates the new point and hands it over with Rebase.
func ExampleOptimizer_Compact() {
	// f(x) = ½ Σ (x_j - c_j)², restricted to the coordinates in active.
	c := []float64{3, 0.5, -4}
	active := []int32{0, 1, 2}
	eval := func(x, grad []float64) float64 {
		var f float64
		for i, j := range active {
			grad[i] = x[i] - c[j]
			f += 0.5 * grad[i] * grad[i]
		}
		return f
	}
	x0 := []float64{0, 0, 0}
	g0 := make([]float64, 3)
	o, err := owlqn.New(x0, eval(x0, g0), g0, owlqn.Settings{L1: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	// |c_1| < l1, so x_1 = 0 at the optimum: drop coordinate 1.
	moved := o.Compact([]int32{0, 2}, false)
	active = []int32{0, 2} // the evaluation now sees (x_0, x_2)
	for range 50 {
		x, grad, err := o.Next()
		if x == nil || err != nil {
			break
		}
		o.Tell(eval(x, grad))
	}
	fmt.Printf("moved %v, len %d, x = (%.4f, %.4f)\n", moved, len(o.X()), o.X()[0], o.X()[1])
	// Output:
	// moved false, len 2, x = (2.0000, -3.0000)
}
