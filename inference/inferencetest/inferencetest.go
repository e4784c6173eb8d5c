// Package inferencetest is a brute-force oracle for package inference: it
// enumerates all L^T label sequences of a lattice and computes every
// quantity of inference directly from the definitions, in log space. It is
// meant for tests (T ≤ 6, L ≤ 4 or so) in inference, chain and screen.
package inferencetest

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/floats"

	"github.com/sparsetag/sparsetag/inference"
)

// MaxPaths is the largest number of label sequences Enumerate accepts.
const MaxPaths = 1 << 22

// Result holds what Enumerate computes from the definitions. The layouts are
// those of package inference.
type Result struct {
	// LogZ is log Σ_y exp(score(y)); 0 for T = 0, -Inf if no sequence has a
	// finite score.
	LogZ float64
	// Node is T×L: Node[t*L+y] = P(y_t = y).
	Node []float64
	// EdgeSum is L×L: EdgeSum[prev*L+cur] = Σ_{t≥1} P(y_{t-1}=prev, y_t=cur).
	EdgeSum []float64
	// EdgeAt has T entries; EdgeAt[t] (t ≥ 1) is the L×L pairwise marginal
	// of position t and EdgeAt[0] is nil.
	EdgeAt [][]float64
	// Entropy is -Σ_y p(y) log p(y) (0 if no sequence has a finite score)
	// and ExpectedScore is Σ_y p(y) score(y) (-Inf if none has).
	Entropy, ExpectedScore float64
	// Best is the highest-scoring sequence and BestScore its score. Ties are
	// broken as in inference.Viterbi: the smallest sequence when sequences
	// are compared from the last position backwards. Enumerate visits the
	// sequences in that order (y_0 varies fastest, y_{T-1} slowest) and
	// keeps the first one whose score is strictly larger than all before.
	Best      []int
	BestScore float64
	// Max and Min are the largest and smallest score(y).
	Max, Min float64
}

// score computes score(y) straight from the definition.
func score(lat *inference.Lattice, y []int) float64 {
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
	if T > 0 {
		if lat.Start != nil {
			s += lat.Start[y[0]]
		}
		if lat.End != nil {
			s += lat.End[y[T-1]]
		}
	}
	return s
}

// Enumerate computes every quantity of Result by walking all L^T label
// sequences of lat. It panics if the lattice's slices do not match T and L
// or if L^T exceeds MaxPaths.
func Enumerate(lat *inference.Lattice) Result {
	T, L := lat.T, lat.L
	checkLattice(lat)
	n := 1
	for t := 0; t < T; t++ {
		if n > MaxPaths/L {
			panic(fmt.Sprintf("inferencetest: %d^%d label sequences is too many", L, T))
		}
		n *= L
	}
	scores := make([]float64, n)
	y := make([]int, T)
	r := Result{
		Node:    make([]float64, T*L),
		EdgeSum: make([]float64, L*L),
		EdgeAt:  make([][]float64, T),
		Best:    make([]int, T),
	}
	for t := 1; t < T; t++ {
		r.EdgeAt[t] = make([]float64, L*L)
	}
	r.Max, r.Min = math.Inf(-1), math.Inf(1)
	for i := 0; i < n; i++ {
		decode(y, i, L)
		s := score(lat, y)
		scores[i] = s
		if i == 0 || s > r.BestScore {
			r.BestScore = s
			copy(r.Best, y)
		}
		r.Max = math.Max(r.Max, s)
		r.Min = math.Min(r.Min, s)
	}
	r.LogZ = floats.LogSumExp(scores)
	if math.IsInf(r.LogZ, -1) {
		r.ExpectedScore = math.Inf(-1)
		return r
	}
	for i, s := range scores {
		lp := s - r.LogZ
		p := math.Exp(lp)
		if p == 0 {
			continue
		}
		decode(y, i, L)
		r.ExpectedScore += p * s
		r.Entropy -= p * lp
		for t := 0; t < T; t++ {
			r.Node[t*L+y[t]] += p
			if t > 0 {
				k := y[t-1]*L + y[t]
				r.EdgeSum[k] += p
				r.EdgeAt[t][k] += p
			}
		}
	}
	return r
}

// decode writes the i-th label sequence into y: y_0 is the least
// significant base-L digit of i.
func decode(y []int, i, L int) {
	for t := range y {
		y[t] = i % L
		i /= L
	}
}

func checkLattice(lat *inference.Lattice) {
	T, L := lat.T, lat.L
	ok := T >= 0 && L >= 0 && (T == 0 || L > 0) && len(lat.Unary) == T*L &&
		(lat.Trans == nil || len(lat.Trans) == L*L) &&
		(lat.TransAt == nil || len(lat.TransAt) == T*L*L) &&
		(lat.Start == nil || len(lat.Start) == L) &&
		(lat.End == nil || len(lat.End) == L)
	if !ok {
		panic(fmt.Sprintf("inferencetest: lattice slices do not match T=%d L=%d", T, L))
	}
}

// RandomLattice returns a lattice of T positions and L labels whose Unary
// and Trans scores (and, if asked, TransAt, Start and End scores) are drawn
// uniformly from [-scale, scale) with rng. Block 0 of TransAt, which
// inference ignores, is filled too.
func RandomLattice(rng *rand.Rand, T, L int, scale float64, withTransAt, withStartEnd bool) *inference.Lattice {
	fill := func(n int) []float64 {
		x := make([]float64, n)
		for i := range x {
			x[i] = scale * (2*rng.Float64() - 1)
		}
		return x
	}
	lat := &inference.Lattice{T: T, L: L, Unary: fill(T * L), Trans: fill(L * L)}
	if withTransAt {
		lat.TransAt = fill(T * L * L)
	}
	if withStartEnd {
		lat.Start = fill(L)
		lat.End = fill(L)
	}
	return lat
}
