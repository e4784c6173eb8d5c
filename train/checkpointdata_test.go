package train

import (
	"bytes"
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/sparse"
)

// TestCheckpointRefusesOtherData: a checkpoint taken in a run with
// sequence weights resumes to the same model bits as the uninterrupted
// run with the same data and weights, and is refused, with a message
// naming what differs, by a run with other weights, without weights, with
// other labels (same size) or with fewer sequences.
func TestCheckpointRefusesOtherData(t *testing.T) {
	rng := rand.New(rand.NewPCG(71, 72))
	const L, attrs = 3, 10
	c := randomCorpus(rng, 60, 5, attrs, 0, L, false)
	s := randomSeqWeights(rng, c.Len())
	op := Options{Problem: Problem{C1: 0.3, C2: 0.3, Weights: s}, Stopping: Stopping{Epsilon: 1e-10}, Method: Method{Screen: ScreenPinsker}, Hooks: Hooks{CheckpointEvery: 5}}
	var saved []byte
	op.Checkpoint = func(ck *Checkpoint) error {
		if saved == nil {
			var b bytes.Buffer
			if _, err := ck.WriteTo(&b); err != nil {
				return err
			}
			saved = b.Bytes()
		}
		return nil
	}
	full, _ := trainTiny(t, c, L, attrs, op)
	if saved == nil {
		t.Fatal("no checkpoint taken")
	}
	op.Checkpoint = nil
	resume := func(c *sparse.Corpus, w []float64) (*chain.Model, error) {
		ck, err := ReadCheckpoint(bytes.NewReader(saved))
		if err != nil {
			t.Fatal(err)
		}
		o := op
		o.Resume, o.Weights = ck, w
		m, err := chain.NewModel(labelNames(L), attrs, c.NumPair, true, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, err = Train(context.Background(), m, c, o)
		return m, err
	}
	m, err := resume(c, slices.Clone(s))
	if err != nil {
		t.Fatal(err)
	}
	for j := range full.W {
		if math.Float64bits(full.W[j]) != math.Float64bits(m.W[j]) {
			t.Fatalf("resumed: weight %d = %v, uninterrupted %v", j, m.W[j], full.W[j])
		}
	}
	other := slices.Clone(s)
	other[7] *= 1.5
	relabeled := *c
	relabeled.Labels = slices.Clone(c.Labels)
	relabeled.Labels[3] = (relabeled.Labels[3] + 1) % L
	fewer := *c
	fewer.SeqPtr = c.SeqPtr[:len(c.SeqPtr)-1]
	np := c.SeqPtr[len(c.SeqPtr)-2]
	fewer.Unary.RowPtr, fewer.Labels = c.Unary.RowPtr[:np+1], c.Labels[:np]
	fewer.Unary.Col = c.Unary.Col[:c.Unary.RowPtr[np]]
	for _, tc := range []struct {
		name string
		c    *sparse.Corpus
		w    []float64
		want string
	}{{"other weights", c, other, "sequence weights of digest"}, {"no weights", c, nil, "this run has no sequence weights"},
		{"other labels", &relabeled, s, "same size but other contents"}, {"fewer sequences", &fewer, s[:len(s)-1], "this run's 59 and 182"}} {
		if _, err := resume(tc.c, tc.w); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: resume error %v, want one saying %q", tc.name, err, tc.want)
		}
	}
}
