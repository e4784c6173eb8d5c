package train

import (
	"context"
	"math"
	"testing"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/features"
	"github.com/sparsetag/sparsetag/internal/chaintest"
	"github.com/sparsetag/sparsetag/sparse"
)

// TestWeightsFromContinuesTraining maps a trained model onto a model with a
// reordered label set and checks that (a) every shared weight is copied by
// name and (b) training from it reaches the same optimum as training from
// zero, in fewer iterations.
func TestWeightsFromContinuesTraining(t *testing.T) {
	old := trainToy(t)
	// The same data, encoded afresh with the labels in another order.
	enc := features.NewTemplateEncoder(features.MustCompile(chaintest.ToyTemplate))
	labels := []string{"I-NP", "B-VP", "B-NP"}
	c := &sparse.Corpus{}
	for _, s := range chaintest.ToyChunks {
		ids := make([]int32, len(s.Labels))
		for i, l := range s.Labels {
			for k, name := range labels {
				if name == l {
					ids[i] = int32(k)
				}
			}
		}
		if err := enc.Encode(c, features.Columns(s.Cols), ids, true); err != nil {
			t.Fatal(err)
		}
	}
	enc.Freeze(0)
	m, _ := chain.NewModel(labels, enc.Unary().Len(), enc.Pair().Len(), true, enc)
	init := m.WeightsFrom(old)
	L, oL := 3, old.NumLabels()
	for a := 0; a < m.Layout.NumUnary; a++ {
		oa, _ := old.Encoder.Unary().ID(enc.Unary().Name(int32(a)))
		for y := 0; y < L; y++ {
			if got, want := init[a*L+y], old.State[int(oa)*oL+old.LabelID(labels[y])]; got != want {
				t.Fatalf("state (%s, %s) = %v, want %v", enc.Unary().Name(int32(a)), labels[y], got, want)
			}
		}
	}
	op := Options{Problem: Problem{BetaRatio: 0.05}, Stopping: Stopping{Epsilon: 1e-9}}
	cold, _ := chain.NewModel(labels, enc.Unary().Len(), enc.Pair().Len(), true, enc)
	rc, err := Train(context.Background(), cold, c, op)
	if err != nil {
		t.Fatal(err)
	}
	op.Init = init
	rw, err := Train(context.Background(), m, c, op)
	if err != nil {
		t.Fatal(err)
	}
	if len(rw.Iterations) >= len(rc.Iterations) {
		t.Errorf("warm start took %d iterations, cold %d", len(rw.Iterations), len(rc.Iterations))
	}
	bound := math.Sqrt(2*rw.Gap/(rw.Alpha*rw.Beta)) + math.Sqrt(2*rc.Gap/(rc.Alpha*rc.Beta))
	d := 0.0
	for j := range m.W {
		d += (m.W[j] - cold.W[j]) * (m.W[j] - cold.W[j])
	}
	if math.Sqrt(d) > bound {
		t.Fatalf("warm and cold solutions differ by %g > %g", math.Sqrt(d), bound)
	}
}
