package spanadd

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats"
)

// randomValue draws ordinary numbers, with some zeros of both signs,
// infinities, NaNs and values of very different magnitudes, so that the
// order of the additions shows in the bits.
func randomValue(rng *rand.Rand) float64 {
	switch rng.IntN(40) {
	case 0:
		return math.Copysign(0, -1)
	case 1:
		return math.Inf(1 - 2*rng.IntN(2))
	case 2:
		return math.NaN()
	case 3:
		return rng.NormFloat64() * 1e300
	}
	return rng.NormFloat64() * math.Pow(10, float64(rng.IntN(30)-15))
}

func randomSlice(rng *rand.Rand, n int) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = randomValue(rng)
	}
	return s
}

// randomSpans returns ns spans of length n within [0, size): disjoint
// blocks of n, some taken more than once.
func randomSpans(rng *rand.Rand, n, size, ns int) []int32 {
	blocks := size / n
	spans := make([]int32, 0, 2*ns)
	for range ns {
		lo := int32(rng.IntN(blocks) * n)
		spans = append(spans, lo, lo+int32(n))
	}
	return spans
}

// sameBits reports whether a and b hold the same bits, any NaN matching
// any NaN (which operand's payload an addition keeps differs between
// instructions).
func sameBits(a, b []float64) bool {
	for i := range a {
		if math.IsNaN(a[i]) && math.IsNaN(b[i]) {
			continue
		}
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return len(a) == len(b)
}

// eachMode runs f with the Go loops (asm false), then with the kernels
// where they run (asm true); f calls gather and scatter with asm.
func eachMode(f func(asm bool)) {
	for _, asm := range []bool{false, true} {
		if asm && !haveAsm {
			continue
		}
		f(asm)
	}
}

// TestAgainstFloatsAdd checks both functions, with and without the
// kernels, against gonum's floats.Add called once per span, bit for bit,
// over row lengths 1-40 that take every block path of the kernels.
func TestAgainstFloatsAdd(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 3000 {
		n := 1 + trial%40
		size := n * (1 + rng.IntN(20))
		ns := 1 + rng.IntN(12)
		spans := randomSpans(rng, n, size, ns)
		row, src := randomSlice(rng, n), randomSlice(rng, size)

		wantG := append([]float64(nil), row...)
		for k := 0; k < len(spans); k += 2 {
			floats.Add(wantG, src[spans[k]:spans[k+1]])
		}
		wantS := append([]float64(nil), src...)
		for k := 0; k < len(spans); k += 2 {
			floats.Add(wantS[spans[k]:spans[k+1]], row)
		}
		eachMode(func(asm bool) {
			got := append([]float64(nil), row...)
			gather(got, src, spans, asm)
			if !sameBits(got, wantG) {
				t.Fatalf("Gather (asm %v) n=%d spans=%v:\n got %v\nwant %v", asm, n, spans, got, wantG)
			}
			got = append([]float64(nil), src...)
			scatter(got, row, spans, asm)
			if !sameBits(got, wantS) {
				t.Fatalf("Scatter (asm %v) n=%d spans=%v:\n got %v\nwant %v", asm, n, spans, got, wantS)
			}
		})
	}
}

// TestLeavesTheRestAlone checks that the kernels write nothing outside
// the row (Gather) or the spans (Scatter), with guards on both sides.
func TestLeavesTheRestAlone(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for n := 1; n <= 40; n++ {
		buf := make([]float64, n+8)
		for i := range buf {
			buf[i] = float64(i + 1000)
		}
		src := randomSlice(rng, 4*n)
		Gather(buf[4:4+n], src, []int32{0, int32(n), int32(3 * n), int32(4 * n)})
		for _, i := range []int{0, 1, 2, 3, n + 4, n + 5, n + 6, n + 7} {
			if buf[i] != float64(i+1000) {
				t.Fatalf("Gather n=%d wrote buf[%d]", n, i)
			}
		}
		dst := make([]float64, 3*n)
		Scatter(dst, randomSlice(rng, n), []int32{int32(n), int32(2 * n)})
		for i := range dst {
			if (i < n || i >= 2*n) && dst[i] != 0 {
				t.Fatalf("Scatter n=%d wrote dst[%d]", n, i)
			}
		}
	}
}

func TestEmpty(t *testing.T) {
	Gather(nil, nil, nil)
	Scatter(nil, nil, nil)
	Gather(nil, []float64{1}, []int32{0, 0})
	dst := []float64{1, 2}
	Gather(dst, []float64{5}, nil)
	if dst[0] != 1 || dst[1] != 2 {
		t.Fatal("Gather with no spans changed dst")
	}
}

// TestBadSpansPanic: a span whose offset does not leave room for the row,
// first or after good ones, at every row length's block path, panics on
// the kernels and on the Go loops; so do an odd list and rows longer than
// the slice.
func TestBadSpansPanic(t *testing.T) {
	eachMode(func(asm bool) {
		cases := map[string]func(){
			"odd list":        func() { gather(make([]float64, 2), make([]float64, 4), []int32{0}, asm) },
			"row too long":    func() { gather(make([]float64, 5), make([]float64, 4), []int32{0, 5}, asm) },
			"scatter too far": func() { scatter(make([]float64, 4), make([]float64, 2), []int32{0, 2, 3, 5}, asm) },
		}
		for _, n := range []int{1, 2, 3, 4, 16, 22} {
			size := 3 * n
			for _, lo := range []int32{int32(2*n + 1), -1, math.MinInt32, math.MaxInt32} {
				spans := []int32{0, int32(n), lo, lo + int32(n), int32(n), int32(2 * n)}
				cases[fmt.Sprintf("gather n=%d lo=%d", n, lo)] = func() { gather(make([]float64, n), make([]float64, size), spans, asm) }
				cases[fmt.Sprintf("scatter n=%d lo=%d", n, lo)] = func() { scatter(make([]float64, size), make([]float64, n), spans, asm) }
				cases[fmt.Sprintf("gather n=%d lo=%d first", n, lo)] = func() { gather(make([]float64, n), make([]float64, size), spans[2:], asm) }
			}
		}
		for name, f := range cases {
			t.Run(fmt.Sprintf("asm %v %s", asm, name), func(t *testing.T) {
				defer func() {
					if recover() == nil {
						t.Fatal("no panic")
					}
				}()
				f()
			})
		}
	})
}

// TestHiNotRead: both functions, on the kernels and on the Go loops, read
// each span's offset and the row length; hi_k is the caller's bookkeeping.
func TestHiNotRead(t *testing.T) {
	eachMode(func(asm bool) {
		src := []float64{1, 2, 3, 4, 5, 6}
		a, b := make([]float64, 2), make([]float64, 2)
		gather(a, src, []int32{2, 4, 4, 6}, asm)
		gather(b, src, []int32{2, -7, 4, 99}, asm)
		if !sameBits(a, b) || a[0] != 8 || a[1] != 10 {
			t.Fatalf("asm %v: Gather gave %v and %v, want [8 10]", asm, a, b)
		}
		c, d := make([]float64, 6), make([]float64, 6)
		scatter(c, []float64{1, 2}, []int32{0, 2, 4, 6}, asm)
		scatter(d, []float64{1, 2}, []int32{0, 0, 4, math.MinInt32}, asm)
		if !sameBits(c, d) || c[0] != 1 || c[1] != 2 || c[4] != 1 || c[5] != 2 || c[2] != 0 {
			t.Fatalf("asm %v: Scatter gave %v and %v", asm, c, d)
		}
	})
}

// The benchmarks take the training objective's shape on CoNLL-2000: 22
// labels, runs of 6 full-label attributes, 2,000 rows of 22 (44,000
// references, 352 KB).
const benchL, benchRun, benchRefs = 22, 6, 2000

func benchData() (row, src []float64, runs [][]int32) {
	rng := rand.New(rand.NewPCG(5, 6))
	row, src = make([]float64, benchL), randomSliceFinite(rng, benchRefs*benchL)
	runs = make([][]int32, 1024)
	for i := range runs {
		runs[i] = randomSpans(rng, benchL, len(src), benchRun)
	}
	return row, src, runs
}

func randomSliceFinite(rng *rand.Rand, n int) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = rng.Float64()
	}
	return s
}

func BenchmarkGather(b *testing.B) {
	row, src, runs := benchData()
	b.ResetTimer()
	for i := range b.N {
		Gather(row, src, runs[i%len(runs)])
	}
}

func BenchmarkGatherFloatsAdd(b *testing.B) {
	row, src, runs := benchData()
	b.ResetTimer()
	for i := range b.N {
		spans := runs[i%len(runs)]
		for k := 0; k < len(spans); k += 2 {
			floats.Add(row, src[spans[k]:spans[k+1]])
		}
	}
}

func BenchmarkScatter(b *testing.B) {
	row, dst, runs := benchData()
	b.ResetTimer()
	for i := range b.N {
		Scatter(dst, row, runs[i%len(runs)])
	}
}

func BenchmarkScatterFloatsAdd(b *testing.B) {
	row, dst, runs := benchData()
	b.ResetTimer()
	for i := range b.N {
		spans := runs[i%len(runs)]
		for k := 0; k < len(spans); k += 2 {
			floats.Add(dst[spans[k]:spans[k+1]], row)
		}
	}
}
