package warmstart

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/floats"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/inference"
	"github.com/sparsetag/sparsetag/internal/chaintest"
	"github.com/sparsetag/sparsetag/sparse"
)

// listCase is a problem for the list tests: repeated attributes (each of
// few attributes is at 40% of the positions), real values or not, pair
// attributes, a dead attribute and partly frozen blocks, dense blocks.
type listCase struct {
	name          string
	real, dense   bool
	frozen        bool
	numPair, numA int
	labels        int // 3 when 0
}

var listCases = []listCase{
	{name: "binary", numA: 7},
	{name: "real, pairs, frozen", real: true, frozen: true, numPair: 2, numA: 6},
	{name: "dense block, pairs, frozen", dense: true, frozen: true, numPair: 1, numA: 5},
	{name: "many attributes", numA: 40, numPair: 3},
	{name: "22 labels (padded blocks), real, frozen", real: true, frozen: true, numA: 9, labels: 22},
}

// newListCase returns the state of a fresh warm start on the case's
// problem (no lists yet).
func newListCase(t *testing.T, tc listCase, seed uint64) *sgd {
	return newListCasePadded(t, tc, seed, true)
}

// newListCasePadded is newListCase with the blocks padded or not.
func newListCasePadded(t *testing.T, tc listCase, seed uint64, pad bool) *sgd {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 11))
	L := max(3, tc.labels)
	c := chaintest.RandomCorpus(rng, 30, 7, tc.numA, tc.numPair, L, tc.real)
	if tc.dense {
		chaintest.AddDenseBlock(rng, c, 5, 6)
	}
	m, err := chain.NewModel(chaintest.LabelNames(L), c.NumUnary, tc.numPair, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	var frozen sparse.Bitset
	if tc.frozen {
		frozen = sparse.NewBitset(len(m.W))
		// Attribute 0 dead, attributes 1 and numA-1 partly frozen.
		for y := range L {
			frozen.Set(m.Layout.StateIndex(0, y))
		}
		partial := []int{m.Layout.StateIndex(tc.numA-1, 1), m.Layout.TransIndex(1, 2)}
		if L < 16 {
			partial = append(partial, m.Layout.StateIndex(1, 1))
		} else {
			partial = append(partial, m.Layout.StateIndex(tc.numA/2, 3)) // full blocks padded around it
		}
		for _, j := range partial {
			frozen.Set(j)
		}
		if tc.numPair > 0 {
			frozen.Set(m.Layout.PairIndex(0, 1, 1))
		}
	}
	var free []int32
	for j := range len(m.W) {
		if frozen == nil || !frozen.Has(j) {
			free = append(free, int32(j))
		}
	}
	return newSGDPadded(m, c, 0.03, 0.05, frozen, free, pad)
}

// TestListsMatchRows: the list of every sequence holds each live unary
// (pair) attribute of its rows once, in the order of first occurrence,
// and no other; loc gives every row entry the position of its attribute
// in the list, -1 exactly for dead ones. Checked against the rows
// directly, not against dedup; with a cap, a prefix of the sequences is
// listed, within the cap.
func TestListsMatchRows(t *testing.T) {
	for _, tc := range listCases {
		s := newListCase(t, tc, 3)
		l := newAttrLists(s, MaxListed)
		full := s.c
		if s.full != nil {
			full = s.full
		}
		dead := 0
		for i := range full.Len() {
			if !l.listed(i) {
				t.Fatalf("%s: sequence %d not listed", tc.name, i)
			}
			j := s.sequence(i)
			wantU, wantP, n := firstOccurrences(s, j)
			if !slices.Equal(l.unary(i), wantU) || !slices.Equal(l.pair(i), wantP) {
				t.Fatalf("%s: sequence %d: lists %v %v, want %v %v", tc.name, i, l.unary(i), l.pair(i), wantU, wantP)
			}
			for k, a := range l.unary(i) {
				want := s.vpos[a]
				if int(s.sptr[a+1]-s.sptr[a]) != s.m.NumLabels() {
					want = -1
				}
				if l.blos(i)[k] != want {
					t.Fatalf("%s: sequence %d: block start %d of attribute %d, want %d", tc.name, i, l.blos(i)[k], a, want)
				}
			}
			loc := l.locs(i)
			if len(loc) != n {
				t.Fatalf("%s: sequence %d: %d slots for %d row entries", tc.name, i, len(loc), n)
			}
			start, T := s.c.Span(j)
			k := 0
			for p := start; p < start+T; p++ {
				cols, _ := s.c.Unary.Row(p)
				for _, a := range cols {
					switch {
					case s.sl.deadU[a] && loc[k] == -1:
						dead++
					case s.sl.deadU[a] || loc[k] < 0 || l.unary(i)[loc[k]] != a:
						t.Fatalf("%s: sequence %d entry %d (attribute %d): slot %d", tc.name, i, k, a, loc[k])
					}
					k++
				}
			}
		}
		if tc.frozen && dead == 0 {
			t.Fatalf("%s: no dead attribute in the rows: the case does not test them", tc.name)
		}
		for a := range s.sl.slotU {
			if s.sl.slotU[a] != -1 {
				t.Fatalf("%s: slot of attribute %d left at %d", tc.name, a, s.sl.slotU[a])
			}
		}
		entries := len(l.uList) + len(l.pList) + len(l.loc)
		capped := newAttrLists(s, entries/2)
		n := len(capped.uPtr) - 1
		if n == 0 || n == full.Len() || len(capped.uList)+len(capped.pList)+len(capped.loc) > entries/2 {
			t.Fatalf("%s: the cap at %d of %d entries listed %d of %d sequences", tc.name, entries/2, entries, n, full.Len())
		}
		if !slices.Equal(capped.uList, l.uList[:len(capped.uList)]) || !slices.Equal(capped.loc, l.loc[:len(capped.loc)]) {
			t.Fatalf("%s: the capped lists differ from the full ones", tc.name)
		}
	}
}

