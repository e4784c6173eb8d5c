package screen

import (
	"math/rand/v2"
	"testing"
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
