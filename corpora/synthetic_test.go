package corpora

import (
	"math"
	"slices"
	"testing"

	"github.com/sparsetag/sparsetag/internal/numtest"
)

func TestSyntheticDims(t *testing.T) {
	for _, c := range []struct {
		spec           SynSpec
		n, d, block, C int
	}{
		// Paper: x1 has 0.02 d entries split into C = 10 blocks.
		{Syn1, 10000, 1000, 2, 10},
		{Syn2, 10000, 10000, 20, 10},
		{Syn3, 1000, 10000, 20, 10},
		{SynSpec{N: 10000, D: 1000, C: 10, Scale: 0.1}, 1000, 100, 1, 10}, // 0.2 rounds up to 1
		{SynSpec{N: 1000, D: 10000, C: 10, Scale: 0.1}, 100, 1000, 2, 10},
		{SynSpec{N: 7, D: 3, C: 4}, 8, 4, 1, 4},
	} {
		n, d, block := c.spec.Dims()
		if n != c.n || d != c.d || block != c.block {
			t.Errorf("%+v: Dims = %d %d %d, want %d %d %d", c.spec, n, d, block, c.n, c.d, c.block)
		}
	}
}

func TestSyntheticDeterministic(t *testing.T) {
	a := GenerateSynthetic(SynTiny, 1)
	b := GenerateSynthetic(SynTiny, 1)
	c := GenerateSynthetic(SynTiny, 2)
	if !slices.Equal(a.RowPtr, b.RowPtr) || !slices.Equal(a.Col, b.Col) || !slices.Equal(a.Labels, b.Labels) {
		t.Fatal("same seed, different structure")
	}
	for i := range a.Val {
		if math.Float64bits(a.Val[i]) != math.Float64bits(b.Val[i]) {
			t.Fatalf("same seed, value %d differs", i)
		}
	}
	if slices.Equal(a.Val, c.Val) {
		t.Error("different seeds, same values")
	}
}

