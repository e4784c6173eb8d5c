package chain

import (
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/sparsetag/sparsetag/sparse"
)

// sequenceOf returns a corpus of one random sequence of T positions over
// numAttr attributes and L labels.
func sequenceOf(rng *rand.Rand, T, numAttr, L int) *sparse.Corpus {
	c := &sparse.Corpus{NumUnary: numAttr}
	unary, labels := make([][]int32, T), make([]int32, T)
	for t := range unary {
		for a := 0; a < numAttr; a++ {
			if rng.Float64() < 0.5 {
				unary[t] = append(unary[t], int32(a))
			}
		}
		labels[t] = int32(rng.IntN(L))
	}
	c.AppendSequence(unary, nil, nil, nil, labels)
	return c
}

// coldDecodeBytes returns the bytes one Decode of sequence 0 of in
// allocates with empty pools: a new Tagger and Decoding, and two
// collections, which empty decodePool (a sync.Pool keeps its entries
// through one collection, in its victim cache).
func coldDecodeBytes(t *testing.T, m *Model, in Input, opt DecodeOptions) int64 {
	t.Helper()
	tg := NewTagger(m)
	var d Decoding
	runtime.GC()
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	err := tg.Decode(&d, in, opt)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Paths) != opt.N && opt.N > 1 {
		t.Fatalf("%d paths, want %d", len(d.Paths), opt.N)
	}
	return int64(after.TotalAlloc - before.TotalAlloc)
}

// TestNBestMemory: NBestMemory against what a cold n-best Decode allocates
// beyond a cold one-best Decode with the posterior (which n-best implies),
// on sequences of 7 and 19 positions over 5 labels with n = 500 and 3000
// (the workspace alone is 0.3-4.6 MB, so the allocator's size classes,
// pages and append's growth of the small arrays stay within a few
// percent); and MaxBytes refuses exactly the sequences over the estimate.
func TestNBestMemory(t *testing.T) {
	if decodeRace {
		t.Skip("the race detector's allocations and sync.Pool drops distort the count")
	}
	rng := rand.New(rand.NewPCG(5, 6))
	const L = 5
	m := randomModel(rng, L, 4, 0, true)
	for _, c := range []struct{ T, n int }{{7, 500}, {19, 3000}} {
		in := Encoded{Corpus: sequenceOf(rng, c.T, 4, L), Seq: 0}
		one := coldDecodeBytes(t, m, in, DecodeOptions{Posterior: true})
		nbest := coldDecodeBytes(t, m, in, DecodeOptions{N: c.n})
		scratch, result := NBestMemory(c.T, L, c.n)
		est, got := scratch+result, nbest-one
		if r := float64(got) / float64(est); r < 0.9 || r > 1.1 {
			t.Errorf("T=%d n=%d: n-best decoding allocated %d bytes more than one-best, NBestMemory says %d (ratio %.3f)", c.T, c.n, got, est, r)
		}
		tg := NewTagger(m)
		var d Decoding
		err := tg.Decode(&d, in, DecodeOptions{N: c.n, MaxBytes: est - 1})
		var me *MemoryError
		if !errors.As(err, &me) || me.Need != est || me.Limit != est-1 || me.T != c.T || me.L != L || me.N != c.n {
			t.Errorf("T=%d n=%d, MaxBytes one below the estimate: err = %v, want a MemoryError", c.T, c.n, err)
		}
		if err := tg.Decode(&d, in, DecodeOptions{N: c.n, MaxBytes: est}); err != nil {
			t.Errorf("T=%d n=%d, MaxBytes at the estimate: %v", c.T, c.n, err)
		}
	}
	if s, r := NBestMemory(1000, 100, math.MaxInt); s != math.MaxInt64 || r != math.MaxInt64 {
		t.Errorf("NBestMemory does not saturate: %d, %d", s, r)
	}
}
