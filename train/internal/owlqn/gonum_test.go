// Comparison with gonum's optimize.LBFGS, an independent L-BFGS
// implementation, on problems without an L1 term.

package owlqn

import (
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/optimize"
	"gonum.org/v1/gonum/optimize/functions"
)

// gonumMinimize is the independent reference solver: gonum's L-BFGS with a
// tight gradient threshold. Its Wolfe line search may give up at rounding
// level before the threshold is met ("linesearch: failed to converge"); the
// best point found is used then, and the test's tolerance covers it.
func gonumMinimize(t *testing.T, p optimize.Problem, x0 []float64) []float64 {
	t.Helper()
	res, err := optimize.Minimize(p, x0, &optimize.Settings{
		GradientThreshold: 1e-12,
		Converger:         &optimize.FunctionConverge{Absolute: 1e-16, Iterations: 100},
	}, &optimize.LBFGS{})
	if res == nil {
		t.Fatalf("gonum Minimize: %v", err)
	}
	if err != nil {
		t.Logf("gonum Minimize: %v (using its best point, |grad| = %g)", err, maxAbs(res.Gradient))
	}
	return res.X
}

func TestL1ZeroMatchesGonumLBFGS(t *testing.T) {
	t.Run("ExtendedRosenbrock", func(t *testing.T) {
		fun := functions.ExtendedRosenbrock{}
		for _, n := range []int{2, 10} {
			x0 := rosenbrockStart(n)
			o, err := drive(x0, rosenbrockFunc(), Settings{})
			if err != nil {
				t.Fatal(err)
			}
			run(t, o, 1e-10, 2000)
			ref := gonumMinimize(t, optimize.Problem{Func: fun.Func, Grad: fun.Grad}, x0)
			approxEqual(t, "owlqn vs gonum LBFGS", ref, o.X(), 1e-7, 0)
		}
	})
	t.Run("quadratic", func(t *testing.T) {
		const n = 30
		fn, value, _ := spdQuadratic(rand.New(rand.NewPCG(5, 1)), n)
		x0 := make([]float64, n)
		o, err := drive(x0, fn, Settings{M: 5})
		if err != nil {
			t.Fatal(err)
		}
		run(t, o, 1e-12, 1000)
		ref := gonumMinimize(t, optimize.Problem{
			Func: func(x []float64) float64 { return value(x, nil) },
			Grad: func(g, x []float64) { value(x, g) },
		}, x0)
		approxEqual(t, "owlqn vs gonum LBFGS", ref, o.X(), 1e-9, 1e-9)
	})
}
