package train

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/train/internal/traintest"
)

// TestPathExtend: a score still rising at MinRatio extends the path below
// it, on the same geometric grid, until it has peaked (Patience), or down
// to the hard floor Extend; a score that peaked above the floor, or no
// Extend, leaves the path as it was.
func TestPathExtend(t *testing.T) {
	rng := rand.New(rand.NewPCG(61, 62))
	c := randomCorpus(rng, 30, 4, 6, 0, 3, false)
	const K, patience = 5, 2
	run := func(peakAt int, extend float64) []*Result {
		t.Helper()
		m, _ := chain.NewModel(labelNames(3), 6, 0, true, nil)
		res, err := Path(context.Background(), m, c, Options{}, PathOptions{K: K, MinRatio: 1e-2, Patience: patience, Extend: extend, Score: traintest.CountingScore(peakAt)}, nil)
		require.NoError(t, err)
		return res
	}
	// Rising at the floor (peak at the 8th beta): 3 betas below the
	// grid, then patience betas below the peak.
	res := run(7, 1e-6)
	require.Len(t, res, 7+1+patience)
	assert.Equal(t, 7+1+patience-K, Extended(res, K))
	assert.Equal(t, 7, Selected(res))
	for k, r := range res {
		approxScalar(t, "ratio", math.Pow(1e-2, float64(k)/(K-1)), r.Beta/r.BetaMax, 0, 1e-12)
	}
	// The hard floor: 1e-2 * 1e-1 allows the grid points down to 10^-3,
	// that is 2 more betas, while the score still rises.
	res = run(20, 1e-3*(1-1e-9))
	require.Len(t, res, K+2)
	assert.Equal(t, K+1, Selected(res), "the last beta, at the hard floor")
	// Peaked above the floor, or no Extend: the grid as given.
	assert.Len(t, run(1, 1e-6), 1+1+patience)
	assert.Len(t, run(20, 0), K)
	// Extend must lie below MinRatio.
	m, _ := chain.NewModel(labelNames(3), 6, 0, true, nil)
	_, err := Path(context.Background(), m, c, Options{}, PathOptions{K: K, MinRatio: 1e-2, Extend: 0.1, Score: traintest.CountingScore(0)}, nil)
	assert.ErrorContains(t, err, "hard floor")
}
