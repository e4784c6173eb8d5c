package objective

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/sparse"
	"github.com/stretchr/testify/require"
)

// requireSameBits fails unless got and want hold the same float64 bits.
func requireSameBits(t *testing.T, what string, want, got []float64) {
	t.Helper()
	require.Len(t, got, len(want), what)
	for k := range want {
		if math.Float64bits(want[k]) != math.Float64bits(got[k]) {
			t.Fatalf("%s: element %d: %v, want %v (bits differ)", what, k, got[k], want[k])
		}
	}
}

// shuffledRows returns a copy of c whose unary rows are reversed (every
// row with more than one entry unsorted) and, when repeat, whose rows
// also repeat their first attribute at the end: the scatter must then
// filter every entry.
func shuffledRows(c *sparse.Corpus, repeat bool) *sparse.Corpus {
	out := *c
	x := &c.Unary
	nx := sparse.Matrix{RowPtr: []int32{0}}
	if x.Val != nil {
		nx.Val = []float64{}
	}
	for p := range x.Rows() {
		cols, vals := x.Row(p)
		for k := len(cols) - 1; k >= 0; k-- {
			nx.Col = append(nx.Col, cols[k])
			if vals != nil {
				nx.Val = append(nx.Val, vals[k])
			}
		}
		if repeat && len(cols) > 0 {
			nx.Col = append(nx.Col, cols[0])
			if vals != nil {
				nx.Val = append(nx.Val, 0.5)
			}
		}
		nx.RowPtr = append(nx.RowPtr, int32(len(nx.Col)))
	}
	out.Unary = nx
	return &out
}

// TestElementLoopsSameBits: m over the active set (Loss) and over every
// feature and a subset (Residuals: attribute starts, the counted
// attributes, their copies, the residuals with the observed counts' cursor,
// the scatter over row splits) are the same bits on 1 to 5 goroutines,
// with blocks of 1 to 7 elements, as on one goroutine in one block; for
// sorted, unsorted and repeating rows, binary and real values, sparse
// (scatter) and per-reference accumulation.
func TestElementLoopsSameBits(t *testing.T) {
	const L, U = 3, 40
	for _, real := range []bool{false, true} {
		rng := rand.New(rand.NewPCG(41, 42))
		base := randomCorpus(rng, 30, 6, U, 0, L, real)
		m, err := chain.NewModel(labelNames(L), U, 0, true, nil)
		require.NoError(t, err)
		var act []int32 // attributes 0-9 every label, 10-29 one, 30-39 none
		for j := range int32(len(m.W)) {
			a, y := int(j)/L, int(j)%L
			if int(j) >= m.Layout.TransOffset() || a < 10 || (a < 30 && y == a%L) {
				act = append(act, j)
			}
		}
		all := everyFeature(len(m.W))
		var sub []int32
		for _, j := range all {
			if j%5 != 1 {
				sub = append(sub, j)
			}
		}
		x, _ := randomPoint(rng, act, len(m.W))
		for _, corpus := range []struct {
			name string
			c    *sparse.Corpus
		}{{"sorted", base}, {"unsorted", shuffledRows(base, false)}, {"repeating", shuffledRows(base, true)}} {
			for _, ws := range []bool{false, true} {
				run := func(threads, block int) (mv, mAll, mSub []float64) {
					o := New(m, corpus.c, Settings{Threads: threads, FusedBudget: -1})
					o.elems.block = block
					o.SetActive(slices.Clone(act), ws)
					require.Equal(t, ws, o.refFused)
					_, mv, err := o.Loss(context.Background(), x)
					require.NoError(t, err)
					mv = slices.Clone(mv)
					mAll = o.Residuals(nil, all)
					require.NotNil(t, o.counted, "some attributes counted")
					mSub = o.Residuals(nil, sub)
					return mv, mAll, mSub
				}
				wantM, wantAll, wantSub := run(1, defaultElemBlock)
				for threads := 1; threads <= 5; threads++ {
					for _, block := range []int{1, 3, 7} {
						gotM, gotAll, gotSub := run(threads, block)
						name := corpus.name
						requireSameBits(t, name+": m over the active set", wantM, gotM)
						requireSameBits(t, name+": m over every feature", wantAll, gotAll)
						requireSameBits(t, name+": m over a subset", wantSub, gotSub)
					}
				}
			}
		}
	}
}

