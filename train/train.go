package train

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/sparse"
	"github.com/sparsetag/sparsetag/train/objective"
)

var errNonFinite = objective.ErrNonFinite

// Train fits the weights of m on the labeled corpus c and stores the solution
// in m.W (full size, exact zeros for screened and inactive features). m gives
// the layout (labels, attribute counts, transitions) and is typically made by
// NewModel. Training is deterministic for a given input and options, whatever
// the number of threads. It stops on ctx cancellation with ctx's error and
// leaves m unchanged.
func Train(ctx context.Context, m *chain.Model, c *sparse.Corpus, opts Options) (*Result, error) {
	t0 := time.Now()
	tr, err := setup(ctx, m, c, opts)
	if err != nil {
		return nil, err
	}
	op := tr.op
	pen, err := tr.lambdas(op.Beta, op.BetaRatio)
	if err != nil {
		return nil, err
	}
	// The solution goes straight into m.W (finish); m is unchanged until
	// then, as the solve's errors all come before it.
	out, err := tr.solve(ctx, solveInput{pen: pen, init: op.Init, resume: op.Resume, warm: op.WarmEpochs > 0,
		out: m.W, last: true})
	if err != nil {
		return nil, err
	}
	res := out.res
	res.NonZero = m.NonZero()
	res.Seconds = time.Since(t0).Seconds()
	res.Warnings = warnings(m, res, c.Len())
	return res, nil
}

// warnings returns Result.Warnings of the solution m.W of a corpus of n
// sequences.
func warnings(m *chain.Model, res *Result, n int) []string {
	if res.Beta > 0 && res.BetaMax > 0 && res.Beta >= res.BetaMax {
		return []string{fmt.Sprintf("the L1 penalty beta = %.4g is at or above beta_max = %.4g, so every weight is zero: "+
			"lower it (in the sum form, c1 below n beta_max = %.4g; the default c1 = c2 = 1 suits most corpora)", res.Beta, res.BetaMax, float64(n)*res.BetaMax)}
	}
	if len(m.State) == 0 || slices.ContainsFunc(m.State, func(v float64) bool { return v != 0 }) {
		return nil
	}
	return []string{fmt.Sprintf("no state weight is non-zero (beta = %.4g, beta_max = %.4g): the model ignores its input and tags every sequence of a length alike; "+
		"lower the penalty (the default c1 = c2 = 1 suits most corpora) or choose it on held-out data (train --select)", res.Beta, res.BetaMax)}
}
