package warmstart

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/internal/chaintest"
	"github.com/sparsetag/sparsetag/sparse"
)

// TestPrefetchSameBits: with the helper goroutine catching up the next
// sequence's blocks, the warm start's state (v, q, a, u) and per-step
// losses are those of one goroutine, bit for bit, after every step: on
// corpora whose consecutive sequences share some attributes and not
// others (few and many attributes), with frozen features and a dead
// attribute, across rescales (a large minScale rescales every few steps,
// when nothing may be handed over), with the helper catching up every
// block it is given (helperAll) and with the main goroutine taking what
// the helper has not claimed.
func TestPrefetchSameBits(t *testing.T) {
	for _, tc := range []struct {
		name      string
		numAttr   int
		minScale  float64
		helperAll bool
	}{
		{"shared, helper", 6, sgdMinScale, true},
		{"few shared, helper", 40, sgdMinScale, true},
		{"few shared, rescales, helper", 40, 0.97, true},
		{"few shared, rescales, either", 40, 0.97, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, c := sgdProblem(t, 41, 30, tc.numAttr, 2, 3, true)
			frozen, free := frozenSome(m)
			serial := newSGD(m, c, 0.05, 0.04, frozen, free)
			pre := newSGD(m, c, 0.05, 0.04, frozen, free)
			serial.minScale, pre.minScale = tc.minScale, tc.minScale
			pre.startPrefetch()
			defer pre.stopPrefetch()
			pre.pf.helperAll = tc.helperAll
			rng := rand.New(rand.NewPCG(4, 1))
			order := rng.Perm(c.Len())
			rescales := 0
			for k, i := range order {
				next := -1
				if k+1 < len(order) {
					next = order[k+1]
				}
				eta := 0.8 / (1 + float64(k)/float64(c.Len()))
				if pre.a < pre.minScale {
					rescales++
				}
				got, want := pre.stepNext(i, next, eta), serial.step(i, eta)
				if got != want || pre.a != serial.a || pre.u != serial.u {
					t.Fatalf("step %d: NLL %v, a %v, u %v; one goroutine: %v, %v, %v", k, got, pre.a, pre.u, want, serial.a, serial.u)
				}
				if j, ok := sameUnlessCaught(pre, serial); !ok {
					t.Fatalf("step %d: v or q at %d differ from one goroutine's", k, j)
				}
			}
			if j, ok := sameUnlessCaught(pre, serial); !ok || pre.pf.listed == 0 {
				t.Fatalf("v or q at %d differ at the end, or nothing was handed over", j)
			}
			pw, sw := pre.point(), serial.point()
			if len(sw.Idx) == 0 || !slices.Equal(pw.Idx, sw.Idx) || !sameBits(pw.Val, sw.Val) {
				t.Fatalf("points: %d non-zero weights, one goroutine %d, or other values", len(pw.Idx), len(sw.Idx))
			}
			if tc.minScale > sgdMinScale && rescales == 0 {
				t.Fatal("no rescale: the test does not cover them")
			}
		})
	}
}

// sameUnlessCaught reports whether v and q of pre and serial are the same
// bits on every block but those the helper has caught up for the next
// step (slotCaught: ahead of serial's until that step's catch-up), and
// the first position where they differ.
func sameUnlessCaught(pre, serial *sgd) (int, bool) {
	for j := range pre.v {
		if j < pre.ns {
			a := pre.feat[j] / int32(pre.m.NumLabels())
			if pre.slotU[a] == slotCaught {
				continue
			}
		}
		if math.Float64bits(pre.v[j]) != math.Float64bits(serial.v[j]) || math.Float64bits(pre.q[j]) != math.Float64bits(serial.q[j]) {
			return j, false
		}
	}
	return -1, true
}

// frozenSome freezes attribute 0 (dead) and a few other features of m and
// returns them and the free features.
func frozenSome(m *chain.Model) (sparse.Bitset, []int32) {
	frozen := sparse.NewBitset(len(m.W))
	for _, j := range []int{0, 1, 2, 7, m.Layout.TransIndex(1, 2), m.Layout.PairIndex(1, 0, 0)} {
		frozen.Set(j)
	}
	var free []int32
	for j := range len(m.W) {
		if !frozen.Has(j) {
			free = append(free, int32(j))
		}
	}
	return frozen, free
}

// TestRunThreadsSameBits: Run gives the same point at 1, 2 and 3 threads,
// on a corpus with sequence weights and on one with a dense block (the
// helper expands the next sequence's rows itself).
func TestRunThreadsSameBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 2))
	c := chaintest.RandomCorpus(rng, 60, 6, 30, 1, 3, true)
	dense := chaintest.RandomCorpus(rng, 60, 5, 20, 1, 3, true)
	chaintest.AddDenseBlock(rng, dense, 5, 6)
	weights := make([]float64, c.Len())
	for i := range weights {
		weights[i] = 0.5 + rng.Float64()
	}
	for _, tc := range []struct {
		c       *sparse.Corpus
		weights []float64
	}{{c, weights}, {dense, nil}} {
		m, err := chain.NewModel(chaintest.LabelNames(3), tc.c.NumUnary, 1, true, nil)
		if err != nil {
			t.Fatal(err)
		}
		frozen, free := frozenSome(m)
		p := Problem{Model: m, Corpus: tc.c, Weights: tc.weights, L1: 0.01, L2: 0.01, Frozen: frozen, Free: free}
		var pts []Point
		for _, threads := range []int{1, 2, 3} {
			pt, _, err := Run(context.Background(), p, Settings{Epochs: 2, Threads: threads})
			if err != nil {
				t.Fatal(err)
			}
			pts = append(pts, pt)
		}
		for k := 1; k < len(pts); k++ {
			if len(pts[0].Idx) == 0 || !slices.Equal(pts[0].Idx, pts[k].Idx) || !sameBits(pts[0].Val, pts[k].Val) {
				t.Fatalf("dense %v: %d non-zero weights at 1 thread, %d at %d threads, or other values", tc.c.HasDense(), len(pts[0].Idx), len(pts[k].Idx), k+1)
			}
		}
	}
}

// sameBits reports whether x and y hold the same float64 bits.
func sameBits(x, y []float64) bool {
	return slices.EqualFunc(x, y, func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) })
}