// TestRowSplit: each range's bounds in each row hold exactly the row's
// entries of that range's attributes; a row out of order gives no split.
func TestRowSplit(t *testing.T) {
	rng := rand.New(rand.NewPCG(43, 44))
	c := randomCorpus(rng, 20, 5, 30, 0, 2, false)
	c.AppendSequence([][]int32{nil, {3, 3, 7}}, nil, nil, nil, []int32{0, 1}) // an empty row, a repeat
	x := &c.Unary
	cum := attributeCounts(x, 30)
	for threads := 1; threads <= 6; threads++ {
		parts := attrParts(cum, threads)
		s := newRowSplit(nil, x, parts)
		require.Equal(t, len(parts) > 2, s != nil, "%d ranges", len(parts)-1)
		for p := range x.Rows() {
			for k := range len(parts) - 1 {
				from, to := s.bounds(x, k, p)
				var want, got []int32
				for q := x.RowPtr[p]; q < x.RowPtr[p+1]; q++ {
					if a := x.Col[q]; a >= parts[k] && a < parts[k+1] {
						want = append(want, int32(q))
					}
				}
				for q := from; q < to; q++ {
					got = append(got, q)
				}
				require.Equal(t, want, got, "threads %d, row %d, range %d", threads, p, k)
			}
		}
	}
	require.Nil(t, newRowSplit(nil, &shuffledRows(c, false).Unary, attrParts(cum, 3)))
}

// TestLiveCorpusBlocks: the live copy over several blocks of rows on 1 to
// 5 goroutines holds, row by row, exactly the entries of the live
// attributes in order (binary and real values), also when it reuses the
// rows of an older, larger copy.
func TestLiveCorpusBlocks(t *testing.T) {
	const U = 12
	for _, real := range []bool{false, true} {
		rng := rand.New(rand.NewPCG(45, 46))
		c := randomCorpus(rng, 3000, 6, U, 0, 2, real)
		require.Greater(t, c.Unary.Rows(), 2*liveRowBlock)
		x := &c.Unary
		wider := make([]bool, U) // an older copy with more live attributes
		live := make([]bool, U)
		for a := range U {
			wider[a] = a%4 != 0
			live[a] = a%4 == 1 || a == 6
		}
		var want sparse.Matrix
		want.RowPtr = []int32{0}
		for p := range x.Rows() {
			cols, vals := x.Row(p)
			for k, a := range cols {
				if live[a] {
					want.Col = append(want.Col, a)
					if vals != nil {
						want.Val = append(want.Val, vals[k])
					}
				}
			}
			want.RowPtr = append(want.RowPtr, int32(len(want.Col)))
		}
		for threads := 1; threads <= 5; threads++ {
			for _, reuse := range []bool{false, true} {
				old := c
				if reuse {
					old = liveCorpus(c, c, wider, 1, threads)
					require.NotSame(t, c, old)
				}
				got := liveCorpus(c, old, live, 1, threads)
				require.Equal(t, want.RowPtr, got.Unary.RowPtr, "threads %d, reuse %v", threads, reuse)
				require.Equal(t, want.Col, got.Unary.Col, "threads %d, reuse %v", threads, reuse)
				require.Equal(t, want.Val, got.Unary.Val, "threads %d, reuse %v", threads, reuse)
			}
		}
		require.Same(t, c, liveCorpus(c, c, live, 0.1, 2), "kept when the live entries are enough")
	}
}