// firstOccurrences returns the live unary and pair attributes of sequence
// j of s.c in the order of their first occurrence, and the number of
// entries of its unary rows (with a map, not the slots).
func firstOccurrences(s *sgd, j int) (unary, pair []int32, entries int) {
	seenU, seenP := map[int32]bool{}, map[int32]bool{}
	start, T := s.c.Span(j)
	for p := start; p < start+T; p++ {
		cols, _ := s.c.Unary.Row(p)
		entries += len(cols)
		for _, a := range cols {
			if !seenU[a] && !s.sl.deadU[a] {
				seenU[a] = true
				unary = append(unary, a)
			}
		}
		if s.c.Pair.Rows() == 0 || p == start {
			continue
		}
		pc, _ := s.c.Pair.Row(p)
		for _, a := range pc {
			if !seenP[a] && !s.sl.deadP[a] {
				seenP[a] = true
				pair = append(pair, a)
			}
		}
	}
	return unary, pair, entries
}

// TestListedStepsSameBits: steps on listed sequences that prefetch the
// next one's blocks give the bits of steps that deduplicate every
// sequence and prefetch nothing (v, q, a, u and the NLL after every
// step), with rescales, sequence weights, and lists capped at half the
// sequences (the rest deduplicated).
func TestListedStepsSameBits(t *testing.T) {
	for _, tc := range listCases {
		plain := newListCase(t, tc, 5)
		listed := newListCase(t, tc, 5)
		listed.lists = newAttrLists(listed, MaxListed)
		capped := newListCase(t, tc, 5)
		capped.lists = newAttrLists(capped, len(listed.lists.loc))
		rng := rand.New(rand.NewPCG(9, 9))
		n := plain.c.Len()
		if plain.full != nil {
			n = plain.full.Len()
		}
		weight := make([]float64, n)
		for i := range weight {
			weight[i] = 0.5 + rng.Float64()
		}
		states := []*sgd{plain, listed, capped}
		for _, s := range states {
			s.minScale = 0.97
			s.weight = weight
		}
		order := make([]int, 80)
		for k := range order {
			order[k] = rng.IntN(n)
		}
		for k, i := range order {
			next := -1
			if k+1 < len(order) {
				next = order[k+1]
			}
			eta := 0.8 / (1 + float64(k)/float64(n))
			want := plain.step(i, -1, eta)
			for _, s := range states[1:] {
				if got := s.step(i, next, eta); math.Float64bits(got) != math.Float64bits(want) {
					t.Fatalf("%s: step %d: NLL %v, want %v", tc.name, k, got, want)
				}
				if !sameBits(s.v, plain.v) || !sameBits(s.q, plain.q) || s.a != plain.a || s.u != plain.u {
					t.Fatalf("%s: step %d: the state differs", tc.name, k)
				}
			}
		}
		if plain.a == 1 && plain.u == 0 {
			t.Fatalf("%s: the steps did nothing", tc.name)
		}
	}
}

// sameBits reports whether a and b hold the same bits.
func sameBits(a, b []float64) bool {
	return slices.EqualFunc(a, b, func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) })
}

