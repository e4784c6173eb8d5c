package traintest

import "math"

// CountingScore returns a scorer (a train.Scorer) whose k-th call (k = 0,
// 1, ...) scores -|k - peakAt|, whatever the weights: the score rises
// until the peakAt-th solution of a path and falls after it.
func CountingScore(peakAt int) func([]float64) (float64, error) {
	calls := 0
	return func([]float64) (float64, error) {
		calls++
		return -math.Abs(float64(calls - 1 - peakAt)), nil
	}
}
