// Package peak holds the patience rule that train's paths and package
// train/selection (cross-validation, early stopping) apply to a sequence of
// scores: when has the score peaked, and which score was best. It knows
// nothing of models or training; a score is a float64, a scorer a function
// of a weight vector.
package peak
