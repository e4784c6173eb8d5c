package inference

import (
	"fmt"
	"math"
)

// Lattice holds the scores of one sequence of T positions over L labels.
//
// The score of a label sequence y = (y_0, …, y_{T-1}) is
//
//	score(y) = Σ_t Unary[t,y_t]
//	         + Σ_{t≥1} (Trans[y_{t-1},y_t] + TransAt[t,y_{t-1},y_t])
//	         + Start[y_0] + End[y_{T-1}]
//
// and the chain distribution is p(y) = exp(score(y)) / Z.
//
// Scores are finite or -Inf. A -Inf score forbids a label or a transition
// (constrained decoding); the functions of this package return no NaN as long
// as at least one label sequence has a finite score. +Inf and NaN scores are
// not allowed and give undefined (usually NaN) results.
//
// The functions of this package only read a Lattice, so one Lattice may be
// shared by goroutines that each use their own Workspace.
type Lattice struct {
	// T is the number of positions and L the number of labels.
	T, L int
	// Unary is T×L, row-major: Unary[t*L+y] is the score of label y at
	// position t.
	Unary []float64
	// Trans is L×L, row-major: Trans[prev*L+cur] is the score of the
	// transition prev → cur at every position t ≥ 1. nil means all zero.
	Trans []float64
	// TransAt is optional, T×L×L: TransAt[t*L*L+prev*L+cur] is added to
	// Trans for the transition into position t (t ≥ 1; block t = 0 is
	// ignored). nil means none.
	TransAt []float64
	// Start is optional, length L: Start[y] is added for y_0. nil means zero.
	Start []float64
	// End is optional, length L: End[y] is added for y_{T-1}. nil means zero.
	End []float64
}

// check panics with an "inference: ..." message when the slice lengths of
// lat do not match its dimensions.
func (lat *Lattice) check() {
	if lat == nil {
		panic("inference: nil Lattice")
	}
	T, L := lat.T, lat.L
	if T < 0 || L < 0 {
		panic(fmt.Sprintf("inference: negative lattice size T=%d L=%d", T, L))
	}
	if T > 0 && L == 0 {
		panic(fmt.Sprintf("inference: lattice with T=%d positions and no label", T))
	}
	if len(lat.Unary) != T*L {
		panic(fmt.Sprintf("inference: len(Unary) = %d, want T*L = %d", len(lat.Unary), T*L))
	}
	if lat.Trans != nil && len(lat.Trans) != L*L {
		panic(fmt.Sprintf("inference: len(Trans) = %d, want L*L = %d", len(lat.Trans), L*L))
	}
	if lat.TransAt != nil && len(lat.TransAt) != T*L*L {
		panic(fmt.Sprintf("inference: len(TransAt) = %d, want T*L*L = %d", len(lat.TransAt), T*L*L))
	}
	if lat.Start != nil && len(lat.Start) != L {
		panic(fmt.Sprintf("inference: len(Start) = %d, want L = %d", len(lat.Start), L))
	}
	if lat.End != nil && len(lat.End) != L {
		panic(fmt.Sprintf("inference: len(End) = %d, want L = %d", len(lat.End), L))
	}
}

// Score returns score(y) for the label sequence path[:T]. It panics if
// len(path) < T or a label is outside [0, L).
//
// The terms are added in the same order as in Viterbi, so on a lattice whose
// scores are small integers both give bit-identical values.
func Score(lat *Lattice, path []int) float64 {
	lat.check()
	T, L := lat.T, lat.L
	if len(path) < T {
		panic(fmt.Sprintf("inference: len(path) = %d < T = %d", len(path), T))
	}
	if T == 0 {
		return 0
	}
	y := checkLabel(path[0], L)
	s := lat.Unary[y]
	if lat.Start != nil {
		s += lat.Start[y]
	}
	LL := L * L
	for t := 1; t < T; t++ {
		p := y
		y = checkLabel(path[t], L)
		k := p*L + y
		var a float64
		switch {
		case lat.TransAt != nil && lat.Trans != nil:
			a = lat.Trans[k] + lat.TransAt[t*LL+k]
		case lat.TransAt != nil:
			a = lat.TransAt[t*LL+k]
		case lat.Trans != nil:
			a = lat.Trans[k]
		}
		s += a
		s += lat.Unary[t*L+y]
	}
	if lat.End != nil {
		s += lat.End[y]
	}
	return s
}

func checkLabel(y, L int) int {
	if y < 0 || y >= L {
		panic(fmt.Sprintf("inference: label %d out of range [0, %d)", y, L))
	}
	return y
}

var (
	negInf = math.Inf(-1)
	posInf = math.Inf(1)
)
