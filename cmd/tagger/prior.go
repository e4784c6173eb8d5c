package main

import (
	"fmt"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/train"
)

// checkPrior refuses, before any data is read, what --prior does not take.
func (tf *trainFlags) checkPrior() error {
	if tf.prior == "" {
		return nil
	}
	switch {
	case tf.init != "":
		return usagef("--prior and --init: with a prior the solve starts from the prior model itself")
	case tf.resume:
		return usagef("--prior does not take --resume")
	case tf.op.Screen == train.ScreenPaper || tf.op.Screen == train.ScreenBoth:
		return usagef("--prior with --screen %s: the paper's rule is not proven with a prior; use pinsker (docs/prior.md)", tf.op.Screen)
	}
	return nil
}

// withPrior loads the --prior model and returns the layout to train (the
// new data's, with the labels and attributes only the old model has
// appended), with op.Prior set to the old weights in it.
func withPrior(e *env, tf *trainFlags, m *chain.Model, op *train.Options) (*chain.Model, error) {
	old, err := chain.LoadFile(tf.prior)
	if err != nil {
		return nil, err
	}
	p, w0, err := m.WithPrior(old)
	if err != nil {
		return nil, usagef("--prior %s does not fit the training data: %v", tf.prior, err)
	}
	op.Prior = w0
	if !tf.quiet {
		fmt.Fprintf(e.stderr, "prior %s: %d labels and %d attributes, of which %d labels and %d attributes are not in the training data (kept as they are); training w = w0 + v, the penalty on v\n",
			tf.prior, len(old.Labels), old.Layout.NumUnary+old.Layout.NumPair, len(p.Labels)-len(m.Labels), p.Layout.NumUnary+p.Layout.NumPair-m.Layout.NumUnary-m.Layout.NumPair)
	}
	return p, nil
}
