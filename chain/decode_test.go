package chain

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/sparsetag/sparsetag/features"
	"github.com/stretchr/testify/require"

	"github.com/sparsetag/sparsetag/internal/numtest"
	"github.com/sparsetag/sparsetag/sparse"
)

// bruteDecode enumerates all label sequences of sequence i of c (y_0
// varying fastest), keeps those allowed by cs and fixed, and returns them
// sorted by decreasing score (stable, so ties keep the enumeration order,
// the documented tie order), with their scores, log Z over the allowed
// sequences and the node marginals. Scores come from seqScore, the
// definition-level score of tagger_test.go.
func bruteDecode(m *Model, c *sparse.Corpus, i int, cs *Constraints, fixed []int) (paths [][]int, scores []float64, logZ float64, marg []float64) {
	L := m.NumLabels()
	start, T := c.Span(i)
	n := 1
	for t := 0; t < T; t++ {
		n *= L
	}
	logZ = math.Inf(-1)
	for k := 0; k < n; k++ {
		y := make([]int, T)
		j := k
		for t := range y {
			y[t] = j % L
			j /= L
		}
		if !decodeAllowed(y, cs, fixed) {
			continue
		}
		s := seqScore(m, c, start, y)
		paths = append(paths, y)
		scores = append(scores, s)
		logZ = logAdd(logZ, s)
	}
	marg = make([]float64, T*L)
	for k, y := range paths {
		p := math.Exp(scores[k] - logZ)
		for t := range y {
			marg[t*L+y[t]] += p
		}
	}
	idx := make([]int, len(paths))
	for k := range idx {
		idx[k] = k
	}
	sort.SliceStable(idx, func(a, b int) bool { return scores[idx[a]] > scores[idx[b]] })
	sp, ss := make([][]int, len(idx)), make([]float64, len(idx))
	for k, j := range idx {
		sp[k], ss[k] = paths[j], scores[j]
	}
	return sp, ss, logZ, marg
}

// checkPaths checks that got lists the first len(got) sequences of the
// sorted enumeration want. Sequences whose scores differ only by rounding
// (equal in exact arithmetic, e.g. two positions with the same attributes
// swapped) may come in either order: got[j] may then be any distinct
// sequence of want whose score is within 1e-12 of wantS[j].
func checkPaths(t *testing.T, name string, want [][]int, wantS []float64, got [][]int) {
	t.Helper()
	seen := map[string]bool{}
	for j, y := range got {
		key := fmt.Sprint(y)
		if seen[key] {
			t.Fatalf("%s: path %d = %v is listed twice", name, j, y)
		}
		seen[key] = true
		if slices.Equal(y, want[j]) {
			continue
		}
		k := slices.IndexFunc(want, func(w []int) bool { return slices.Equal(w, y) })
		if k < 0 || math.Abs(wantS[k]-wantS[j]) > 1e-12*(1+math.Abs(wantS[j])) {
			t.Fatalf("%s: path %d = %v, want %v (score %v)", name, j, y, want[j], wantS[j])
		}
	}
}

func decodeAllowed(y []int, cs *Constraints, fixed []int) bool {
	for t, l := range y {
		if fixed != nil && fixed[t] >= 0 && fixed[t] != l {
			return false
		}
		if cs == nil {
			continue
		}
		if t == 0 && !cs.StartAllowed(l) {
			return false
		}
		if t > 0 && !cs.TransitionAllowed(y[t-1], l) {
			return false
		}
	}
	return true
}

func randomModel(rng *rand.Rand, L, numAttr, numPair int, transitions bool) *Model {
	m, err := NewModel(labelNames(L), numAttr, numPair, transitions, nil)
	if err != nil {
		panic(err)
	}
	for j := range m.W {
		m.W[j] = 2 * rng.NormFloat64()
	}
	if !transitions {
		clear(m.Trans)
	}
	return m
}

func randomConstraints(rng *rand.Rand, L int, frac float64) *Constraints {
	cs := NewConstraints(L)
	for p := 0; p < L; p++ {
		if rng.Float64() < frac {
			cs.ForbidStart(p)
		}
		for q := 0; q < L; q++ {
			if rng.Float64() < frac {
				cs.ForbidTransition(p, q)
			}
		}
	}
	return cs
}

