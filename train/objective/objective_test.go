package objective

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/internal/chaintest"
	"github.com/sparsetag/sparsetag/sparse"
	"github.com/sparsetag/sparsetag/train/internal/traintest"
	"github.com/stretchr/testify/require"
)

// The shared test data and checks (internal/chaintest).
var (
	approxEqual  = chaintest.ApproxEqual
	approxScalar = chaintest.ApproxScalar
	randomCorpus = chaintest.RandomCorpus
	labelNames   = chaintest.LabelNames
)

// everyFeature returns 0, 1, ..., d-1: every feature of a model with d
// weights.
func everyFeature(d int) []int32 {
	all := make([]int32, d)
	for j := range all {
		all[j] = int32(j)
	}
	return all
}

func TestObjectiveAgainstBruteForce(t *testing.T) {
	for _, tc := range []struct {
		name          string
		L, maxT, pair int
		real, trans   bool
	}{
		{"binary-trans", 3, 4, 0, false, true},
		{"real-trans", 2, 5, 0, true, true},
		{"no-trans", 3, 3, 0, false, false},
		{"pair-attrs", 3, 4, 2, false, true},
		{"multiclass", 4, 1, 0, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, 2))
			c := randomCorpus(rng, 7, tc.maxT, 4, tc.pair, tc.L, tc.real)
			m, err := chain.NewModel(labelNames(tc.L), 4, tc.pair, tc.trans, nil)
			if err != nil {
				t.Fatal(err)
			}
			for j := range m.W {
				m.W[j] = rng.NormFloat64()
			}
			for _, cfg := range []struct{ threads, budget int }{{1, 64 << 20}, {3, 64 << 20}, {1, -1}, {3, -1}} {
				o := New(m, c, Settings{Threads: cfg.threads, FusedBudget: cfg.budget})
				act := make([]int32, len(m.W))
				for j := range act {
					act[j] = int32(j)
				}
				o.SetActive(act, false)
				if o.fused != (cfg.budget > 0) {
					t.Fatalf("budget %d: fused = %v", cfg.budget, o.fused)
				}
				f, mvec, w := evalAt(t, o, act, m.W, nil)
				requireBrute(t, "", func(w []float64) float64 { return traintest.NLL(m, w, c) }, w, act, f, mvec, o)
			}
		})
	}
}

func TestObjectiveCancel(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	c := randomCorpus(rng, 200, 5, 4, 0, 3, false)
	m, _ := chain.NewModel(labelNames(3), 4, 0, true, nil)
	o := New(m, c, Settings{Threads: 2})
	act := []int32{0, 1, 2}
	o.SetActive(act, false)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := o.evalM(ctx, make([]float64, 3), make([]float64, 3)); err == nil {
		t.Fatal("eval with a cancelled context returned no error")
	}
}

// TestObjectiveActiveSubset evaluates on a small active set (label-list mode
// or dense rows, compacted attribute lists or the corpus itself) and
// compares with brute force on the masked weights.
func TestObjectiveActiveSubset(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	c := randomCorpus(rng, 9, 4, 6, 0, 4, true)
	m, _ := chain.NewModel(labelNames(4), 6, 0, true, nil)
	for _, budget := range []int{64 << 20, -1} {
		var act []int32
		for j := 0; j < len(m.W); j++ {
			// Attributes 0-1 dead, attributes 2-5 with label 0 (attribute 5 also 3); all transitions.
			if j >= m.Layout.TransOffset() || (j/4 >= 2 && (j%4 == 0 || (j%4 == 3 && j/4 == 5))) {
				act = append(act, int32(j))
			}
		}
		x := make([]float64, len(act))
		for k := range x {
			x[k] = rng.NormFloat64()
		}
		// The compacted corpus (keep 2: always) and the corpus itself
		// (keep 0), in label-list mode and with dense rows (fraction 0):
		// brute force, and bit for bit the same numbers.
		for _, frac := range []float64{defaultSparseLabelFraction, 0} {
			var f0 float64
			var mv0 []float64
			for _, keep := range []float64{2, 0} {
				o := New(m, c, Settings{Threads: 2, FusedBudget: budget})
				o.tune.liveKeep, o.tune.sparseLabelFraction = keep, frac
				o.SetActive(act, false)
				if o.sparseLabels != (frac > 0) || (o.live == c) != (keep == 0) {
					t.Fatalf("budget %d, keep %g: sparse labels %v, compacted corpus %v", budget, keep, o.sparseLabels, o.live != c)
				}
				f, mv, w := evalAt(t, o, act, x, nil)
				requireBrute(t, "", func(w []float64) float64 { return traintest.NLL(m, w, c) }, w, act, f, mv, nil)
				if keep == 0 {
					require.Equal(t, f0, f, "loss, compacted or not")
					require.Equal(t, mv0, mv, "m, compacted or not")
				}
				f0, mv0 = f, slices.Clone(mv)
			}
		}
	}
}

