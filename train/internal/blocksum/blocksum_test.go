package blocksum

import (
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"gonum.org/v1/gonum/floats"
)

// specials are values whose sums and products test the kernels' order of
// operations and signed zeros.
var specials = []float64{0, math.Copysign(0, -1), 1, -1, math.Inf(1), math.Inf(-1), math.NaN(), 1e-300, -1e300, 5e-324, 0.1, 3}

// randomArray returns n values, a fifth of them special.
func randomArray(rng *rand.Rand, n int) []float64 {
	x := make([]float64, n)
	for i := range x {
		if rng.IntN(5) == 0 {
			x[i] = specials[rng.IntN(len(specials))]
		} else {
			x[i] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(9)-4))
		}
	}
	return x
}

// sameBits reports whether a and b hold the same bits, NaN payloads aside.
func sameBits(a, b []float64) bool {
	return slices.EqualFunc(a, b, func(x, y float64) bool {
		return math.Float64bits(x) == math.Float64bits(y) || (math.IsNaN(x) && math.IsNaN(y))
	})
}

// blocks returns n offsets of blocks of size L in an array of size (some
// repeated when n > 1) and a value per block (ones when binary).
func blocks(rng *rand.Rand, n, L, size int, binary bool) ([]int32, []float64) {
	offs, vals := make([]int32, n), make([]float64, n)
	for k := range offs {
		offs[k] = int32(rng.IntN(size - L + 1))
		if k > 0 && rng.IntN(4) == 0 {
			offs[k] = offs[rng.IntN(k)]
		}
		vals[k] = 1
		if !binary {
			vals[k] = randomArray(rng, 1)[0]
		}
	}
	return offs, vals
}

// TestAgainstGo: AddBlocks and AddRow give the Go loops' bits (and, on
// finite values, gonum's floats.AddScaled block by block), for every
// length 1-41, 0-30 blocks, binary and real values, special values; they
// write nothing outside the row (AddBlocks) or the blocks (AddRow).
func TestAgainstGo(t *testing.T) {
	if !haveAsm {
		t.Log("no AVX2 kernels on this build: the Go loops are checked against themselves and for writes outside")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for L := 1; L <= 41; L++ {
		for trial := range 12 {
			n, size := rng.IntN(31), L+rng.IntN(5*L+8)
			offs, vals := blocks(rng, n, L, size, trial%2 == 0)
			v := randomArray(rng, size)
			row := randomArray(rng, L+2) // one guard value each side
			want := slices.Clone(row)
			AddBlocks(row[1:L+1], v, offs, vals)
			addBlocksGo(want[1:L+1], v, offs, vals)
			if !sameBits(row, want) {
				t.Fatalf("AddBlocks L=%d n=%d: %v, want %v", L, n, row, want)
			}
			obs := rng.IntN(L)
			g := randomArray(rng, size+2)
			marg := randomArray(rng, L)
			wantG := slices.Clone(g)
			AddRow(g[1:size+1], marg, offs, vals, obs)
			addRowGo(wantG[1:size+1], marg, offs, vals, obs)
			if !sameBits(g, wantG) {
				t.Fatalf("AddRow L=%d n=%d obs=%d: differs from the Go loop", L, n, obs)
			}
		}
	}
}

// TestAgainstGonum: on finite values the Go loops (and so the kernels)
// are gonum's floats.AddScaled (floats.Add for binary values) applied
// block by block, with the observed outcome's subtraction after each.
func TestAgainstGonum(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("gonum's pure-Go AddScaled may be fused (FMA) here; TestAgainstGo checks the loops")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for _, L := range []int{1, 3, 4, 9, 22, 23} {
		for trial := range 20 {
			size := 4 * L
			offs, vals := blocks(rng, 1+rng.IntN(20), L, size, trial%2 == 0)
			v, marg := make([]float64, size), make([]float64, L)
			for i := range v {
				v[i] = rng.NormFloat64()
			}
			for i := range marg {
				marg[i] = rng.Float64()
			}
			row, want := make([]float64, L), make([]float64, L)
			AddBlocks(row, v, offs, vals)
			for k, o := range offs {
				if vals[k] == 1 {
					floats.Add(want, v[o:int(o)+L])
				} else {
					floats.AddScaled(want, vals[k], v[o:int(o)+L])
				}
			}
			if !sameBits(row, want) {
				t.Fatalf("AddBlocks L=%d: %v, gonum %v", L, row, want)
			}
			obs := rng.IntN(L)
			g, wantG := slices.Clone(v), slices.Clone(v)
			AddRow(g, marg, offs, vals, obs)
			for k, o := range offs {
				blk := wantG[o : int(o)+L]
				floats.AddScaled(blk, vals[k], marg)
				blk[obs] -= vals[k]
			}
			if !sameBits(g, wantG) {
				t.Fatalf("AddRow L=%d: differs from gonum", L)
			}
		}
	}
}

// TestChecks: a block out of the array, a missing value or an observed
// outcome out of the row panics; no block changes nothing.
func TestChecks(t *testing.T) {
	v := []float64{1, 2, 3, 4}
	row := []float64{0, 0}
	AddBlocks(row, v, nil, nil)
	AddRow(v, row, nil, nil, 1)
	if row[0] != 0 || v[3] != 4 {
		t.Fatal("no block changed a value")
	}
	for name, f := range map[string]func(){
		"block past the end":    func() { AddBlocks(row, v, []int32{3}, []float64{1}) },
		"negative offset":       func() { AddRow(v, row, []int32{-1}, []float64{1}, 0) },
		"missing value":         func() { AddBlocks(row, v, []int32{0, 1}, []float64{1}) },
		"observed past the row": func() { AddRow(v, row, []int32{0}, []float64{1}, 2) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}

func BenchmarkAddBlocks(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 6))
	v := randomArray(rng, 22*400)
	offs, vals := blocks(rng, 19, 22, len(v), true)
	row := make([]float64, 22)
	for b.Loop() {
		AddBlocks(row, v, offs, vals)
	}
}

func BenchmarkGonumAdd(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 6))
	v := randomArray(rng, 22*400)
	offs, _ := blocks(rng, 19, 22, len(v), true)
	row := make([]float64, 22)
	for b.Loop() {
		for _, o := range offs {
			floats.Add(row, v[o:o+22])
		}
	}
}
