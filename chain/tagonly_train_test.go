package chain_test

import (
	"bytes"
	"context"
	"math"
	"slices"
	"testing"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/features"
	"github.com/sparsetag/sparsetag/internal/chaintest"
	"github.com/sparsetag/sparsetag/train"
)

// pairTemplate is toyTemplate plus observation-conditioned transitions.
const pairTemplate = toyTemplate + "B01:%x[0,1]\nB02:%x[-1,1]/%x[0,1]\n"

// trainedToy trains a model with pair features on the toy corpus under an
// L1 penalty strong enough to leave some attributes without a weight.
func trainedToy(t *testing.T) *chain.Model {
	t.Helper()
	tokens, labels := parseToy()
	enc, c, names, err := chaintest.EncodeLabeled(pairTemplate, tokens, labels)
	if err != nil {
		t.Fatal(err)
	}
	m, err := chain.NewModel(names, enc.Unary().Len(), enc.Pair().Len(), enc.HasTransitions(), enc)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := train.Train(context.Background(), m, c, train.Options{Problem: train.Problem{BetaRatio: 0.05}}); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestTagOnlyTrained: a trained model with pair features, saved and loaded
// tag-only, tags, decodes (n-best, posterior, BIO constraints, forced
// labels) and explains every toy sentence and unseen ones exactly as the
// model loaded in full.
func TestTagOnlyTrained(t *testing.T) {
	m := trainedToy(t)
	data, err := m.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	full, err := chain.ReadModel(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if full.Layout.NumPair == 0 || full.NonZero() == 0 {
		t.Fatalf("trained model has %d pair attributes and %d non-zeros: the test exercises little", full.Layout.NumPair, full.NonZero())
	}
	ft := chain.NewTagger(full)
	lt, err := chain.ReadTagger(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if lt.Model() != nil || !slices.Equal(lt.Labels(), full.Labels) || lt.Layout() != full.Layout || lt.NonZero() != full.NonZero() {
		t.Fatalf("tag-only Tagger: model %v labels %v layout %+v non-zeros %d", lt.Model(), lt.Labels(), lt.Layout(), lt.NonZero())
	}
	tokens, _ := parseToy()
	tokens = append(tokens, [][]string{{"a", "DT"}, {"zebra", "NN"}, {"flies", "VBZ"}}, [][]string{{"xyz", "??"}})
	bio := chain.BIOConstraints(full.Labels)
	for _, toks := range tokens {
		in := features.Columns(toks)
		fixed := make([]int, len(toks))
		for p := range fixed {
			fixed[p] = -1
		}
		fixed[len(fixed)-1] = 0
		for _, opt := range []chain.DecodeOptions{{}, {N: 5}, {Posterior: true, Constraints: bio}, {Fixed: fixed, Posterior: true}} {
			var dw, dg chain.Decoding
			errW, errG := ft.Decode(&dw, in, opt), lt.Decode(&dg, in, opt)
			if (errW == nil) != (errG == nil) || !sameDecodings(&dw, &dg) {
				t.Fatalf("%v %+v: tag-only decodes %+v (%v), want %+v (%v)", toks, opt, dg, errG, dw, errW)
			}
			if errW != nil {
				continue
			}
			ew, errW := ft.Explain(in, dw.Best())
			eg, errG := lt.Explain(in, dw.Best())
			if errW != nil || errG != nil || !sameExplanations(ew, eg) {
				t.Fatalf("%v: tag-only explains\n%+v (%v)\nwant\n%+v (%v)", toks, eg, errG, ew, errW)
			}
		}
	}
}

func sameDecodings(a, b *chain.Decoding) bool {
	return slices.EqualFunc(a.Paths, b.Paths, slices.Equal) && sameFloats(a.Scores, b.Scores) &&
		sameFloats(a.Probs, b.Probs) && sameFloats([]float64{a.LogZ}, []float64{b.LogZ}) && sameFloats(a.Marginal, b.Marginal)
}

func sameExplanations(a, b []chain.TokenExplanation) bool {
	return slices.EqualFunc(a, b, func(x, y chain.TokenExplanation) bool {
		same := func(p, q chain.Contribution) bool {
			return p.Attr == q.Attr && p.Name == q.Name && math.Float64bits(p.Value) == math.Float64bits(q.Value)
		}
		return x.Label == y.Label && x.Prev == y.Prev && x.RunnerUp == y.RunnerUp && sameFloats(x.State, y.State) &&
			sameFloats([]float64{x.Trans}, []float64{y.Trans}) && slices.EqualFunc(x.Attrs, y.Attrs, same) && slices.EqualFunc(x.Pairs, y.Pairs, same)
	})
}

func sameFloats(a, b []float64) bool {
	return slices.EqualFunc(a, b, func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) })
}
