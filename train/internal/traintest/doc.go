// Package traintest holds the brute-force references that the tests of
// train and its packages hold the objective, the certificates and the
// scorers against: scores and the negative log-likelihood by enumerating
// every label sequence, straight from the feature definitions
// (independent of chain's scoring and of package inference). It is
// imported only by tests.
package traintest