// TestScoreGradientBits: the scores and the gradient of a sequence are
// those of adding each attribute's block with gonum (floats.Add,
// floats.AddScaled; the loops before package blocksum) in the row's order,
// bit for bit, with real values and partly frozen blocks.
func TestScoreGradientBits(t *testing.T) {
	for _, tc := range listCases {
		s := newListCase(t, tc, 7)
		s.lists = newAttrLists(s, MaxListed)
		rng := rand.New(rand.NewPCG(2, 2))
		for k := range 40 {
			s.step(rng.IntN(len(s.lists.uPtr)-1), -1, 0.5/(1+float64(k)/10))
		}
		for i := range len(s.lists.uPtr) - 1 {
			j := s.sequence(i)
			s.collect(i, j)
			s.sl.dedup(s.c, j) // the slots, for the reference
			L := s.m.NumLabels()
			lat := s.score(j, 0)
			got := slices.Clone(lat.Unary)
			start, T := s.c.Span(j)
			want := make([]float64, T*L)
			for t := range T {
				cols, vals := s.c.Unary.Row(start + t)
				for k, a := range cols {
					if s.sl.slotU[a] < 0 {
						continue
					}
					v := 1.0
					if vals != nil {
						v = vals[k]
					}
					s.addState(want[t*L:t*L+L], a, v)
				}
			}
			floats.Scale(s.a, want)
			if !sameBits(got, want) {
				t.Fatalf("%s: sequence %d: scores %v, want %v", tc.name, i, got, want)
			}
			refGradientCheck(t, s, j, tc.name)
			s.sl.clear(s.attrs, s.pairs)
		}
	}
}

// refGradientCheck compares gU after gradient with the per-block loop
// before package blocksum (gonum's floats.AddScaled, whose amd64 assembly
// multiplies and adds unfused; written out here so that no architecture
// fuses it), slots set.
func refGradientCheck(t *testing.T, s *sgd, j int, name string) {
	t.Helper()
	lat := s.score(j, 0)
	inference.ForwardBackward(s.ws, lat)
	clear(s.gU)
	s.gradient(j, lat, 0)
	L := s.m.NumLabels()
	want := make([]float64, len(s.gU))
	start, T := s.c.Span(j)
	node := s.ws.Node()
	for t := range T {
		cols, vals := s.c.Unary.Row(start + t)
		y := int(s.c.Labels[start+t])
		for k, a := range cols {
			if q := s.sl.slotU[a]; q >= 0 {
				v := 1.0
				if vals != nil {
					v = vals[k]
				}
				blk := want[int(q)*L : int(q)*L+L]
				for i, mu := range node[t*L : t*L+L] {
					blk[i] += float64(v * mu) // gonum's AddScaled on amd64, unfused anywhere
				}
				blk[y] -= v
			}
		}
	}
	if !sameBits(s.gU, want) {
		t.Fatalf("%s: gradient %v, want %v", name, s.gU, want)
	}
}

// spanLen returns the length of sequence i of c.
func spanLen(c *sparse.Corpus, i int) int {
	_, T := c.Span(i)
	return T
}

// TestCalibrationTouchedSameBits: a calibration trial that resets and
// sums the penalty over the sample's blocks only (the sequences listed)
// gives the sample objective and the state of one over every block.
func TestCalibrationTouchedSameBits(t *testing.T) {
	for _, tc := range listCases {
		all := newListCase(t, tc, 13)
		some := newListCase(t, tc, 13)
		some.lists = newAttrLists(some, MaxListed)
		n := all.c.Len()
		if all.full != nil {
			n = all.full.Len()
		}
		// The sample: the shortest sequence of two positions or more (it
		// has transitions), three times.
		shortest := -1
		for i := range all.c.Len() {
			if T := spanLen(all.c, i); T >= 2 && (shortest < 0 || T < spanLen(all.c, shortest)) {
				shortest = i
			}
		}
		sample := []int32{int32(shortest), int32(shortest), int32(shortest)}
		for _, s := range []*sgd{all, some} {
			s.touched = s.lists.sample(sample, len(s.sl.slotU))
		}
		if all.touched != nil || some.touched == nil || len(some.touched) >= len(some.sl.slotU) {
			t.Fatalf("%s: touched %d of %d attributes (%d sequences)", tc.name, len(some.touched), len(some.sl.slotU), n)
		}
		for _, eta := range []float64{0.1, 0.4, 0.2} {
			fa, err := all.trial(t.Context(), sample, eta)
			if err != nil {
				t.Fatal(err)
			}
			fs, err := some.trial(t.Context(), sample, eta)
			if err != nil {
				t.Fatal(err)
			}
			if math.Float64bits(fa) != math.Float64bits(fs) || !sameBits(all.v, some.v) || !sameBits(all.q, some.q) {
				t.Fatalf("%s: eta %v: sample objective %v, want %v (or another state)", tc.name, eta, fs, fa)
			}
		}
	}
}
