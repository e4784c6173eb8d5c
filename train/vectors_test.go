package train

import (
	"context"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/features"
	"github.com/sparsetag/sparsetag/internal/numtest"
	"github.com/sparsetag/sparsetag/screen"
	"github.com/sparsetag/sparsetag/sparse"
	"github.com/sparsetag/sparsetag/train/internal/traintest"
	"github.com/sparsetag/sparsetag/train/objective"
)

// vectorTemplate reads word vectors at offsets -1 and 0, a valued column
// (1) alone and in a conjunction with the word, and the valued column in
// a pair attribute: every way a template reaches real, signed values.
const vectorTemplate = "U00:%x[0,0]\nUV:%v[0,0]\nUP:%v[-1,0]\nUF:%x[0,1]\nUW:%x[0,0]/%x[0,1]\nB\nB01:%x[0,1]\n"

// randomEmbeddings returns random signed vectors of dimension dim for
// every word but the last (a word without a vector); a fifth of the
// coordinates are 0.
func randomEmbeddings(t *testing.T, rng *rand.Rand, words []string, dim int) *features.Embeddings {
	t.Helper()
	vecs := make([]float64, (len(words)-1)*dim)
	for k := range vecs {
		if rng.IntN(5) > 0 {
			vecs[k] = 3 * rng.NormFloat64()
		}
	}
	emb, err := features.NewEmbeddings(words[:len(words)-1], vecs, dim)
	if err != nil {
		t.Fatal(err)
	}
	return emb
}

// vectorCorpus encodes n random labelled sentences of 1 to maxT tokens
// through the template encoder with random signed word vectors (dimension
// 3, one word of the sentences without a vector) and a valued column of
// signed values. It returns the corpus and a model for it.
func vectorCorpus(t *testing.T, rng *rand.Rand, n, maxT, L int) (*sparse.Corpus, *chain.Model) {
	t.Helper()
	words := []string{"the", "Dog", "cat", "ran", "sat", "emu"}
	const dim = 3
	emb := randomEmbeddings(t, rng, words, dim)
	enc, err := features.WithValued(features.NewTemplateEncoder(features.MustCompile(vectorTemplate)),
		features.Valued{Columns: []int{1}, Embeddings: emb})
	if err != nil {
		t.Fatal(err)
	}
	c := &sparse.Corpus{}
	for range n {
		T := 1 + rng.IntN(maxT)
		cols := make(features.Columns, T)
		labels := make([]int32, T)
		for k := range cols {
			item := []string{"f", "g"}[rng.IntN(2)] + ":" + strconv.FormatFloat(math.Round(20*rng.NormFloat64())/10, 'g', -1, 64)
			cols[k] = []string{words[rng.IntN(len(words))], item}
			labels[k] = int32(rng.IntN(L))
		}
		if err := enc.Encode(c, cols, labels, true); err != nil {
			t.Fatal(err)
		}
	}
	if c.Unary.Val == nil || c.Pair.Val == nil {
		t.Fatal("the corpus has no values")
	}
	m, err := chain.NewModel(labelNames(L), c.NumUnary, c.NumPair, true, enc)
	if err != nil {
		t.Fatal(err)
	}
	return c, m
}

// TestVectorObjectiveBruteForce checks the objective on features reached
// through word vectors and valued columns: its value against enumeration
// of every label sequence, its gradient against central finite
// differences of that enumeration.
func TestVectorObjectiveBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(38, 2))
	c, m := vectorCorpus(t, rng, 6, 3, 3)
	w := make([]float64, len(m.W))
	for j := range w {
		w[j] = 0.5 * rng.NormFloat64()
	}
	o := objective.New(m, c, objective.Settings{Threads: 1})
	act := make([]int32, len(w))
	for j := range act {
		act[j] = int32(j)
	}
	o.SetActive(act, false)
	f, mv, err := o.Loss(context.Background(), w)
	if err != nil {
		t.Fatal(err)
	}
	numtest.RequireClose(t, traintest.NLL(m, w, c), f, 1e-12, 1e-12, "loss")
	const h = 1e-5
	fd := make([]float64, len(w))
	for j := range w {
		x := w[j]
		w[j] = x + h
		up := traintest.NLL(m, w, c)
		w[j] = x - h
		down := traintest.NLL(m, w, c)
		w[j] = x
		fd[j] = -(up - down) / (2 * h) // m = -grad
	}
	numtest.RequireSlices(t, fd, mv, 1e-7, 1e-6, "m = -grad against finite differences")
}

