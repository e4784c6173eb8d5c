package objective

import (
	"cmp"
	"context"
	"github.com/sparsetag/sparsetag/corpora"
	"github.com/sparsetag/sparsetag/features"
	"io"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/sparsetag/sparsetag/dataset"
)

// BenchmarkWorkingSetEvaluation times one evaluation of the working-set
// solver's objective (scoring, forward-backward, expected counts and m over
// the set; one thread) on CoNLL-2000's training set (the copy embedded in
// package corpora, CRF++'s chunking template: 8,936 sentences, 211,727
// tokens, 22 labels, 7.4 M features), over a set shaped like the end
// game's of the default run: the transitions, every label of the 500
// attributes of highest occurrence count, and the observed (attribute,
// label) features of highest count among the others, 42,000 state
// features in all, random weights. Per token, 9.5 attributes of the set
// have every label and 6.7 some (the real set: 9.6 and 5.1; the metrics
// full-attrs/token and other-attrs/token).
func BenchmarkWorkingSetEvaluation(b *testing.B) {
	o, x := conllWorkingSet(b, 42000, 500)
	grad := make([]float64, len(x))
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		if _, _, err := o.Evaluate(ctx, x, grad, 1e-4); err != nil {
			b.Fatal(err)
		}
	}
	n := float64(o.c.Positions())
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/token")
	full := 0
	for k := range o.live.Unary.Col {
		if int(o.refSpan[2*k+1]-o.refSpan[2*k]) == o.m.NumLabels() {
			full++
		}
	}
	b.ReportMetric(float64(full)/n, "full-attrs/token")
	b.ReportMetric(float64(len(o.live.Unary.Col)-full)/n, "other-attrs/token")
}

// BenchmarkWorkingSetFullPass times the column pass of a full pass after
// an evaluation: m over every feature from the evaluation's marginals
// (Residuals), on the set of BenchmarkWorkingSetEvaluation.
func BenchmarkWorkingSetFullPass(b *testing.B) {
	o, x := conllWorkingSet(b, 42000, 500)
	if _, err := o.loss(context.Background(), x); err != nil {
		b.Fatal(err)
	}
	all := everyFeature(len(o.m.W))
	var dst []float64
	b.ResetTimer()
	for b.Loop() {
		dst = o.Residuals(dst, all)
	}
}

// conllWorkingSet returns the objective over CoNLL-2000 with the working
// set described at BenchmarkWorkingSetEvaluation, and weights over it.
func conllWorkingSet(b *testing.B, size, fullAttrs int) (*Objective, []float64) {
	b.Helper()
	seqs, err := corpora.EmbeddedCoNLL2000("train")
	if err != nil {
		b.Fatal(err)
	}
	exs := make([]dataset.Example, len(seqs))
	for i, s := range seqs {
		exs[i] = dataset.FromSequence("conll2000/train.txt", s)
	}
	rc, err := corpora.OpenEmbedded("conll2000/chunking.template")
	if err != nil {
		b.Fatal(err)
	}
	src, err := io.ReadAll(rc)
	rc.Close()
	if err != nil {
		b.Fatal(err)
	}
	tm, err := features.Compile(string(src))
	if err != nil {
		b.Fatal(err)
	}
	enc, err := dataset.NewEncoder(dataset.CoNLL, tm)
	if err != nil {
		b.Fatal(err)
	}
	m, c, err := dataset.NewTrainingModel(enc, exs, 1)
	if err != nil {
		b.Fatal(err)
	}
	L := m.NumLabels()
	// The attributes of highest occurrence count take every label; the
	// rest of the set is the observed features of highest count among the
	// others.
	occ := make([]int, m.Layout.NumUnary)
	count := make(map[int32]int)
	for p := 0; p < c.Positions(); p++ {
		cols, _ := c.Unary.Row(p)
		for _, a := range cols {
			occ[a]++
			count[a*int32(L)+c.Labels[p]]++
		}
	}
	attrs := make([]int32, m.Layout.NumUnary)
	for a := range attrs {
		attrs[a] = int32(a)
	}
	slices.SortFunc(attrs, func(a, b int32) int { return cmp.Or(cmp.Compare(occ[b], occ[a]), cmp.Compare(a, b)) })
	full := make(map[int32]bool, fullAttrs)
	var act []int32
	for _, a := range attrs[:fullAttrs] {
		full[a] = true
		for y := range int32(L) {
			act = append(act, a*int32(L)+y)
		}
	}
	obs := make([]int32, 0, len(count))
	for j := range count {
		if !full[j/int32(L)] {
			obs = append(obs, j)
		}
	}
	slices.SortFunc(obs, func(i, j int32) int {
		return cmp.Or(cmp.Compare(count[j], count[i]), cmp.Compare(i, j))
	})
	act = append(act, obs[:min(size-len(act), len(obs))]...)
	for j := m.Layout.StateLen(); j < len(m.W); j++ {
		act = append(act, int32(j))
	}
	slices.Sort(act)
	o := New(m, c, Settings{Threads: 1})
	o.SetActive(act, true)
	if !o.sparseLabels || !o.refFused {
		b.Fatalf("label lists %v, fused references %v: not the working set's scoring", o.sparseLabels, o.refFused)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	x := make([]float64, len(act))
	for k := range x {
		x[k] = 0.3 * rng.NormFloat64()
	}
	return o, x
}
