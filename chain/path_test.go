package chain

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
)

func TestPathBetas(t *testing.T) {
	b := PathBetas(2, 3, 0.25)
	want := []float64{2, 1, 0.5} // 2 * 0.25^(i/2)
	approxEqual(t, "betas", want, b, 1e-15, 1e-15)
}

// TestPathMatchesIndependentSolves checks that warm-started, screened path
// solutions equal cold unscreened solves at the same beta, and that no
// feature that is non-zero in the tight solution was ever screened.
func TestPathMatchesIndependentSolves(t *testing.T) {
	for _, tc := range []struct {
		name string
		maxT int
		rule ScreenRule
	}{{"chain-pinsker", 5, ScreenPinsker}, {"multiclass-paper", 1, ScreenPaper}, {"multiclass-both", 1, ScreenBoth}} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(31, 32))
			c := randomCorpus(rng, 60, tc.maxT, 8, 0, 3, true)
			m, _ := NewModel(labelNames(3), 8, 0, true, nil)
			const eps = 1e-10
			var screenedAny bool
			_, err := Path(context.Background(), m, c, Options{Epsilon: eps, Screen: tc.rule}, PathOptions{K: 6, MinRatio: 0.1},
				func(k int, res *Result, w []float64) error {
					ref, _ := NewModel(labelNames(3), 8, 0, true, nil)
					rr, err := Train(context.Background(), ref, c, Options{Beta: res.Beta, Epsilon: 1e-13, Screen: ScreenNone, MaxIter: 5000})
					if err != nil {
						return err
					}
					bound := math.Sqrt(2*res.Gap/(res.Alpha*res.Beta)) + math.Sqrt(2*rr.Gap/(rr.Alpha*rr.Beta))
					d := 0.0
					for j := range w {
						d += (w[j] - ref.W[j]) * (w[j] - ref.W[j])
						if ref.W[j] != 0 && res.ScreenedSet != nil && res.ScreenedSet.Has(j) {
							t.Errorf("beta %d: feature %d is %g in the tight solution but was screened", k, j, ref.W[j])
						}
					}
					if math.Sqrt(d) > bound {
						t.Errorf("beta %d: distance %g > bound %g", k, math.Sqrt(d), bound)
					}
					if res.Screened > 0 {
						screenedAny = true
					}
					return nil
				})
			if err != nil {
				t.Fatal(err)
			}
			if !screenedAny {
				t.Error("nothing was screened along the path")
			}
		})
	}
}
