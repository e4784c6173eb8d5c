package inference_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sparsetag/sparsetag/inference"
	"github.com/sparsetag/sparsetag/inference/inferencetest"
	"github.com/sparsetag/sparsetag/internal/numtest"
)

// allPaths returns every label sequence of lat with a score above -Inf,
// sorted by decreasing score; ties keep the enumeration order of
// inferencetest.Enumerate (y_0 varies fastest), which is the documented tie
// order (compare from the last position backwards). Scores are computed
// from the definition (defScore), not by package inference.
func allPaths(lat *inference.Lattice) ([][]int, []float64) {
	T, L := lat.T, lat.L
	n := 1
	for t := 0; t < T; t++ {
		n *= L
	}
	var paths [][]int
	var scores []float64
	for i := 0; i < n; i++ {
		y := make([]int, T)
		j := i
		for t := range y {
			y[t] = j % L
			j /= L
		}
		s := defScore(lat, y)
		if math.IsInf(s, -1) {
			continue
		}
		paths = append(paths, y)
		scores = append(scores, s)
	}
	idx := make([]int, len(paths))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return scores[idx[a]] > scores[idx[b]] })
	sp := make([][]int, len(idx))
	ss := make([]float64, len(idx))
	for k, i := range idx {
		sp[k], ss[k] = paths[i], scores[i]
	}
	return sp, ss
}

// defScore is score(y) from the definition of Lattice, written
// independently of inference.Score.
func defScore(lat *inference.Lattice, y []int) float64 {
	T, L := lat.T, lat.L
	s := 0.0
	for t := 0; t < T; t++ {
		s += lat.Unary[t*L+y[t]]
		if t > 0 {
			k := y[t-1]*L + y[t]
			if lat.Trans != nil {
				s += lat.Trans[k]
			}
			if lat.TransAt != nil {
				s += lat.TransAt[t*L*L+k]
			}
		}
	}
	if T > 0 && lat.Start != nil {
		s += lat.Start[y[0]]
	}
	if T > 0 && lat.End != nil {
		s += lat.End[y[T-1]]
	}
	return s
}

// checkNBest compares NBest with the sorted enumeration for n = 1 … all+1.
// exactOrder: scores are small integers, so ties are exact and the order
// must match the documented tie order; otherwise (random real scores, no
// ties) the order is compared too, and scores to 1e-12.
func checkNBest(t *testing.T, name string, nw *inference.NBestWorkspace, lat *inference.Lattice) {
	t.Helper()
	wantP, wantS := allPaths(lat)
	// The oracle's best sequence and score head the sorted enumeration.
	if e := inferencetest.Enumerate(lat); len(wantP) > 0 {
		require.Equal(t, e.Best, wantP[0], "%s: first of the sorted enumeration vs Enumerate's best", name)
		numtest.RequireClose(t, e.BestScore, wantS[0], 1e-12, 1e-12, "%s: first score of the sorted enumeration vs Enumerate's best", name)
	}
	var paths [][]int
	var scores []float64
	for _, n := range []int{1, 2, 3, 5, len(wantP), len(wantP) + 1} {
		paths, scores = inference.NBest(nw, lat, n, paths, scores)
		k := min(n, len(wantP))
		require.Len(t, paths, k, "%s n=%d: paths", name, n)
		require.Len(t, scores, k, "%s n=%d: scores", name, n)
		for i := 0; i < k; i++ {
			// fmt.Sprint: for T = 0 an empty path may be nil or not.
			require.Equal(t, fmt.Sprint(wantP[i]), fmt.Sprint(paths[i]), "%s n=%d: path %d (score %v, want %v)", name, n, i, scores[i], wantS[i])
			require.Equal(t, scores[i], inference.Score(lat, paths[i]), "%s n=%d: Score(path %d) vs NBest's score: summation orders differ", name, n, i)
		}
		numtest.RequireSlices(t, wantS[:k], scores, 1e-12, 1e-12, "%s n=%d: scores", name, n)
	}
}

// TestNBestAgainstEnumerate: random real-valued tiny lattices (no ties),
// all variants of Trans/TransAt/Start/End.
func TestNBestAgainstEnumerate(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	var nw inference.NBestWorkspace
	for _, v := range variants() {
		for T := 0; T <= 5; T++ {
			for L := 1; L <= 4; L++ {
				lat := randomLattice(rng, T, L, 2, v)
				checkNBest(t, fmt.Sprintf("%v/T=%d/L=%d", v, T, L), &nw, lat)
			}
		}
	}
}

