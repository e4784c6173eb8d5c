package train

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/features"
	"github.com/sparsetag/sparsetag/sparse"
)

// approxEqual checks lengths and finiteness first (testify's InDeltaSlice
// does neither) and names the first bad index.
func approxEqual(t testing.TB, name string, want, got []float64, abs, rel float64) {
	t.Helper()
	if len(want) != len(got) {
		t.Fatalf("%s: length %d, want %d", name, len(got), len(want))
	}
	for i := range want {
		if math.IsNaN(got[i]) || math.IsInf(got[i], 0) {
			t.Fatalf("%s[%d] = %v, not finite", name, i, got[i])
		}
		if !scalar.EqualWithinAbsOrRel(want[i], got[i], abs, rel) {
			t.Fatalf("%s[%d] = %.17g, want %.17g (abs %g rel %g)", name, i, got[i], want[i], abs, rel)
		}
	}
}

func approxScalar(t testing.TB, name string, want, got, abs, rel float64) {
	t.Helper()
	approxEqual(t, name, []float64{want}, []float64{got}, abs, rel)
}

// randomCorpus builds n random sequences of length 1..maxT over numAttr
// attributes (binary, or real-valued when real is true), with pair
// attributes when numPair > 0, and labels in [0, L).
func randomCorpus(rng *rand.Rand, n, maxT, numAttr, numPair, L int, real bool) *sparse.Corpus {
	c := &sparse.Corpus{NumUnary: numAttr, NumPair: numPair}
	for i := 0; i < n; i++ {
		T := 1 + rng.IntN(maxT)
		unary := make([][]int32, T)
		var uval [][]float64
		if real {
			uval = make([][]float64, T)
		}
		var pair [][]int32
		if numPair > 0 {
			pair = make([][]int32, T)
		}
		labels := make([]int32, T)
		for t := 0; t < T; t++ {
			for a := 0; a < numAttr; a++ {
				if rng.Float64() < 0.4 {
					unary[t] = append(unary[t], int32(a))
					if real {
						uval[t] = append(uval[t], rng.NormFloat64())
					}
				}
			}
			for a := 0; a < numPair; a++ {
				if rng.Float64() < 0.5 {
					pair[t] = append(pair[t], int32(a))
				}
			}
			labels[t] = int32(rng.IntN(L))
		}
		c.AppendSequence(unary, uval, pair, nil, labels)
	}
	return c
}

func labelNames(L int) []string {
	out := make([]string, L)
	for i := range out {
		out[i] = fmt.Sprintf("y%d", i)
	}
	return out
}

// nextPath advances y to the next label sequence in lexicographic order
// (last position fastest) and reports false after the last one.
func nextPath(y []int, L int) bool {
	for k := len(y) - 1; k >= 0; k-- {
		y[k]++
		if y[k] < L {
			return true
		}
		y[k] = 0
	}
	return false
}

// toyChunks (a copy of chain's test corpus) is a tiny labeled corpus in CoNLL columns (word, POS) with chunk
// tags, used to train real models with an encoder.
var toyChunks = []struct {
	cols   [][]string
	labels []string
}{
	{[][]string{{"He", "PRP"}, {"reckons", "VBZ"}, {"the", "DT"}, {"deficit", "NN"}}, []string{"B-NP", "B-VP", "B-NP", "I-NP"}},
	{[][]string{{"The", "DT"}, {"dog", "NN"}, {"barks", "VBZ"}}, []string{"B-NP", "I-NP", "B-VP"}},
	{[][]string{{"She", "PRP"}, {"sees", "VBZ"}, {"a", "DT"}, {"cat", "NN"}}, []string{"B-NP", "B-VP", "B-NP", "I-NP"}},
	{[][]string{{"A", "DT"}, {"cat", "NN"}, {"sleeps", "VBZ"}}, []string{"B-NP", "I-NP", "B-VP"}},
}

const toyTemplate = "U00:%x[0,0]\nU01:%x[0,1]\nU02:%x[-1,1]/%x[0,1]\nB\nB01:%x[0,1]\n"

func trainToy(t testing.TB) *chain.Model {
	t.Helper()
	enc := features.NewTemplateEncoder(features.MustCompile(toyTemplate))
	labelID := map[string]int32{}
	var labels []string
	c := &sparse.Corpus{}
	for _, s := range toyChunks {
		ids := make([]int32, len(s.labels))
		for i, l := range s.labels {
			id, ok := labelID[l]
			if !ok {
				id = int32(len(labels))
				labelID[l] = id
				labels = append(labels, l)
			}
			ids[i] = id
		}
		if err := enc.Encode(c, features.Columns(s.cols), ids, true); err != nil {
			t.Fatal(err)
		}
	}
	enc.Freeze(0)
	m, err := chain.NewModel(labels, enc.Unary().Len(), enc.Pair().Len(), enc.HasTransitions(), enc)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Train(context.Background(), m, c, Options{BetaRatio: 0.05, Epsilon: 1e-9}); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestTrainedToyTagsItsPattern: a model trained on the toy corpus, saved and
// loaded, tags an unseen sentence with the training data's chunk pattern.
func TestTrainedToyTagsItsPattern(t *testing.T) {
	m := trainToy(t)
	data, err := m.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	back, err := chain.UnmarshalModel(data)
	if err != nil {
		t.Fatal(err)
	}
	tg := chain.NewTagger(back)
	ids, err := tg.Tag(nil, features.Columns{{"The", "DT"}, {"zebra", "NN"}, {"reckons", "VBZ"}})
	if err != nil {
		t.Fatal(err)
	}
	got := tg.Labels(nil, ids)
	want := []string{"B-NP", "I-NP", "B-VP"}
	if !slices.Equal(got, want) {
		t.Fatalf("tagged %v, want %v (the training data's pattern)", got, want)
	}
}

// keepWorkingSet keeps the working-set policy on the small problems of a
// test (their working sets are dense, which would hand them to the full
// policy).
func keepWorkingSet(t testing.TB) {
	old := wsDenseFraction
	wsDenseFraction = math.Inf(1)
	t.Cleanup(func() { wsDenseFraction = old })
}