// TestDecodeBruteForce: n-best paths, scores, probabilities, log Z and
// marginals under random constraints and fixed labels, against
// enumeration; the model's weights are never modified.
func TestDecodeBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, tc := range []struct {
		name        string
		numPair     int
		transitions bool
	}{
		{"trans", 1, true}, // pair weights zeroed below
		{"pair", 2, true},
		{"no-trans", 1, false},
	} {
		L := 3
		c := randomCorpus(rng, 12, 5, 4, tc.numPair, L, true)
		m := randomModel(rng, L, 4, tc.numPair, tc.transitions)
		if tc.name != "pair" {
			clear(m.PairW)
		}
		w0 := slices.Clone(m.W)
		tg := NewTagger(m)
		var d Decoding
		for i := 0; i < c.Len(); i++ {
			_, T := c.Span(i)
			for _, mode := range []string{"plain", "constrained", "fixed", "both"} {
				var opt DecodeOptions
				if mode == "constrained" || mode == "both" {
					opt.Constraints = randomConstraints(rng, L, 0.3)
				}
				if mode == "fixed" || mode == "both" {
					opt.Fixed = make([]int, T)
					for k := range opt.Fixed {
						opt.Fixed[k] = -1
						if rng.Float64() < 0.3 {
							opt.Fixed[k] = rng.IntN(L)
						}
					}
				}
				wantP, wantS, wantZ, wantM := bruteDecode(m, c, i, opt.Constraints, opt.Fixed)
				for _, n := range []int{1, 4, 100} {
					opt.N = n
					opt.Posterior = true
					name := fmt.Sprintf("%s/seq %d/%s/n=%d", tc.name, i, mode, n)
					err := tg.Decode(&d, Encoded{Corpus: c, Seq: i}, opt)
					if len(wantP) == 0 {
						if !errors.Is(err, ErrNoPath) {
							t.Fatalf("%s: err = %v, want ErrNoPath", name, err)
						}
						continue
					}
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					k := min(n, len(wantP))
					if len(d.Paths) != k || len(d.Scores) != k || len(d.Probs) != k {
						t.Fatalf("%s: %d paths, %d scores, %d probs; want %d", name, len(d.Paths), len(d.Scores), len(d.Probs), k)
					}
					checkPaths(t, name, wantP, wantS, d.Paths)
					numtest.RequireSlices(t, wantS[:k], d.Scores, 1e-10, 1e-10, name+" scores")
					probs := make([]float64, k)
					for j := range probs {
						probs[j] = math.Exp(wantS[j] - wantZ)
					}
					numtest.RequireSlices(t, probs, d.Probs, 1e-10, 1e-9, name+" probs")
					numtest.RequireClose(t, wantZ, d.LogZ, 1e-10, 1e-10, name+" logZ")
					numtest.RequireSlices(t, wantM, d.Marginal, 1e-10, 1e-9, name+" marginals")
				}
				// Without the posterior: the best path and score only.
				opt.N, opt.Posterior = 0, false
				if err := tg.Decode(&d, Encoded{Corpus: c, Seq: i}, opt); err != nil {
					if len(wantP) == 0 && errors.Is(err, ErrNoPath) {
						continue
					}
					t.Fatalf("%s/seq %d/%s/n=0: %v", tc.name, i, mode, err)
				}
				checkPaths(t, "n=0", wantP, wantS, d.Paths)
				if len(d.Paths) != 1 || len(d.Probs) != 0 || !math.IsNaN(d.LogZ) {
					t.Fatalf("%s/seq %d/%s/n=0: got %v probs %v logZ %v, want %v and no posterior",
						tc.name, i, mode, d.Paths, d.Probs, d.LogZ, wantP[0])
				}
				numtest.RequireClose(t, wantS[0], d.Scores[0], 1e-10, 1e-10, "n=0 score")
			}
		}
		for j := range w0 {
			if math.Float64bits(w0[j]) != math.Float64bits(m.W[j]) {
				t.Fatalf("%s: decoding modified weight %d: %v -> %v", tc.name, j, w0[j], m.W[j])
			}
		}
		// Unconstrained decoding agrees with Tag (Viterbi).
		for i := 0; i < c.Len(); i++ {
			p, err := tg.Tag(nil, Encoded{Corpus: c, Seq: i})
			require.NoError(t, err)
			if err := tg.Decode(&d, Encoded{Corpus: c, Seq: i}, DecodeOptions{N: 3}); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(p, d.Best()) {
				t.Fatalf("%s: seq %d: Decode best %v, Tag %v", tc.name, i, d.Best(), p)
			}
		}
	}
}