// TestNBestTies: scores in {-1, 0, 1} make many exact ties, which must come
// in the documented order (that of the stable sort of the enumeration).
func TestNBestTies(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	var nw inference.NBestWorkspace
	small := func(n int) []float64 {
		x := make([]float64, n)
		for i := range x {
			x[i] = float64(rng.IntN(3) - 1)
		}
		return x
	}
	for _, v := range variants() {
		for T := 1; T <= 5; T++ {
			for L := 1; L <= 3; L++ {
				lat := &inference.Lattice{T: T, L: L, Unary: small(T * L)}
				if !v.transNil {
					lat.Trans = small(L * L)
				}
				if v.transAt {
					lat.TransAt = small(T * L * L)
				}
				if v.startEnd {
					lat.Start, lat.End = small(L), small(L)
				}
				checkNBest(t, fmt.Sprintf("%v/T=%d/L=%d", v, T, L), &nw, lat)
				// paths[0] is the Viterbi path.
				ws := inference.NewWorkspace(T, L)
				vp := make([]int, T)
				vs := inference.Viterbi(ws, lat, vp)
				paths, scores := inference.NBest(&nw, lat, 1, nil, nil)
				require.Len(t, paths, 1, "T=%d L=%d: NBest(1)", T, L)
				require.Equal(t, vp, paths[0], "T=%d L=%d: NBest(1) path vs Viterbi", T, L)
				require.Equal(t, vs, scores[0], "T=%d L=%d: NBest(1) score vs Viterbi", T, L)
			}
		}
	}
}

// TestNBestForbidden: -Inf scores on random entries (forbidden labels and
// transitions); forbidden sequences are never returned.
func TestNBestForbidden(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	var nw inference.NBestWorkspace
	for _, v := range variants() {
		for T := 1; T <= 5; T++ {
			for L := 1; L <= 4; L++ {
				for _, frac := range []float64{0.2, 0.5, 0.9} {
					lat := randomLattice(rng, T, L, 2, v)
					forbid(rng, lat.Unary, frac)
					forbid(rng, lat.Trans, frac)
					forbid(rng, lat.TransAt, frac/2)
					forbid(rng, lat.Start, frac)
					forbid(rng, lat.End, frac)
					checkNBest(t, fmt.Sprintf("%v/T=%d/L=%d/frac=%g", v, T, L, frac), &nw, lat)
				}
			}
		}
	}
}

func TestNBestNoPath(t *testing.T) {
	inf := math.Inf(-1)
	lat := &inference.Lattice{T: 2, L: 2, Unary: []float64{0, 0, 0, 0}, Trans: []float64{inf, inf, inf, inf}}
	paths, scores := inference.NBest(new(inference.NBestWorkspace), lat, 3, nil, nil)
	assert.Empty(t, paths)
	assert.Empty(t, scores)
	paths, scores = inference.NBest(new(inference.NBestWorkspace), lat, 0, nil, nil)
	assert.Empty(t, paths, "n=0")
	assert.Empty(t, scores, "n=0")
}

func TestNBestEmpty(t *testing.T) {
	lat := &inference.Lattice{T: 0, L: 3}
	paths, scores := inference.NBest(new(inference.NBestWorkspace), lat, 2, nil, nil)
	require.Len(t, paths, 1, "want one sequence")
	assert.Empty(t, paths[0], "the one sequence is empty")
	assert.Equal(t, []float64{0}, scores)
}

func TestNBestZeroAllocs(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	lat := inferencetest.RandomLattice(rng, 30, 8, 1, true, true)
	var nw inference.NBestWorkspace
	paths, scores := inference.NBest(&nw, lat, 10, nil, nil)
	require.Len(t, paths, 10)
	allocs := testing.AllocsPerRun(20, func() {
		paths, scores = inference.NBest(&nw, lat, 10, paths, scores)
	})
	assert.Zero(t, allocs, "NBest allocations per call on a warm workspace")
}

func BenchmarkNBest(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, n := range []int{1, 10} {
		lat := inferencetest.RandomLattice(rng, 40, 20, 1, false, false)
		b.Run(fmt.Sprintf("T=40/L=20/n=%d", n), func(b *testing.B) {
			var nw inference.NBestWorkspace
			var paths [][]int
			var scores []float64
			b.ReportAllocs()
			for b.Loop() {
				paths, scores = inference.NBest(&nw, lat, n, paths, scores)
			}
		})
	}
}

// ExampleNBest lists the three best sequences of the lattice of
// ExampleViterbi. By hand: N V N scores 2+1+1 (unary) + 1+1 (N→V, V→N) = 6;
// N N N scores 2+0+1 = 3, N V V scores 2+1+0+1-2 = 2, and N N V scores
// 2+0+0+0+1 = 3, tied with N N N: the tie goes to the sequence with the
// lower last label (N N N).
func ExampleNBest() {
	labels := []string{"N", "V"}
	lat := &inference.Lattice{
		T: 3, L: 2,
		Unary: []float64{2, 0, 0, 1, 1, 0},
		Trans: []float64{0, 1, 1, -2},
	}
	var nw inference.NBestWorkspace
	paths, scores := inference.NBest(&nw, lat, 3, nil, nil)
	for k, p := range paths {
		for _, y := range p {
			fmt.Print(labels[y], " ")
		}
		fmt.Println(scores[k])
	}
	// Output:
	// N V N 6
	// N N N 3
	// N N V 3
}
