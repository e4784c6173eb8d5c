package chain

import (
	"context"
	"errors"
	"math"

	"github.com/sparsetag/sparsetag/sparse"
)

// PathOptions configures a regularization path.
type PathOptions struct {
	K        int     // number of beta values; 0 means 100 (the paper)
	MinRatio float64 // smallest beta as a fraction of beta_max; 0 means 0.1 (the paper)
}

// PathBetas returns K values log-spaced from betaMax down to minRatio*betaMax,
// both ends included (K = 1 gives betaMax alone).
func PathBetas(betaMax float64, k int, minRatio float64) []float64 {
	out := make([]float64, k)
	for i := range out {
		if k == 1 {
			out[i] = betaMax
			continue
		}
		out[i] = betaMax * math.Pow(minRatio, float64(i)/float64(k-1))
	}
	return out
}

// Path solves the training problem of opts (paper form, alpha = opts.Alpha)
// for K values of beta from beta_max down to MinRatio*beta_max, warm-starting
// each from the previous solution and screening from its first iteration on
// the whole feature set (a screened set is never reused at a smaller beta,
// section 5 of the design note). After each beta, each is called (if not nil)
// with the index, the result and the full-size solution, which it must not
// keep without copying. On return m.W holds the last solution.
func Path(ctx context.Context, m *Model, c *sparse.Corpus, opts Options, po PathOptions, each func(k int, res *Result, w []float64) error) ([]*Result, error) {
	if opts.SumForm {
		return nil, errors.New("chain: a regularization path is defined in the paper's form (alpha, beta), not with c1/c2")
	}
	if err := opts.validate(); err != nil {
		return nil, err
	}
	op := opts.defaults()
	if po.K == 0 {
		po.K = 100
	}
	if po.MinRatio == 0 {
		po.MinRatio = 0.1
	}
	if po.K < 1 || !(po.MinRatio > 0 && po.MinRatio <= 1) {
		return nil, errors.New("chain: path needs K >= 1 and 0 < MinRatio <= 1")
	}
	if err := checkCorpus(m, c); err != nil {
		return nil, err
	}
	if err := checkMemory(m, c, op); err != nil {
		return nil, err
	}
	tr := newTrainer(m, c, op)
	if err := tr.prepare(ctx); err != nil {
		return nil, err
	}
	var out []*Result
	w := op.Init
	for k, beta := range PathBetas(tr.betaMax, po.K, po.MinRatio) {
		lam1, lam2, err := tr.lambdas(beta, 0)
		if err != nil {
			return out, err
		}
		res, sol, err := tr.solve(ctx, lam1, lam2, w, nil)
		if err != nil {
			return out, err
		}
		out = append(out, res)
		w = sol
		if each != nil {
			if err := each(k, res, sol); err != nil {
				return out, err
			}
		}
	}
	copy(m.W, w)
	return out, nil
}
