package train

import (
	"context"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/features"
	"github.com/sparsetag/sparsetag/inference"
	"github.com/sparsetag/sparsetag/internal/lattice"
	"github.com/sparsetag/sparsetag/sparse"
)

// vectorCorpora encodes n random labelled sentences as vectorCorpus does,
// twice: with the sparse encoding and with dense blocks for the pure %v
// lines (features.Encoder.DenseVectors).
func vectorCorpora(t *testing.T, rng *rand.Rand, n, maxT, L int) (sp, dn *sparse.Corpus, labels []string) {
	t.Helper()
	words := []string{"the", "Dog", "cat", "ran", "sat", "emu", "owl"}
	const dim = 4
	emb := randomEmbeddings(t, rng, words, dim)
	var err error
	var encs [2]*features.Encoder
	for k := range encs {
		if encs[k], err = features.WithValued(features.NewTemplateEncoder(features.MustCompile(vectorTemplate)),
			features.Valued{Columns: []int{1}, Embeddings: emb}); err != nil {
			t.Fatal(err)
		}
	}
	encs[1] = encs[1].DenseVectors()
	sp, dn = &sparse.Corpus{}, &sparse.Corpus{}
	for range n {
		T := 1 + rng.IntN(maxT)
		cols := make(features.Columns, T)
		ys := make([]int32, T)
		for k := range cols {
			item := []string{"f", "g"}[rng.IntN(2)] + ":" + strconv.FormatFloat(math.Round(20*rng.NormFloat64())/10, 'g', -1, 64)
			w := words[rng.IntN(len(words))]
			cols[k] = []string{w, item}
			ys[k] = int32(rng.IntN(L))
			if w == "the" || w == "owl" { // a signal the vectors carry
				ys[k] = 0
			}
		}
		for k, c := range []*sparse.Corpus{sp, dn} {
			if err := encs[k].Encode(c, cols, ys, true); err != nil {
				t.Fatal(err)
			}
		}
	}
	if len(dn.Dense) != 2 {
		t.Fatalf("%d dense blocks, want 2", len(dn.Dense))
	}
	return sp, dn, labelNames(L)
}

// TestTrainDenseBlocks trains on a corpus with dense blocks and on its
// sparse encoding, with the default solver (warm start, screening, the
// working set) and without screening: the models are within the distance
// the two certified gaps allow, and tag the training data alike.
func TestTrainDenseBlocks(t *testing.T) {
	rng := rand.New(rand.NewPCG(38, 9))
	sp, dn, labels := vectorCorpora(t, rng, 150, 6, 3)
	for _, scr := range []ScreenRule{ScreenPinsker, ScreenNone} {
		var ms [2]*chain.Model
		var rs [2]*Result
		for k, c := range []*sparse.Corpus{sp, dn} {
			m, err := chain.NewModel(labels, c.NumUnary, c.NumPair, true, nil)
			if err != nil {
				t.Fatal(err)
			}
			op := Options{Problem: Problem{SumForm: true, C1: 0.2, C2: 0.1}, Stopping: Stopping{Epsilon: 1e-9, MaxIter: 5000},
				Method: Method{Screen: scr}}
			op.Resources.Threads = 2
			res, err := Train(context.Background(), m, c, op)
			if err != nil {
				t.Fatal(err)
			}
			if !res.Converged {
				t.Fatalf("%v: not converged (%s)", scr, res.StopReason)
			}
			ms[k], rs[k] = m, res
		}
		bound := math.Sqrt(2*rs[0].Gap/rs[0].Lambda2) + math.Sqrt(2*rs[1].Gap/rs[1].Lambda2)
		dist := 0.0
		for j := range ms[0].W {
			dist += (ms[0].W[j] - ms[1].W[j]) * (ms[0].W[j] - ms[1].W[j])
		}
		if math.Sqrt(dist) > bound || ms[0].NonZero() == 0 {
			t.Fatalf("%v: ||w_dense - w_sparse|| = %g, certified bound %g (%d non-zero)", scr, math.Sqrt(dist), bound, ms[0].NonZero())
		}
		if d := tagDiff(ms[0], ms[1], sp); d != 0 {
			t.Errorf("%v: %d tokens tagged differently", scr, d)
		}
		t.Logf("%v: dist %.3g, bound %.3g, screened %d and %d, non-zero %d", scr, math.Sqrt(dist), bound, rs[0].Screened, rs[1].Screened, ms[0].NonZero())
	}
}

// tagDiff returns the number of positions of c that the Viterbi paths of
// models a and b label differently.
func tagDiff(a, b *chain.Model, c *sparse.Corpus) int {
	var sa, sb lattice.Scratch
	ws := inference.NewWorkspace(c.MaxLen(), a.NumLabels())
	diff := 0
	for i := range c.Len() {
		_, T := c.Span(i)
		pa, pb := make([]int, T), make([]int, T)
		inference.Viterbi(ws, lattice.Score(&sa, a.Layout, a.W, c, i), pa)
		inference.Viterbi(ws, lattice.Score(&sb, b.Layout, b.W, c, i), pb)
		for t := range pa {
			if pa[t] != pb[t] {
				diff++
			}
		}
	}
	return diff
}
