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
		Threads: []int{1}, Epsilon: 1e-6, TargetIter: 5, MaxIter: 5000, Budget: time.Minute, Runs: 1,
		Certificates: []string{"mixture", "model"}}, &out)
	require.NoError(t, err)
	require.Len(t, rows, 3)
	assert.Equal(t, "full", rows[0].Solver)
	for k, cert := range []string{"mixture", "model"} {
		assert.Equal(t, "working-set", rows[k+1].Solver)
		assert.Equal(t, cert, rows[k+1].Certificate)
	}
	for _, r := range rows {
		what := r.Solver + " " + r.Certificate
		assert.Equal(t, "gap", r.StopReason, what)
		assert.LessOrEqual(t, r.FinalGap, 1e-6, what)
		assert.GreaterOrEqual(t, r.SecToTarget, 0.0, what)
		assert.LessOrEqual(t, r.Dist, r.DistBound, what)
		// One curve point per full pass, passes over the data increasing,
		// the last point the final gap.
		require.Len(t, r.Curve, r.Passes, what)
		for i := 1; i < len(r.Curve); i++ {
			assert.Greater(t, r.Curve[i].Evaluations, r.Curve[i-1].Evaluations, what)
		}
		assert.Equal(t, r.FinalGap, r.Curve[len(r.Curve)-1].Gap, what)
		assert.GreaterOrEqual(t, r.Evaluations, r.Iterations, what)
		assert.Equal(t, r.Evaluations, r.Curve[len(r.Curve)-1].Evaluations, what)
	}
	assert.Contains(t, out.String(), "target objective")
	assert.Contains(t, out.String(), "1e-06: s/passes")
}