// TestBIOConstraints checks the mask against the rules written out by hand
// for a small label set.
func TestBIOConstraints(t *testing.T) {
	labels := []string{"O", "B-NP", "I-NP", "B-VP", "I-VP", "X"}
	cs := BIOConstraints(labels)
	if cs.NumLabels() != len(labels) {
		t.Fatalf("NumLabels = %d", cs.NumLabels())
	}
	wantStart := map[string]bool{"O": true, "B-NP": true, "I-NP": false, "B-VP": true, "I-VP": false, "X": true}
	for y, l := range labels {
		if cs.StartAllowed(y) != wantStart[l] {
			t.Errorf("start -> %s allowed = %v, want %v", l, cs.StartAllowed(y), wantStart[l])
		}
	}
	forbidden := map[[2]string]bool{
		{"O", "I-NP"}: true, {"O", "I-VP"}: true,
		{"B-NP", "I-VP"}: true, {"I-NP", "I-VP"}: true,
		{"B-VP", "I-NP"}: true, {"I-VP", "I-NP"}: true,
	}
	for p, lp := range labels {
		for q, lq := range labels {
			want := !forbidden[[2]string{lp, lq}]
			if got := cs.TransitionAllowed(p, q); got != want {
				t.Errorf("%s -> %s allowed = %v, want %v", lp, lq, got, want)
			}
		}
	}
	if !HasChunkLabels(labels) || HasChunkLabels([]string{"NN", "VB", "O"}) {
		t.Error("HasChunkLabels is wrong")
	}
}

// TestBIODecodeNoInvalid: with random weights that favour I- tags, the
// constrained best path of every sequence is valid BIO, while the
// unconstrained one is not always.
func TestBIODecodeNoInvalid(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	labels := []string{"O", "B-NP", "I-NP", "B-VP", "I-VP"}
	L := len(labels)
	c := randomCorpus(rng, 30, 6, 5, 1, L, false)
	m, _ := NewModel(labels, 5, 1, true, nil)
	for j := range m.W {
		m.W[j] = rng.NormFloat64()
	}
	for a := 0; a < 5; a++ {
		m.State[a*L+2] += 1.5 // favour I-NP
	}
	tg := NewTagger(m)
	cs := BIOConstraints(labels)
	valid := func(y []int) bool {
		for t, l := range y {
			if !cs.StartAllowed(l) && t == 0 || t > 0 && !cs.TransitionAllowed(y[t-1], l) {
				return false
			}
		}
		return true
	}
	var d Decoding
	invalidPlain := 0
	for i := 0; i < c.Len(); i++ {
		p, err := tg.Tag(nil, Encoded{Corpus: c, Seq: i})
		require.NoError(t, err)
		if !valid(p) {
			invalidPlain++
		}
		if err := tg.Decode(&d, Encoded{Corpus: c, Seq: i}, DecodeOptions{N: 5, Constraints: cs}); err != nil {
			t.Fatal(err)
		}
		for k, y := range d.Paths {
			if !valid(y) {
				t.Fatalf("seq %d: constrained path %d %v is not valid BIO", i, k, y)
			}
		}
	}
	if invalidPlain == 0 {
		t.Fatal("test is too weak: every unconstrained path is already valid")
	}
}

func TestDecodeBadOptions(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	c := randomCorpus(rng, 1, 3, 2, 1, 2, false)
	_, T := c.Span(0)
	tg := NewTagger(randomModel(rng, 2, 2, 1, true))
	var d Decoding
	for name, opt := range map[string]DecodeOptions{
		"constraints size": {Constraints: NewConstraints(3)},
		"fixed length":     {Fixed: make([]int, T+1)},
		"fixed label":      {Fixed: slices.Repeat([]int{2}, T)},
	} {
		if err := tg.Decode(&d, Encoded{Corpus: c, Seq: 0}, opt); err == nil || errors.Is(err, ErrNoPath) {
			t.Errorf("%s: err = %v, want an option error", name, err)
		}
	}
	if err := tg.Decode(&d, features.Columns{{"a"}}, DecodeOptions{}); !errors.Is(err, ErrNoEncoder) {
		t.Errorf("Decode without encoder: err = %v, want ErrNoEncoder", err)
	}
}

func TestDecodeZeroAllocs(t *testing.T) {
	if decodeRace {
		t.Skip("sync.Pool drops entries at random under the race detector")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	L := 4
	c := randomCorpus(rng, 1, 8, 6, 1, L, false)
	m := randomModel(rng, L, 6, 1, true)
	tg := NewTagger(m)
	_, T := c.Span(0)
	opt := DecodeOptions{N: 3, Constraints: randomConstraints(rng, L, 0.2), Fixed: make([]int, T)}
	for k := range opt.Fixed {
		opt.Fixed[k] = -1
	}
	opt.Fixed[0] = 1
	var d Decoding
	if err := tg.Decode(&d, Encoded{Corpus: c, Seq: 0}, opt); err != nil {
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(50, func() {
		if err := tg.Decode(&d, Encoded{Corpus: c, Seq: 0}, opt); err != nil {
			t.Fatal(err)
		}
	})
	// sync.Pool may drop its entries at a GC; allow for a rare refill.
	if allocs > 1 {
		t.Fatalf("Decode allocates %v times per call when warm", allocs)
	}
}