// TestVectorScreenedEqualsUnscreened: on vector data, the model trained
// with the Pinsker rule equals the unscreened one within the distance
// the final gaps certify, and the static range rule removes only features
// that are zero at a tight optimum (sum form), and removes some, while
// quartered bounds (an unsafe rule) would remove a non-zero one.
func TestVectorScreenedEqualsUnscreened(t *testing.T) {
	if testing.Short() {
		t.Skip("trains to a gap of 1e-12")
	}
	rng := rand.New(rand.NewPCG(38, 3))
	c, m0 := vectorCorpus(t, rng, 40, 5, 3)
	fit := func(op Options) (*chain.Model, *Result) {
		m, err := chain.NewModel(m0.Labels, c.NumUnary, c.NumPair, true, nil)
		if err != nil {
			t.Fatal(err)
		}
		op.Stopping.MaxIter, op.Resources.Threads = 20000, 1
		res, err := Train(context.Background(), m, c, op)
		if err != nil {
			t.Fatal(err)
		}
		if !res.Converged {
			t.Fatalf("%+v: not converged (%s, gap %v)", op.Problem, res.StopReason, res.Gap)
		}
		return m, res
	}
	screened := 0
	for _, ratio := range []float64{0.5, 0.2, 0.05} {
		tight, rt := fit(Options{Problem: Problem{BetaRatio: ratio}, Stopping: Stopping{Epsilon: 1e-13}, Method: Method{Screen: ScreenNone}})
		scr, rs := fit(Options{Problem: Problem{BetaRatio: ratio}, Stopping: Stopping{Epsilon: 1e-10}, Method: Method{Screen: ScreenPinsker}})
		bound := math.Sqrt(2*rs.Gap/(rs.Alpha*rs.Beta)) + math.Sqrt(2*rt.Gap/(rt.Alpha*rt.Beta))
		dist := 0.0
		for j := range tight.W {
			dist += (tight.W[j] - scr.W[j]) * (tight.W[j] - scr.W[j])
		}
		if math.Sqrt(dist) > bound {
			t.Fatalf("ratio %g: ||w_screened - w_unscreened|| = %g > bound %g", ratio, math.Sqrt(dist), bound)
		}
		screened += rs.Screened
		t.Logf("ratio %g: Pinsker screened %d of %d, non-zero %d, dist %.2g (bound %.2g)", ratio, rs.Screened, rs.Dimension, rt.NonZero, math.Sqrt(dist), bound)
	}
	if screened == 0 {
		t.Error("the Pinsker rule screened nothing: a vacuous test")
	}
	c, m0 = vectorCorpus(t, rng, 10, 4, 2) // few occurrences per attribute, as for rare words
	B, err := screen.RangeBounds(nil, m0.Layout, c)
	if err != nil {
		t.Fatal(err)
	}
	removed, caught := 0, 0
	half := make([]float64, len(B))
	for j := range B {
		half[j] = B[j] / 4
	}
	for _, c1 := range []float64{0.5, 1, 2, 3, 5} {
		m, res := fit(Options{Problem: Problem{SumForm: true, C1: c1, C2: 0.1}, Stopping: Stopping{Epsilon: 1e-12}, Method: Method{Screen: ScreenNone}})
		rad := math.Sqrt(2 * res.Gap / res.Lambda2)
		scr := make([]bool, len(B))
		removed += screen.RangeScreen(scr, B, c1)
		unsafe := make([]bool, len(B))
		screen.RangeScreen(unsafe, half, c1)
		for j, w := range m.W {
			if unsafe[j] && math.Abs(w) > rad {
				caught++
			}
			if scr[j] && w != 0 {
				t.Fatalf("c1 = %v: feature %d has B = %v <= c1 but w = %v (certified radius %v)", c1, j, B[j], w, rad)
			}
		}
	}
	if removed == 0 || caught == 0 {
		t.Errorf("vacuous test: the static rule removed %d features; quartered bounds would remove %d certainly non-zero ones", removed, caught)
	}
}
