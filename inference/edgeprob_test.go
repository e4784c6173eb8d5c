package inference_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/sparsetag/sparsetag/inference"
	"github.com/sparsetag/sparsetag/inference/inferencetest"
)

// TestEdgeProb: every entry of EdgeProb is the bits of EdgeAt's, on the
// exp-space and the log-space paths, with and without TransAt, Start and
// End and forbidden (-Inf) transitions.
func TestEdgeProb(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for trial := range 60 {
		T, L := 2+trial%5, 1+trial%4
		lat := inferencetest.RandomLattice(rng, T, L, 3, trial%2 == 0, trial%3 == 0)
		if trial%4 == 1 && lat.Trans != nil {
			lat.Trans[0] = math.Inf(-1)
		}
		for _, logSpace := range []bool{false, true} {
			ws := inference.NewWorkspace(T, L)
			inference.SetForceLogSpace(ws, logSpace)
			inference.ForwardBackward(ws, lat)
			var buf []float64
			for pos := 1; pos < T; pos++ {
				buf = ws.EdgeAt(buf, lat, pos)
				for p := range L {
					for c := range L {
						if got, want := ws.EdgeProb(lat, pos, p, c), buf[p*L+c]; math.Float64bits(got) != math.Float64bits(want) {
							t.Fatalf("trial %d log=%v t=%d (%d,%d): EdgeProb %v, EdgeAt %v", trial, logSpace, pos, p, c, got, want)
						}
					}
				}
			}
		}
	}
}