// TestObjectiveFullLabelRows: in label-list mode, attributes whose every
// label is active take the vector paths (runs of them in scoring, one
// spanadd.Scatter per row in the expected counts and in the full pass's
// column pass) mixed with attributes of one active label, in rows of any
// order. Loss and m over the active set must match brute force and finite
// differences, with the reference expectations fused and not, binary and
// real-valued; m over every feature from the full pass (residualsAll) must
// match an evaluation with every feature active, with the counts of the
// attributes whose features in the list are exactly their active ones
// copied from the evaluation (and of no other attribute, nor after a new
// active set).
func TestObjectiveFullLabelRows(t *testing.T) {
	const L, U = 4, 12
	for _, real := range []bool{false, true} {
		rng := rand.New(rand.NewPCG(15, 16))
		c := randomCorpus(rng, 10, 5, U, 0, L, real)
		m, _ := chain.NewModel(labelNames(L), U, 0, true, nil)
		var act []int32
		for j := 0; j < len(m.W); j++ {
			a, y := j/L, j%L
			// Attributes 0-2 with every label, 3-9 with one, 11 with two,
			// 10 dead.
			full := a <= 2
			if j >= m.Layout.TransOffset() || full || (a <= 9 && y == a%L) || (a == 11 && y >= 2) {
				act = append(act, int32(j))
			}
		}
		x, w := randomPoint(rng, act, len(m.W))
		for _, refFused := range []bool{false, true} {
			o := New(m, c, Settings{Threads: 2, FusedBudget: -1})
			o.tune.liveKeep = 2 // always compact (one dead attribute of 12)
			o.SetActive(act, refFused)
			if !o.sparseLabels || o.refFused != refFused || o.live == c {
				t.Fatalf("real %v: sparse labels %v, fused refs %v, compacted %v", real, o.sparseLabels, o.refFused, o.live != c)
			}
			f, mv, _ := evalAt(t, o, act, x, nil)
			requireBrute(t, "", func(w []float64) float64 { return traintest.NLL(m, w, c) }, w, act, f, mv, nil)

			all := everyFeature(len(m.W))
			got := o.Residuals(nil, all)
			ref := New(m, c, Settings{Threads: 1})
			ref.SetActive(all, false)
			_, err := ref.loss(context.Background(), w)
			require.NoError(t, err)
			approxEqual(t, "m over every feature", ref.mvec, got, 1e-12, 1e-10)
			// Attributes 0-2 have every label active: their counts come
			// from the evaluation, the others' from the scatter.
			for a := range U {
				require.Equal(t, a <= 2, o.counted[a], "attribute %d counted", a)
			}

			// A subset of the features where the partial attributes
			// 3-9 and 11 hold exactly their active labels (counted) and
			// attribute 10 every label (scattered).
			var sub []int32
			for _, j := range all {
				if a := int(j) / L; slices.Contains(act, j) || a == 10 {
					sub = append(sub, j)
				}
			}
			got = o.Residuals(nil, sub)
			for a := range U {
				require.Equal(t, a != 10, o.counted[a], "subset: attribute %d counted", a)
			}
			approxEqual(t, "m over the subset", sparse.Gather(make([]float64, len(sub)), ref.mvec, sub), got, 1e-12, 1e-10)

			// The same number of features per attribute as the active
			// set, other labels for attributes 3-9: not counted.
			var shifted []int32
			for _, j := range act {
				if a, y := int(j)/L, int(j)%L; a >= 3 && a <= 9 && int(j) < m.Layout.TransOffset() {
					j = int32(a*L + (y+1)%L)
				}
				shifted = append(shifted, j)
			}
			slices.Sort(shifted)
			got = o.Residuals(nil, shifted)
			for a := range U {
				require.Equal(t, a <= 2 || a == 11, o.counted[a], "shifted: attribute %d counted", a)
			}
			approxEqual(t, "m over the shifted set", sparse.Gather(make([]float64, len(shifted)), ref.mvec, shifted), got, 1e-12, 1e-10)

			// A new active set makes the counts stale until the next
			// evaluation: every count is scattered again. This one has as
			// many state features, but attribute 0 gives two labels to
			// attribute 10, so the references of attributes 1-2 (full)
			// move: counts copied from the stale evaluation would be
			// those of other features.
			moved := []int32{10 * L, 10*L + 1}
			for _, j := range act {
				if int(j) >= 2 { // not attribute 0's labels 0 and 1
					moved = append(moved, j)
				}
			}
			slices.Sort(moved)
			require.Len(t, moved, len(act))
			o.SetActive(moved, refFused)
			got = o.Residuals(nil, all)
			require.Nil(t, o.countedAttrs(all), "counts of a stale evaluation")
			approxEqual(t, "m over every feature, scattered", ref.mvec, got, 1e-12, 1e-10)
		}
	}
}

