package screen

import (
	"math/rand/v2"
	"testing"

	"github.com/sparsetag/sparsetag/sparse"
)

// TestRnormBruteForce compares every closed form and the pair DP with
// (max - min)/2 of each feature over all label sequences on tiny chains,
// binary and real-valued (mixed sign), L = 2, 3, 4.
func TestRnormBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 1))
	for trial := 0; trial < 36; trial++ {
		L := 2 + trial%3
		maxT := 6
		if L == 4 {
			maxT = 5
		}
		c := randomCorpus(rng, 3+trial%4, 0, maxT, 4, 3, trial%2 == 0)
		b := &bruteCRF{lay: Layout{NumAttrs: 4, L: L, StartEnd: trial%3 != 2, NumPair: 3}, corpus: c}
		b.build()
		want := b.rnorm()
		got, err := b.lay.Rnorm(nil, c)
		if err != nil {
			t.Fatal(err)
		}
		approxEqual(t, "Rnorm", want, got, 1e-12, 1e-12)
	}
}

// TestRnormPairRuns checks the pair DP on hand-made runs of consecutive and
// separated positions with mixed signs, where the half-range is known: for
// values (+1, -1, +1) on consecutive positions 1..3 and L = 2, the off-diagonal
// feature (0 -> 1) can collect at most +2 (positions 1 and 3: y = 0,1,0,1) and
// at least -1, so R = 1.5; the diagonal (0 -> 0) collects at most 1 (one
// positive step: a 0 -> 0 -> 0 -> 0 path would also take -1) -- e.g. y =
// 0,0,1,0 collects +1 only at t = 1 -- and at least -1, so R = 1.
func TestRnormPairRuns(t *testing.T) {
	var x sparse.Matrix
	x.AppendRow(nil, nil)
	x.AppendRow([]int32{0}, []float64{1})
	x.AppendRow([]int32{0}, []float64{-1})
	x.AppendRow([]int32{0}, []float64{1})
	seq := []int32{0, 4}
	got := PairRnorm(nil, &x, seq, 1, 2)
	approxEqual(t, "PairRnorm", []float64{1, 1.5}, got, 1e-15, 0)
	// State and transitions on the same sequence: R = 3/2, diag 3/2, off 1.
	approxEqual(t, "StateRnorm", []float64{1.5}, StateRnorm(nil, &x, seq, 1), 1e-15, 0)
	d, o := TransitionRnorm(seq)
	approxEqual(t, "TransitionRnorm", []float64{1.5, 1}, []float64{d, o}, 1e-15, 0)
	approx1(t, "StartEndRnorm", 1, StartEndRnorm(4), 1e-15, 0)
}
