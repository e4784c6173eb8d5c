package paperbench

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTrainBench runs the solver benchmark on a tiny set: one full and one
// working-set solve, both reaching the gap, whose models agree within the
// distance the two gaps allow.
func TestTrainBench(t *testing.T) {
	var out bytes.Buffer
	rows, err := Train(context.Background(), TrainConfig{Data: []string{"syn1"}, Scale: 0.01, C1: 1, C2: 1,
		Threads: []int{1}, Epsilon: 1e-6, TargetIter: 5, MaxIter: 5000, Budget: time.Minute, Runs: 1}, &out)
	require.NoError(t, err)
	require.Len(t, rows, 2)
	assert.Equal(t, "full", rows[0].Solver)
	assert.Equal(t, "working-set", rows[1].Solver)
	for _, r := range rows {
		assert.Equal(t, "gap", r.StopReason, r.Solver)
		assert.LessOrEqual(t, r.FinalGap, 1e-6, r.Solver)
		assert.GreaterOrEqual(t, r.SecToTarget, 0.0, r.Solver)
		assert.LessOrEqual(t, r.Dist, r.DistBound, r.Solver)
	}
	assert.Contains(t, out.String(), "target objective")
}
