package chain

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"github.com/sparsetag/sparsetag/sparse"
)

// approxEqual checks lengths and finiteness first (testify's InDeltaSlice
// does neither) and names the first bad index.
func approxEqual(t testing.TB, name string, want, got []float64, abs, rel float64) {
	t.Helper()
	if len(want) != len(got) {
		t.Fatalf("%s: length %d, want %d", name, len(got), len(want))
	}
	for i := range want {
		if math.IsNaN(got[i]) || math.IsInf(got[i], 0) {
			t.Fatalf("%s[%d] = %v, not finite", name, i, got[i])
		}
		if !scalar.EqualWithinAbsOrRel(want[i], got[i], abs, rel) {
			t.Fatalf("%s[%d] = %.17g, want %.17g (abs %g rel %g)", name, i, got[i], want[i], abs, rel)
		}
	}
}

func approxScalar(t testing.TB, name string, want, got, abs, rel float64) {
	t.Helper()
	approxEqual(t, name, []float64{want}, []float64{got}, abs, rel)
}

// randomCorpus builds n random sequences of length 1..maxT over numAttr
// attributes (binary, or real-valued when real is true), with pair
// attributes when numPair > 0, and labels in [0, L).
func randomCorpus(rng *rand.Rand, n, maxT, numAttr, numPair, L int, real bool) *sparse.Corpus {
	c := &sparse.Corpus{NumUnary: numAttr, NumPair: numPair}
	for i := 0; i < n; i++ {
		T := 1 + rng.IntN(maxT)
		unary := make([][]int32, T)
		var uval [][]float64
		if real {
			uval = make([][]float64, T)
		}
		var pair [][]int32
		if numPair > 0 {
			pair = make([][]int32, T)
		}
		labels := make([]int32, T)
		for t := 0; t < T; t++ {
			for a := 0; a < numAttr; a++ {
				if rng.Float64() < 0.4 {
					unary[t] = append(unary[t], int32(a))
					if real {
						uval[t] = append(uval[t], rng.NormFloat64())
					}
				}
			}
			for a := 0; a < numPair; a++ {
				if rng.Float64() < 0.5 {
					pair[t] = append(pair[t], int32(a))
				}
			}
			labels[t] = int32(rng.IntN(L))
		}
		c.AppendSequence(unary, uval, pair, nil, labels)
	}
	return c
}

func labelNames(L int) []string {
	out := make([]string, L)
	for i := range out {
		out[i] = fmt.Sprintf("y%d", i)
	}
	return out
}

// nextPath advances y to the next label sequence in lexicographic order
// (last position fastest) and reports false after the last one.
func nextPath(y []int, L int) bool {
	for k := len(y) - 1; k >= 0; k-- {
		y[k]++
		if y[k] < L {
			return true
		}
		y[k] = 0
	}
	return false
}

// randomTagger returns a Tagger over a model with random weights for c and
// the serial Viterbi paths of every sequence of c.
func randomTagger(rng *rand.Rand, c *sparse.Corpus, L int) (*Tagger, [][]int) {
	m, _ := NewModel(labelNames(L), c.NumUnary, c.NumPair, true, nil)
	for j := range m.W {
		m.W[j] = rng.NormFloat64()
	}
	tg := NewTagger(m)
	serial := make([][]int, c.Len())
	for i := range serial {
		serial[i], _ = tg.Tag(nil, Encoded{Corpus: c, Seq: i})
	}
	return tg, serial
}
