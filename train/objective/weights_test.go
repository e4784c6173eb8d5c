package objective

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/sparse"
	"github.com/sparsetag/sparsetag/train/internal/traintest"
)

// randomWeights returns n sequence weights in [0.2, 3.2).
func randomWeights(rng *rand.Rand, n int) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = 0.2 + 3*rng.Float64()
	}
	return s
}

// requireWeightedBrute checks the loss f at w against the weighted brute
// force and m over act (mv) against its central differences.
func requireWeightedBrute(t *testing.T, m *chain.Model, w []float64, c *sparse.Corpus, s []float64, act []int32, f float64, mv []float64) {
	t.Helper()
	approxScalar(t, "weighted loss", traintest.WeightedNLL(m, w, c, s), f, 1e-10, 1e-10)
	const h = 1e-5
	for k, j := range act {
		w[j] += h
		fp := traintest.WeightedNLL(m, w, c, s)
		w[j] -= 2 * h
		fm := traintest.WeightedNLL(m, w, c, s)
		w[j] += h
		approxScalar(t, "weighted m", -(fp-fm)/(2*h), mv[k], 1e-7, 1e-6)
	}
}

// TestWeightedObjective: with sequence weights the loss is (1/n) sum_i
// s_i NLL_i by enumeration and m its negative gradient by central
// differences, on every accumulation path (fused per-shard buffers, the
// scatter pass, label lists with per-reference buffers of a working set)
// and for 1 and 3 threads, with transitions, pair attributes and real
// values; the full pass's m over every feature (Residuals) agrees with
// it; and nil weights give the same bits as no call at all.
func TestWeightedObjective(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name          string
		L, maxT, pair int
		real          bool
	}{
		{"binary", 3, 4, 0, false},
		{"real-pairs", 3, 4, 2, true},
		{"multiclass", 4, 1, 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(36, 5))
			c := randomCorpus(rng, 7, tc.maxT, 4, tc.pair, tc.L, tc.real)
			s := randomWeights(rng, c.Len())
			m, err := chain.NewModel(labelNames(tc.L), 4, tc.pair, true, nil)
			require.NoError(t, err)
			all := everyFeature(len(m.W))
			x, w := randomPoint(rng, all, len(m.W))
			for _, cfg := range []struct {
				threads, budget int
				frac            float64
				ws              bool
			}{{1, 64 << 20, 0.5, false}, {3, 64 << 20, 0.5, false}, {1, -1, 0.5, false}, {3, -1, 0.5, false}, {2, -1, 2, true}} {
				o := New(m, c, Settings{Threads: cfg.threads, FusedBudget: cfg.budget})
				o.tune.sparseLabelFraction = cfg.frac
				require.NoError(t, o.SetWeights(s))
				o.SetActive(all, cfg.ws)
				mv := make([]float64, len(all))
				f, err := o.evalM(ctx, x, mv)
				require.NoError(t, err)
				requireWeightedBrute(t, m, w, c, s, all, f, mv)
				approxEqual(t, "Residuals", mv, o.Residuals(nil, all), 1e-12, 1e-10)
			}
			// nil weights: the bits of an objective never given any.
			a, b := New(m, c, Settings{Threads: 2}), New(m, c, Settings{Threads: 2})
			require.NoError(t, b.SetWeights(s))
			require.NoError(t, b.SetWeights(nil))
			a.SetActive(all, false)
			b.SetActive(all, false)
			fa, ma, err := a.Loss(ctx, x)
			require.NoError(t, err)
			ma = append([]float64(nil), ma...)
			fb, mb, err := b.Loss(ctx, x)
			require.NoError(t, err)
			require.Equal(t, fa, fb)
			require.Equal(t, ma, mb)
		})
	}
}

// TestWeightTwoIsDuplicate: a weight of 2 on a sequence gives the loss
// and m of the corpus with that sequence twice and n + 1 sequences, up
// to the factor n / (n + 1) of the average.
func TestWeightTwoIsDuplicate(t *testing.T) {
	rng := rand.New(rand.NewPCG(36, 6))
	c := randomCorpus(rng, 6, 4, 4, 1, 3, true)
	m, err := chain.NewModel(labelNames(3), 4, 1, true, nil)
	require.NoError(t, err)
	dup := traintest.Duplicate(c, 2)
	s := []float64{1, 1, 2, 1, 1, 1}
	all := everyFeature(len(m.W))
	x, _ := randomPoint(rng, all, len(m.W))
	o := New(m, c, Settings{Threads: 2})
	require.NoError(t, o.SetWeights(s))
	o.SetActive(all, false)
	f, mv, err := o.Loss(context.Background(), x)
	require.NoError(t, err)
	mv = append([]float64(nil), mv...)
	d := New(m, dup, Settings{Threads: 2})
	d.SetActive(all, false)
	fd, md, err := d.Loss(context.Background(), x)
	require.NoError(t, err)
	r := float64(dup.Len()) / float64(c.Len())
	approxScalar(t, "loss", fd*r, f, 1e-12, 1e-12)
	for k := range md {
		approxScalar(t, "m", md[k]*r, mv[k], 1e-12, 1e-12)
	}
}

func TestSetWeightsRefusesBadWeights(t *testing.T) {
	rng := rand.New(rand.NewPCG(36, 7))
	c := randomCorpus(rng, 3, 3, 2, 0, 2, false)
	m, _ := chain.NewModel(labelNames(2), 2, 0, true, nil)
	o := New(m, c, Settings{})
	for _, s := range [][]float64{{1, 1}, {1, 0, 1}, {1, -1, 1}, {1, 1, math.NaN()}, {1, 1, math.Inf(1)}} {
		require.Error(t, o.SetWeights(s), "weights %v", s)
	}
}
