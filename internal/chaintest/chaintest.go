// Package chaintest holds the test data that the tests of chain and train
// share: random encoded corpora, label names, an enumerator of label
// sequences for brute-force checks, and a toy chunking corpus with its
// encoder. It is imported only by tests. Float comparisons are package
// numtest's.
package chaintest

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/sparsetag/sparsetag/features"
	"github.com/sparsetag/sparsetag/internal/numtest"
	"github.com/sparsetag/sparsetag/sparse"
)

// ApproxEqual is numtest.RequireSlices with the name first: train's tests
// still call it under this name (train is being restructured on another
// branch; its tests move to numtest with it). New tests call numtest.
func ApproxEqual(t testing.TB, name string, want, got []float64, abs, rel float64) {
	t.Helper()
	numtest.RequireSlices(t, want, got, abs, rel, name)
}

// ApproxScalar is numtest.RequireClose with the name first (see
// ApproxEqual).
func ApproxScalar(t testing.TB, name string, want, got, abs, rel float64) {
	t.Helper()
	numtest.RequireClose(t, want, got, abs, rel, name)
}

// RandomCorpus builds n random sequences of length 1..maxT over numAttr
// attributes (binary, or real-valued when real is true), with pair
// attributes when numPair > 0, and labels in [0, L).
func RandomCorpus(rng *rand.Rand, n, maxT, numAttr, numPair, L int, real bool) *sparse.Corpus {
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

// LabelNames returns y0 .. y(L-1).
func LabelNames(L int) []string {
	out := make([]string, L)
	for i := range out {
		out[i] = fmt.Sprintf("y%d", i)
	}
	return out
}

// NextPath advances y to the next label sequence in lexicographic order
// (last position fastest) and reports false after the last one.
func NextPath(y []int, L int) bool {
	for k := len(y) - 1; k >= 0; k-- {
		y[k]++
		if y[k] < L {
			return true
		}
		y[k] = 0
	}
	return false
}

// ToyChunks is a tiny labeled corpus in CoNLL columns (word, POS) with
// chunk tags.
var ToyChunks = []struct {
	Cols   [][]string
	Labels []string
}{
	{[][]string{{"He", "PRP"}, {"reckons", "VBZ"}, {"the", "DT"}, {"deficit", "NN"}}, []string{"B-NP", "B-VP", "B-NP", "I-NP"}},
	{[][]string{{"The", "DT"}, {"dog", "NN"}, {"barks", "VBZ"}}, []string{"B-NP", "I-NP", "B-VP"}},
	{[][]string{{"She", "PRP"}, {"sees", "VBZ"}, {"a", "DT"}, {"cat", "NN"}}, []string{"B-NP", "B-VP", "B-NP", "I-NP"}},
	{[][]string{{"A", "DT"}, {"cat", "NN"}, {"sleeps", "VBZ"}}, []string{"B-NP", "I-NP", "B-VP"}},
}

// ToyTemplate is the CRF++ template of the toy corpus: word, POS, POS
// bigram, label bigrams and POS-conditioned transitions.
const ToyTemplate = "U00:%x[0,0]\nU01:%x[0,1]\nU02:%x[-1,1]/%x[0,1]\nB\nB01:%x[0,1]\n"

// EncodeToy encodes ToyChunks with ToyTemplate and returns the frozen
// encoder, the corpus and the label names (in order of first appearance).
func EncodeToy() (*features.Encoder, *sparse.Corpus, []string, error) {
	cols := make([][][]string, len(ToyChunks))
	labels := make([][]string, len(ToyChunks))
	for i, s := range ToyChunks {
		cols[i], labels[i] = s.Cols, s.Labels
	}
	return EncodeLabeled(ToyTemplate, cols, labels)
}

// EncodeLabeled encodes labeled token columns (cols[i][t] is token t of
// sequence i) with a CRF++ template and returns the frozen encoder, the
// corpus and the label names (in order of first appearance).
func EncodeLabeled(template string, cols [][][]string, labels [][]string) (*features.Encoder, *sparse.Corpus, []string, error) {
	enc := features.NewTemplateEncoder(features.MustCompile(template))
	labelID := map[string]int32{}
	var names []string
	c := &sparse.Corpus{}
	for i, seq := range labels {
		ids := make([]int32, len(seq))
		for t, l := range seq {
			id, ok := labelID[l]
			if !ok {
				id = int32(len(names))
				labelID[l] = id
				names = append(names, l)
			}
			ids[t] = id
		}
		if err := enc.Encode(c, features.Columns(cols[i]), ids, true); err != nil {
			return nil, nil, nil, err
		}
	}
	enc.Freeze(0)
	return enc, c, names, nil
}
