package corpora

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Constants of the paper's synthetic data sets (section "Experiments on
// Synthetic Datasets" of "Safe Screening for Sparse Conditional Random
// Fields", Zhang and Qiu, arXiv:2111.13958).
const (
	// SynX1Frac is the fraction of the d features in the informative part x1.
	SynX1Frac = 0.02
	// SynMean is the mean of the informative block of a sample's own class.
	SynMean = 1.5
	// SynVar is the variance (not the standard deviation) of that block:
	// the paper writes N(u, 0.75 I), a covariance matrix, so each entry has
	// standard deviation sqrt(0.75).
	SynVar = 0.75
	// SynDensity is eta, the probability that an entry of x2 is non-zero.
	SynDensity = 0.2
)

// SynSpec describes a synthetic data set: N samples in D dimensions, C
// classes. Scale, if not 0, multiplies N and D (for quick runs).
type SynSpec struct {
	Name    string
	N, D, C int
	Scale   float64
}

// Presets: the paper's three data sets and a tiny one for tests.
var (
	Syn1    = SynSpec{Name: "syn1", N: 10000, D: 1000, C: 10}
	Syn2    = SynSpec{Name: "syn2", N: 10000, D: 10000, C: 10}
	Syn3    = SynSpec{Name: "syn3", N: 1000, D: 10000, C: 10}
	SynTiny = SynSpec{Name: "tiny", N: 40, D: 100, C: 4}
)

// Synthetic is a generated data set in CSR form: row i (one sample, a
// sequence of length T = 1) has the non-zeros Col[RowPtr[i]:RowPtr[i+1]]
// (strictly increasing) with values Val[...], and the label Labels[i] in
// 0..C-1. Only non-zeros are stored.
type Synthetic struct {
	Name    string
	N, D, C int
	// BlockSize is the number of x1 columns per class: class k's informative
	// block is columns [k*BlockSize, (k+1)*BlockSize). x1 has C*BlockSize
	// columns, x2 the remaining D - C*BlockSize.
	BlockSize int
	Seed      uint64
	RowPtr    []int32 // N+1 entries
	Col       []int32 // nnz
	Val       []float64
	Labels    []int32 // N entries
}

// Row returns the column indices and values of sample i (sub-slices of s).
func (s *Synthetic) Row(i int) ([]int32, []float64) {
	a, b := s.RowPtr[i], s.RowPtr[i+1]
	return s.Col[a:b:b], s.Val[a:b:b]
}

// Dims returns the number of samples, features and classes after Scale, and
// the block size, exactly as GenerateSynthetic will use them: n is rounded to
// a positive multiple of C; BlockSize = max(1, round(SynX1Frac*d/C)) (2 for
// syn1, 20 for syn2 and syn3), so that each class owns a whole block; d is
// raised to C*BlockSize if smaller.
func (spec SynSpec) Dims() (n, d, block int) {
	if spec.C <= 0 || spec.N <= 0 || spec.D <= 0 {
		panic(fmt.Sprintf("corpora: SynSpec %q needs positive N, D and C, got %d, %d, %d", spec.Name, spec.N, spec.D, spec.C))
	}
	scale := spec.Scale
	if scale == 0 {
		scale = 1
	}
	if !(scale > 0) || math.IsInf(scale, 0) {
		panic(fmt.Sprintf("corpora: SynSpec %q: bad Scale %v", spec.Name, spec.Scale))
	}
	perClass := max(1, int(math.Round(float64(spec.N)*scale/float64(spec.C))))
	n = perClass * spec.C
	d = max(1, int(math.Round(float64(spec.D)*scale)))
	block = max(1, int(math.Round(SynX1Frac*float64(d)/float64(spec.C))))
	d = max(d, spec.C*block)
	return n, d, block
}

// GenerateSynthetic generates the data set of spec as described in the
// paper: C classes with n/C samples each; sample i has class i mod C (the
// classes are interleaved, so any prefix of C*m rows is balanced). A sample
// x = [x1; x2] of class k has x1 made of C blocks of BlockSize entries, block
// k drawn from N(SynMean, SynVar) (variance 0.75) and the other blocks from
// N(0, 1); every entry of x2 is N(0, 1) with probability SynDensity and 0
// otherwise. The zero pattern of x2 is drawn as geometric gaps between
// non-zeros, which has exactly the distribution of independent Bernoulli
// trials but needs ~5x fewer random numbers.
//
// The output depends only on spec and seed (math/rand/v2 PCG seeded with
// (seed, 0x5eed)): the same call gives bit-identical slices on every
// platform. Syn2 at full size holds about 21.6 M non-zeros (about 260 MB).
// It panics on a spec with a non-positive N, D, C or Scale (a programmer
// error).
func GenerateSynthetic(spec SynSpec, seed uint64) *Synthetic {
	n, d, block := spec.Dims()
	C := spec.C
	d1 := C * block
	d2 := d - d1
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	// Expected non-zeros plus 6 standard deviations: one allocation.
	m := float64(n) * float64(d2) * SynDensity
	capNNZ := n*d1 + int(m+6*math.Sqrt(m*(1-SynDensity))) + 1
	if int64(capNNZ) > math.MaxInt32 {
		panic(fmt.Sprintf("corpora: synthetic set %q too large for int32 indices", spec.Name))
	}
	s := &Synthetic{
		Name: spec.Name, N: n, D: d, C: C, BlockSize: block, Seed: seed,
		RowPtr: make([]int32, 1, n+1),
		Col:    make([]int32, 0, capNNZ),
		Val:    make([]float64, 0, capNNZ),
		Labels: make([]int32, n),
	}
	sd := math.Sqrt(SynVar)
	logq := math.Log1p(-SynDensity)
	for i := range n {
		k := i % C
		s.Labels[i] = int32(k)
		for j := range d1 {
			v := rng.NormFloat64()
			if j/block == k {
				v = SynMean + sd*v
			}
			if v != 0 {
				s.Col = append(s.Col, int32(j))
				s.Val = append(s.Val, v)
			}
		}
		// Geometric gaps: P(gap = g) = (1-p)^g p for g = 0, 1, ...
		for j := 0; ; j++ {
			u := 1 - rng.Float64() // in (0, 1]
			gap := math.Floor(math.Log(u) / logq)
			if gap >= float64(d2-j) {
				break
			}
			j += int(gap)
			if v := rng.NormFloat64(); v != 0 {
				s.Col = append(s.Col, int32(d1+j))
				s.Val = append(s.Val, v)
			}
		}
		s.RowPtr = append(s.RowPtr, int32(len(s.Col)))
	}
	return s
}
