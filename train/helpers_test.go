package train

import (
	"bytes"
	"context"
	"math"
	"slices"
	"testing"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/features"
	"github.com/sparsetag/sparsetag/internal/chaintest"
	"github.com/sparsetag/sparsetag/screen"
	"github.com/sparsetag/sparsetag/sparse"
)

// The shared test data and checks (internal/chaintest).
var (
	approxEqual  = chaintest.ApproxEqual
	approxScalar = chaintest.ApproxScalar
	randomCorpus = chaintest.RandomCorpus
	labelNames   = chaintest.LabelNames
	nextPath     = chaintest.NextPath
)

// trainToy trains a model on the toy corpus (internal/chaintest).
func trainToy(t testing.TB) *chain.Model {
	t.Helper()
	enc, c, labels, err := chaintest.EncodeToy()
	if err != nil {
		t.Fatal(err)
	}
	m, err := chain.NewModel(labels, enc.Unary().Len(), enc.Pair().Len(), enc.HasTransitions(), enc)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Train(context.Background(), m, c, Options{Problem: Problem{BetaRatio: 0.05}, Stopping: Stopping{Epsilon: 1e-9}}); err != nil {
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
	back, err := chain.ReadModel(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	tg := chain.NewTagger(back)
	ids, err := tg.Tag(nil, features.Columns{{"The", "DT"}, {"zebra", "NN"}, {"reckons", "VBZ"}})
	if err != nil {
		t.Fatal(err)
	}
	got := tg.AppendLabels(nil, ids)
	want := []string{"B-NP", "I-NP", "B-VP"}
	if !slices.Equal(got, want) {
		t.Fatalf("tagged %v, want %v (the training data's pattern)", got, want)
	}
}

// keepWorkingSet returns op with the working-set policy kept on the small
// problems of a test (their working sets are dense, which would hand them
// to the full policy).
func keepWorkingSet(op Options) Options {
	return withTuning(op, func(tu *tuning) { tu.wsDenseFraction = math.Inf(1) })
}

// withTuning returns op with its own tuning: op's (or the default) as set
// changes it.
func withTuning(op Options, set func(*tuning)) Options {
	tu := op.tuned()
	set(&tu)
	op.tune = &tu
	return op
}

// everyFeature returns 0, 1, ..., d-1: every feature of a model with d
// weights.
func everyFeature(d int) []int32 {
	all := make([]int32, d)
	for j := range all {
		all[j] = int32(j)
	}
	return all
}

// featureRnorm returns the Pinsker constants Rnorm_j of every feature of the
// model layout (section 4 of the design note), with the sequence weights
// s (nil: unit) of the weighted objective.
func featureRnorm(m *chain.Model, c *sparse.Corpus, s []float64) ([]float64, error) {
	return screen.WeightedRnorm(nil, m.Layout, c, s)
}

// newRnormTable compresses a full-size Rnorm vector.
func newRnormTable(r []float64, L, numUnary int) *rnormTable {
	t := &rnormTable{L: L, stateLen: L * numUnary}
	attr := make([]float64, numUnary)
	for a := range attr {
		attr[a] = r[a*L]
		for y := 1; y < L; y++ {
			if r[a*L+y] != attr[a] {
				t.full = r
				return t
			}
		}
	}
	t.attr = attr
	t.full = append([]float64(nil), r[t.stateLen:]...)
	return t
}
