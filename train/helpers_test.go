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