// TestSyntheticStatistics checks the documented distribution. Each tolerance
// is 5 standard errors of the statistic: for a mean of m draws of variance
// s2, sqrt(s2/m); for a sample variance of m Gaussian draws, sqrt(2 s2^2/(m-1));
// for a proportion, sqrt(p(1-p)/m). With a fixed seed the test is
// deterministic; a correct generator fails one check with probability ~6e-7.
// The checks are absolute (rel 0) and fail on NaN.
func TestSyntheticStatistics(t *testing.T) {
	spec := SynSpec{Name: "stat", N: 2000, D: 1000, C: 10} // block 2, x1 = 20 columns
	s := GenerateSynthetic(spec, 42)
	n, d, C, block := s.N, s.D, s.C, s.BlockSize
	d1 := C * block
	d2 := d - d1
	if n != 2000 || d != 1000 || block != 2 || len(s.RowPtr) != n+1 || len(s.Labels) != n {
		t.Fatalf("shape: n %d d %d block %d rowptr %d labels %d", n, d, block, len(s.RowPtr), len(s.Labels))
	}
	if len(s.Col) != len(s.Val) || int(s.RowPtr[n]) != len(s.Col) {
		t.Fatalf("CSR lengths: %d cols %d vals rowptr[n] %d", len(s.Col), len(s.Val), s.RowPtr[n])
	}
	// Class balance is exact.
	counts := make([]int, C)
	for _, y := range s.Labels {
		counts[y]++
	}
	for k, c := range counts {
		if c != n/C {
			t.Errorf("class %d has %d samples, want %d", k, c, n/C)
		}
	}
	type acc struct{ m, sum, sum2 float64 }
	add := func(a *acc, v float64) { a.m++; a.sum += v; a.sum2 += v * v }
	mv := func(a acc) (float64, float64) {
		mean := a.sum / a.m
		return mean, (a.sum2 - a.m*mean*mean) / (a.m - 1)
	}
	var own, other, x2 acc
	var edge acc // density of the first and last 10 columns of x2
	rowNNZ := make([]float64, n)
	for i := range n {
		cols, vals := s.Row(i)
		k := int(s.Labels[i])
		if len(cols) < d1 {
			t.Fatalf("row %d: %d non-zeros, x1 alone has %d", i, len(cols), d1)
		}
		present := make(map[int32]bool, len(cols))
		for j, c := range cols {
			if c < 0 || int(c) >= d || (j > 0 && c <= cols[j-1]) {
				t.Fatalf("row %d: column %d out of order or range", i, c)
			}
			if vals[j] == 0 || math.IsNaN(vals[j]) {
				t.Fatalf("row %d: stored value %v", i, vals[j])
			}
			present[c] = true
			switch {
			case int(c) < d1 && int(c)/block == k:
				add(&own, vals[j])
			case int(c) < d1:
				add(&other, vals[j])
			default:
				add(&x2, vals[j])
				rowNNZ[i]++
			}
		}
		for c := d1; c < d1+10; c++ {
			e := 0.0
			if present[int32(c)] {
				e = 1
			}
			add(&edge, e)
		}
		for c := d - 10; c < d; c++ {
			e := 0.0
			if present[int32(c)] {
				e = 1
			}
			add(&edge, e)
		}
	}
	if own.m != float64(n*block) || other.m != float64(n*(d1-block)) {
		t.Fatalf("x1 not dense: %v own, %v other", own.m, other.m)
	}
	se := func(s2, m float64) float64 { return 5 * math.Sqrt(s2/m) }
	seVar := func(s2, m float64) float64 { return 5 * math.Sqrt(2*s2*s2/(m-1)) }
	mean, v := mv(own)
	numtest.Close(t, SynMean, mean, se(SynVar, own.m), 0, "own-block mean")
	numtest.Close(t, SynVar, v, seVar(SynVar, own.m), 0, "own-block variance")
	mean, v = mv(other)
	numtest.Close(t, 0, mean, se(1, other.m), 0, "other-block mean")
	numtest.Close(t, 1, v, seVar(1, other.m), 0, "other-block variance")
	mean, v = mv(x2)
	numtest.Close(t, 0, mean, se(1, x2.m), 0, "x2 non-zero mean")
	numtest.Close(t, 1, v, seVar(1, x2.m), 0, "x2 non-zero variance")
	p := SynDensity
	m := float64(n * d2)
	numtest.Close(t, p, x2.m/m, 5*math.Sqrt(p*(1-p)/m), 0, "x2 density")
	numtest.Close(t, p, edge.sum/edge.m, 5*math.Sqrt(p*(1-p)/edge.m), 0, "x2 density at its edges")
	// Bernoulli trials: the non-zeros per row are Binomial(d2, p), variance
	// d2 p (1-p); the sample variance of n near-Gaussian counts has standard
	// error about sqrt(2/(n-1)) times that.
	var rows acc
	for _, c := range rowNNZ {
		add(&rows, c)
	}
	_, v = mv(rows)
	bv := float64(d2) * p * (1 - p)
	numtest.Close(t, bv, v, seVar(bv, float64(n)), 0, "variance of x2 non-zeros per row")
}

func TestSyntheticTiny(t *testing.T) {
	s := GenerateSynthetic(SynTiny, 7)
	if s.N != 40 || s.D != 100 || s.C != 4 || s.Name != "tiny" || s.Seed != 7 {
		t.Errorf("tiny: %+v", s)
	}
	for i := range s.N {
		if int(s.Labels[i]) != i%s.C {
			t.Fatalf("label %d = %d, want %d (interleaved classes)", i, s.Labels[i], i%s.C)
		}
	}
}

func BenchmarkGenerateSyn2(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		s := GenerateSynthetic(Syn2, 1)
		b.ReportMetric(float64(len(s.Val)), "nnz")
	}
}

func BenchmarkGenerateSyn1(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		GenerateSynthetic(Syn1, 1)
	}
}
