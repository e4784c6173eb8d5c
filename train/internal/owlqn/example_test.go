package owlqn_test

import (
	"errors"
	"fmt"
	"math"

	"github.com/sparsetag/sparsetag/train/internal/owlqn"
)

// f(x) = ½(x₀-3)² + ½(x₁-0.5)²; with l1 = 1 the minimizer of f + ||x||_1 is
// the soft-thresholded center (3-1, 0) = (2, 0), where F = 0.5 + 0.125 + 2.
func shifted(x, grad []float64) (float64, error) {
	c := [2]float64{3, 0.5}
	var f float64
	for j := range x {
		grad[j] = x[j] - c[j]
		f += 0.5 * grad[j] * grad[j]
	}
	return f, nil
}

// The caller drives the optimizer and owns the stopping rule; here the
// max-norm of the pseudo-gradient.
func ExampleOptimizer() {
	o, err := owlqn.New([]float64{0, 0}, shifted, owlqn.Settings{L1: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	var pg []float64
	for o.Iterations() < 100 {
		pg = o.PseudoGradient(pg)
		if maxAbs(pg) <= 1e-12 {
			break
		}
		if err := o.Iterate(); errors.Is(err, owlqn.ErrLineSearch) {
			break // no further decrease at working precision
		} else if err != nil {
			fmt.Println(err)
			return
		}
	}
	x := o.X()
	fmt.Printf("x = (%.6f, %.6f), F = %.6f\n", x[0], x[1], o.Objective())
	// Output:
	// x = (2.000000, 0.000000), F = 2.625000
}

// Compact drops coordinates a screening rule proved zero at the optimum;
// the Func must then evaluate the restricted problem.
func ExampleOptimizer_Compact() {
	// f(x) = ½ Σ (x_j - c_j)², restricted to the coordinates in active.
	c := []float64{3, 0.5, -4}
	active := []int32{0, 1, 2}
	fn := func(x, grad []float64) (float64, error) {
		var f float64
		for i, j := range active {
			grad[i] = x[i] - c[j]
			f += 0.5 * grad[i] * grad[i]
		}
		return f, nil
	}
	o, err := owlqn.New([]float64{0, 0, 0}, fn, owlqn.Settings{L1: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	// |c_1| < l1, so x_1 = 0 at the optimum: drop coordinate 1.
	keep := []int32{0, 2}
	o.Compact(keep, false)
	active = []int32{0, 2} // the Func now sees (x_0, x_2)
	for range 50 {
		if err := o.Iterate(); err != nil {
			break
		}
	}
	fmt.Printf("len %d, x = (%.4f, %.4f)\n", o.Len(), o.X()[0], o.X()[1])
	// Output:
	// len 2, x = (2.0000, -3.0000)
}

func maxAbs(v []float64) float64 {
	var m float64
	for _, x := range v {
		m = math.Max(m, math.Abs(x))
	}
	return m
}
