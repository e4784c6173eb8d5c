package objective

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/sparse"
)

// skewedCorpus returns a binary labeled corpus of n sequences over U
// attributes with L labels: attribute frequencies fall off (a few occur
// more than smallCount times, most a few times, the last ones never),
// rows may repeat an attribute, and the largest label occurs.
func skewedCorpus(rng *rand.Rand, n, U, L, numPair int) *sparse.Corpus {
	c := &sparse.Corpus{NumUnary: U, NumPair: numPair}
	for range n {
		T := 1 + rng.IntN(6)
		unary := make([][]int32, T)
		var pair [][]int32
		if numPair > 0 {
			pair = make([][]int32, T)
		}
		labels := make([]int32, T)
		for t := range T {
			for a := range U - 2 {
				if rng.Float64() < 1/float64(1+a) {
					unary[t] = append(unary[t], int32(a))
				}
			}
			if rng.Float64() < 0.2 && len(unary[t]) > 0 { // a repeated attribute
				unary[t] = append(unary[t], unary[t][rng.IntN(len(unary[t]))])
			}
			for a := range numPair {
				if rng.Float64() < 0.5 {
					pair[t] = append(pair[t], int32(a))
				}
			}
			labels[t] = int32(rng.IntN(L))
			if rng.Float64() < 0.1 {
				labels[t] = int32(L - 1)
			}
		}
		c.AppendSequence(unary, nil, pair, nil, labels)
	}
	return c
}

// TestBinaryObserved: the counts dealt out by attribute are the column
// path's (columnObserved) bit for bit: the sparse state counts in the same
// order, the transition and pair blocks, for 2 to 256 labels.
func TestBinaryObserved(t *testing.T) {
	rng := rand.New(rand.NewPCG(40, 8))
	for _, L := range []int{2, 3, 22, 255, 256} {
		for _, numPair := range []int{0, 2} {
			c := skewedCorpus(rng, 60, 30, L, numPair)
			m, err := chain.NewModel(labelNames(L), 30, numPair, true, nil)
			if err != nil {
				t.Fatal(err)
			}
			cum := attributeCounts(&c.Unary, 30)
			if cum[1] <= smallCount || cum[30]-cum[29] != 0 {
				t.Fatalf("L %d: the corpus does not have the attribute counts the test needs", L)
			}
			cols := slices.Clone(c.Unary.Col)
			got, want := binaryObserved(m, c, cum), columnObserved(m, c, cum, nil)
			if got.stateLen != want.stateLen || !slices.Equal(got.stIdx, want.stIdx) ||
				!sameBits(got.stVal, want.stVal) || !sameBits(got.tail, want.tail) {
				t.Fatalf("L %d, %d pair attributes: the counts differ from the column path's", L, numPair)
			}
			if !slices.Equal(c.Unary.Col, cols) {
				t.Fatal("binaryObserved changed the corpus")
			}
		}
	}
}

// sameBits reports whether a and b hold the same float64 bits.
func sameBits(a, b []float64) bool {
	return slices.EqualFunc(a, b, func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) })
}

// TestGoldStateCounts: the gold state counts are the non-zero state
// entries of ObservedCounts, from the sparse and the fused objective, and
// not offered once sequence weights scale them.
func TestGoldStateCounts(t *testing.T) {
	rng := rand.New(rand.NewPCG(40, 9))
	c := skewedCorpus(rng, 40, 12, 4, 1)
	m, err := chain.NewModel(labelNames(4), 12, 1, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	dense := ObservedCounts(m, c)
	var wantIdx []int32
	var wantVal []float64
	for j, v := range dense[:m.Layout.StateLen()] {
		if v != 0 {
			wantIdx, wantVal = append(wantIdx, int32(j)), append(wantVal, v)
		}
	}
	for _, budget := range []int{-1, 64 << 20} {
		o := New(m, c, Settings{Threads: 1, FusedBudget: budget})
		gold, ok := GoldStateCounts(o)
		if !ok {
			t.Fatalf("budget %d: no gold counts", budget)
		}
		var idx []int32
		var val []float64
		for j, v := range gold {
			idx, val = append(idx, j), append(val, v)
		}
		if !slices.Equal(idx, wantIdx) || !sameBits(val, wantVal) {
			t.Fatalf("budget %d (fused %v): the gold counts differ from ObservedCounts", budget, o.fused)
		}
		s := make([]float64, c.Len())
		for i := range s {
			s[i] = 0.5 + rng.Float64()
		}
		if err := o.SetWeights(s); err != nil {
			t.Fatal(err)
		}
		if _, ok := GoldStateCounts(o); ok {
			t.Fatalf("budget %d: gold counts offered with sequence weights", budget)
		}
	}
}

// TestUnscreened: the unscreened features are those of the set that are
// not screened, in increasing order, feature by feature, in dst's storage
// when it is large enough.
func TestUnscreened(t *testing.T) {
	rng := rand.New(rand.NewPCG(40, 10))
	m, err := chain.NewModel(labelNames(5), 61, 0, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	fs := newFeatures(m)
	for trial := range 5 {
		var all []int32
		for j := range int32(len(m.W)) {
			if rng.Float64() < 0.7 {
				all = append(all, j)
			}
		}
		fs.SetAll(all)
		fs.ResetScreening()
		for j := range len(m.W) {
			if rng.Float64() < 0.5 {
				fs.Screen(int32(j))
			}
		}
		var want []int32
		for j := range int32(len(m.W)) {
			if fs.InSet(j) && !fs.IsScreened(j) {
				want = append(want, j)
			}
		}
		dst := make([]int32, 3, len(m.W))
		got := fs.Unscreened(dst)
		if !slices.Equal(got, want) {
			t.Fatalf("trial %d: Unscreened differs from the feature-by-feature loop", trial)
		}
		if &got[0] != &dst[:1][0] {
			t.Fatalf("trial %d: dst's storage not reused", trial)
		}
	}
}
