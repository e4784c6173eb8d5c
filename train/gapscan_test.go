package train

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/sparsetag/sparsetag/screen"
	"github.com/sparsetag/sparsetag/train/internal/blocks"
	"github.com/stretchr/testify/require"
)

// gapProblem draws a pass over n unscreened features: u (increasing, with
// gaps), a working set act (a subset of u, holding the first two features
// of every block of blocks.Len) with weights x (a third zero elsewhere,
// magnitudes from 1e-3 to 1e6, so that the order of the sum shows in its
// bits), and m over u (most within [-l1, l1], some beyond).
func gapProblem(rng *rand.Rand, n int, l1 float64) (u, act []int32, x, m []float64) {
	j := int32(0)
	for q := range n {
		j += 1 + int32(rng.IntN(3))
		u = append(u, j)
		if edge := q%blocks.Len < 2; edge || rng.IntN(4) == 0 {
			act = append(act, j)
			w := rng.NormFloat64() * math.Pow(10, -3+9*rng.Float64())
			if !edge && rng.IntN(3) == 0 {
				w = 0
			}
			x = append(x, w)
		}
		v := l1 * (rng.Float64()*2 - 1)
		if rng.IntN(20) == 0 {
			v *= 1 + 10*rng.Float64()
		}
		m = append(m, v)
	}
	return u, act, x, m
}

// TestGapScanSerialBits: supportAndGap and appendGapTerms (with the sum of
// coordTerms) on 1 to 5 goroutines against the serial loops they replace:
// the same support and the same bits of the gap, over several blocks.
func TestGapScanSerialBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(40, 2))
	pen := penalty{l1: 0.3, l2: 0.7}
	alpha := pen.l2 / pen.l1
	n := 3*blocks.Len + 123
	u, act, x, m := gapProblem(rng, n, pen.l1)

	// The serial loop of supportAndGap.
	var wantSupp []int32
	var wantW []float64
	want, k := 0.0, 0
	for q, j := range u {
		w := 0.0
		if k < len(act) && act[k] == j {
			w = x[k]
			k++
		}
		if w != 0 {
			wantSupp, wantW = append(wantSupp, int32(q)), append(wantW, w)
		}
		want += screen.GapTerm(w, m[q], alpha, pen.l1)
	}
	// The serial loop of coordTerms, in blocks of 2 blocks.Len + 7 features.
	const block = 2*blocks.Len + 7 // several of Append's blocks in one
	wantC, s := 0.0, 0
	for lo := 0; lo < n; lo += block {
		for i, v := range m[lo:min(lo+block, n)] {
			w := 0.0
			if s < len(wantSupp) && int(wantSupp[s]) == lo+i {
				w = wantW[s]
				s++
			}
			wantC += screen.GapTerm(w, v, alpha, pen.l1)
		}
	}
	require.Greater(t, len(wantSupp), 1000)

	var g gapScan
	var sum blocks.Sum
	for threads := 1; threads <= 5; threads++ {
		supp, suppW, gap := g.supportAndGap(threads, u, act, x, m, pen, nil, nil)
		require.Equal(t, wantSupp, supp, "threads %d: support", threads)
		require.Equal(t, wantW, suppW, "threads %d: support weights", threads)
		require.Equal(t, math.Float64bits(want), math.Float64bits(gap), "threads %d: gap %v, want %v", threads, gap, want)

		var terms []float64
		for lo := 0; lo < n; lo += block {
			terms = appendGapTerms(terms, &sum, threads, lo, m[lo:min(lo+block, n)], supp, suppW, alpha, pen.l1)
		}
		got := 0.0
		for _, v := range terms {
			got += v
		}
		require.Equal(t, math.Float64bits(wantC), math.Float64bits(got), "threads %d: coordinate terms %v, want %v", threads, got, wantC)
		require.Equal(t, math.Float64bits(want), math.Float64bits(got), "the same sum")
		require.True(t, slices.IndexFunc(terms, func(v float64) bool { return v == 0 }) < 0, "zeros kept")
	}
}
