package peak

import (
	"errors"
	"math"
)

// Peak decides when a sequence of scores (along a path, or over the
// checks of one training run) has peaked: it keeps the best score (the
// first of equal ones) and stops after Limit scores in a row below the
// best. Scores are not counted as worse until the score has risen above
// its first value: at the top of a path every model may still tag like
// the trivial one (e.g. every token O on data where O dominates, F1 0),
// and a score that has not moved says nothing about a peak. With
// FromStart, the first score is a real model's (a prior's: the path starts
// at the old model, not at the trivial one), and scores strictly below the
// best count from the start (a score equal to the first is most likely the
// same model again: the betas at which the new data does not move it).
// The zero Peak with Limit set is ready to use.
type Peak struct {
	Limit       int
	FromStart   bool    // count scores below the best from the first one
	n           int     // scores seen
	first, best float64 // the first and the best score
	worse       int     // scores in a row below the best, once risen
}

// Add records score v and reports whether it is the new best and whether
// to stop.
func (p *Peak) Add(v float64) (improved, stop bool) {
	p.n++
	switch {
	case p.n == 1:
		p.first, p.best = v, v
		return true, false
	case v > p.best:
		p.best, p.worse = v, 0
		return true, false
	case p.best > p.first, p.FromStart && v < p.best:
		p.worse++
	}
	return false, p.worse >= p.Limit
}

// Best returns the best score so far (0 before the first).
func (p *Peak) Best() float64 { return p.best }

// Checked returns score(w), or an error for a NaN score.
func Checked(score func(w []float64) (float64, error), w []float64) (float64, error) {
	v, err := score(w)
	if err == nil && math.IsNaN(v) {
		err = errors.New("the score is NaN")
	}
	return v, err
}
