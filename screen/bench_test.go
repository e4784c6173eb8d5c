package screen

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/sparsetag/sparsetag/sparse"
)

// benchVectors returns a realistic screening state of dimension d: 2% of the
// weights non-zero, |m_j| mostly below beta = 0.01.
func benchVectors(d int) (w, m, rnorm []float64) {
	rng := rand.New(rand.NewPCG(1, 1))
	w = make([]float64, d)
	m = make([]float64, d)
	rnorm = make([]float64, d)
	for j := range w {
		m[j] = 0.01 * rng.NormFloat64()
		rnorm[j] = 10 * rng.Float64()
		if rng.Float64() < 0.02 {
			w[j] = rng.NormFloat64()
		}
	}
	return w, m, rnorm
}

// benchDim is the size of a CoNLL-2000-like feature vector with the CRF++
// chunking template (about 7.4 million features).
const benchDim = 7_400_000

func BenchmarkGap(b *testing.B) {
	w, m, _ := benchVectors(benchDim)
	b.SetBytes(int64(16 * benchDim))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		Gap(w, m, 1, 0.01)
	}
}

func BenchmarkPinsker(b *testing.B) {
	w, m, rnorm := benchVectors(benchDim)
	g := Gap(w, m, 1, 0.01)
	screened := make([]bool, benchDim)
	b.SetBytes(int64(17 * benchDim))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		clear(screened)
		Pinsker(screened, m, rnorm, g, 8936, 0.01, DefaultTau)
	}
}

// TestNoAllocs checks that the per-iteration checks do not allocate.
func TestNoAllocs(t *testing.T) {
	w, m, rnorm := benchVectors(5000)
	screened := make([]bool, len(w))
	bounds := make([]float64, len(w))
	if a := testing.AllocsPerRun(20, func() {
		g := Gap(w, m, 1, 0.01)
		Pinsker(screened, m, rnorm, g, 100, 0.01, DefaultTau)
		PinskerBounds(bounds, m, rnorm, g, 100)
		ScreenBounds(screened, bounds, 0.01, DefaultTau)
	}); a != 0 {
		t.Fatalf("%v allocations per check, want 0", a)
	}
}

// benchCorpus is a binary corpus shaped like CoNLL-2000 under the CRF++
// chunking template: 8,936 sequences of 12 to 36 positions (211 k), 19
// attributes per position drawn from 338 k with a heavy head (Zipf), 22
// labels; rows sorted, without repeats, as the encoder writes them.
func benchCorpus() (*sparse.Corpus, sparse.Layout) {
	const U, L = 338_551, 22
	rng := rand.New(rand.NewPCG(2, 2))
	z := rand.NewZipf(rng, 1.1, 8, U-1)
	c := &sparse.Corpus{NumUnary: U}
	for range 8936 {
		T := 12 + rng.IntN(25)
		unary := make([][]int32, T)
		labels := make([]int32, T)
		for t := range T {
			for len(unary[t]) < 19 {
				a := int32(z.Uint64())
				if !slices.Contains(unary[t], a) {
					unary[t] = append(unary[t], a)
				}
			}
			slices.Sort(unary[t])
			labels[t] = int32(rng.IntN(L))
		}
		c.AppendSequence(unary, nil, nil, nil, labels)
	}
	return c, sparse.Layout{NumUnary: U, L: L, Transitions: true}
}

// BenchmarkConstants computes the screening constants of benchCorpus: the
// Pinsker constants (WeightedRnormParts) and the static range rule's
// bounds (WeightedRangeBounds), each serially.
func BenchmarkConstants(b *testing.B) {
	c, lay := benchCorpus()
	b.Run("rnorm", func(b *testing.B) {
		for b.Loop() {
			if _, _, err := WeightedRnormParts(lay, c, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("range", func(b *testing.B) {
		var dst []float64
		for b.Loop() {
			var err error
			if dst, err = WeightedRangeBounds(dst, lay, c, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
}
