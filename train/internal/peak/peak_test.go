package peak

import (
	"errors"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestPeak states the patience rule on score sequences: the best is the
// first of equal scores, and scores count as worse only once the score
// has risen above its first value.
func TestPeak(t *testing.T) {
	for _, tc := range []struct {
		name   string
		scores []float64
		limit  int
		stop   int // index of the score after which it stops; -1: never
		best   int
		from   bool // FromStart
	}{
		{"rises at once", []float64{0.1, 0.5, 0.4, 0.3, 0.2, 0.1}, 3, 4, 1, false},
		{"flat at the top", []float64{0, 0, 0, 0, 0, 0.3, 0.6, 0.5, 0.5, 0.5}, 3, 9, 6, false},
		{"below the first, then rises", []float64{0.2, 0.1, 0, 0, 0, 0.3, 0.2, 0.2}, 2, 7, 5, false},
		{"never rises", []float64{0.4, 0.4, 0.3, 0.2, 0.1, 0}, 1, -1, 0, false},
		{"equal to the best counts as worse", []float64{0, 1, 1}, 1, 2, 1, false},
		{"a new best resets the count", []float64{0, 1, 0.5, 2, 1.5, 1.5}, 2, 5, 3, false},
		{"from the start: the first is best", []float64{0.4, 0.4, 0.3, 0.2, 0.1, 0}, 2, 3, 0, true},
		{"from the start: a later best", []float64{0.4, 0.3, 0.5, 0.2, 0.1, 0}, 2, 4, 2, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := Peak{Limit: tc.limit, FromStart: tc.from}
			stop, best := -1, -1
			for i, v := range tc.scores {
				improved, s := p.Add(v)
				if improved {
					best = i
				}
				if s {
					stop = i
					break
				}
			}
			assert.Equal(t, tc.stop, stop, "stop")
			assert.Equal(t, tc.best, best, "best")
		})
	}
}

func TestChecked(t *testing.T) {
	v, err := Checked(func(w []float64) (float64, error) { return w[0], nil }, []float64{0.5})
	assert.NoError(t, err)
	assert.Equal(t, 0.5, v)
	_, err = Checked(func([]float64) (float64, error) { return math.NaN(), nil }, nil)
	assert.ErrorContains(t, err, "NaN")
	boom := errors.New("boom")
	_, err = Checked(func([]float64) (float64, error) { return 0, boom }, nil)
	assert.ErrorIs(t, err, boom)
}