// TestObjectiveManyFullLabelAttributes: rows with more full-label
// attributes than fullSpans holds (32), so that a row's deferred additions
// are flushed in the middle of it too, in label-list mode (forced): loss
// against brute force, m over the set and over every feature against an
// evaluation with every feature active (dense rows, no label lists).
func TestObjectiveManyFullLabelAttributes(t *testing.T) {
	const L, U = 3, 90
	rng := rand.New(rand.NewPCG(17, 18))
	c := randomCorpus(rng, 6, 4, U, 0, L, false)
	m, _ := chain.NewModel(labelNames(L), U, 0, true, nil)
	wide := 0
	for p := 0; p < c.Positions(); p++ {
		n := 0
		for _, a := range c.Unary.Col[c.Unary.RowPtr[p]:c.Unary.RowPtr[p+1]] {
			if a < 80 {
				n++
			}
		}
		if n > len(fullSpans{}.s)/2 {
			wide++
		}
	}
	require.Positive(t, wide, "no row with more full-label attributes than the buffer holds")
	var act []int32
	for j := 0; j < len(m.W); j++ {
		if a := j / L; j >= m.Layout.TransOffset() || a < 80 || (a < U && j%L == 0) {
			act = append(act, int32(j))
		}
	}
	x, w := randomPoint(rng, act, len(m.W))
	o := New(m, c, Settings{Threads: 1, FusedBudget: -1})
	o.tune.sparseLabelFraction = 2
	o.SetActive(act, true)
	require.True(t, o.sparseLabels && o.refFused)
	f, err := o.loss(context.Background(), x)
	require.NoError(t, err)
	approxScalar(t, "loss", traintest.NLL(m, w, c), f, 1e-10, 1e-10)

	all := everyFeature(len(m.W))
	ref := New(m, c, Settings{Threads: 1})
	ref.SetActive(all, false)
	_, err = ref.loss(context.Background(), w)
	require.NoError(t, err)
	for k, j := range act {
		approxScalar(t, "m", ref.mvec[j], o.mvec[k], 1e-12, 1e-10)
	}
	approxEqual(t, "m over every feature", ref.mvec, o.Residuals(nil, all), 1e-12, 1e-10)
}

// randomPoint returns normal random weights x over the features act and
// the same point w over all d features.
func randomPoint(rng *rand.Rand, act []int32, d int) (x, w []float64) {
	x, w = make([]float64, len(act)), make([]float64, d)
	for k, j := range act {
		x[k] = rng.NormFloat64()
		w[j] = x[k]
	}
	return x, w
}

// loss evaluates L at x (m stays in o.mvec).
func (o *Objective) loss(ctx context.Context, x []float64) (float64, error) {
	f, _, err := o.Loss(ctx, x)
	return f, err
}

// evalM evaluates the loss at x and copies m into dst.
func (o *Objective) evalM(ctx context.Context, x, dst []float64) (float64, error) {
	f, err := o.loss(ctx, x)
	copy(dst, o.mvec)
	return f, err
}

// TestMaxAbsResidualBlocks: beta_max of the sum form, formed block by
// block (tuning.residualBlock features at a time), is the same number for every
// block size, and equals max |m_j(0)| over every feature from an
// evaluation with every feature active (pair features, real values).
func TestMaxAbsResidualBlocks(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 7))
	c := randomCorpus(rng, 60, 6, 9, 2, 3, true)
	m, err := chain.NewModel(labelNames(3), 9, 2, true, nil)
	require.NoError(t, err)
	all := everyFeature(len(m.W))
	ctx := context.Background()
	var got []float64
	for _, blk := range []int{1, 3, 7, 1 << 20} {
		o := New(m, c, Settings{Threads: 2})
		o.tune.residualBlock = blk
		o.Features().SetAll(all)
		o.SetActive(nil, false)
		_, _, err := o.Loss(ctx, nil)
		require.NoError(t, err)
		got = append(got, o.MaxAbsResidual(o.Features().All))
	}
	for k := range got {
		require.Equal(t, got[0], got[k], "block sizes disagree: %v", got)
	}
	o := New(m, c, Settings{Threads: 2})
	o.Features().SetAll(all)
	o.SetActive(all, false)
	_, mv, err := o.Loss(ctx, make([]float64, len(all)))
	require.NoError(t, err)
	want := 0.0
	for _, v := range mv {
		want = math.Max(want, math.Abs(v))
	}
	require.Greater(t, want, 0.0)
	require.InDelta(t, want, got[0], 1e-12*want)
}
