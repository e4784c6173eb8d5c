package train

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/sparse"
	"github.com/sparsetag/sparsetag/train/internal/peak"
)

// PathOptions configures a regularization path.
type PathOptions struct {
	K        int     // number of beta values; 0 means 100 (the paper)
	MinRatio float64 // smallest beta as a fraction of beta_max; 0 means 0.1 (the paper)
	// Betas, when not nil, are the values of beta to solve, in decreasing
	// order; they replace K and MinRatio (e.g. one grid for every fold of
	// a cross-validation, see PathBetas).
	Betas []float64

	// Score, when not nil, rates each solution of the path (higher is
	// better), e.g. the F1 of the model on a development set (see
	// selection.TaggerScorer); Result.Score holds it. Path then stops early once the
	// score has peaked (Patience) and leaves the best-scoring solution in
	// the model (see Selected): this is selection on a development set.
	Score Scorer
	// Patience is the number of consecutive betas whose score is below the
	// best one after which the path stops (with Score); 0 means 3. Betas
	// count as below the best only once the score has risen above its
	// value at the first beta (beta_max: the trivial model, all weights
	// zero): where one label dominates (e.g. O), the first models may all
	// tag like the trivial one (F1 0) for more than Patience betas, and the
	// path goes on until the score rises (or to the last beta). With a
	// prior (Options.Prior) the first beta's model is the old model, not a
	// trivial one, and betas count as below the best from the start.
	Patience int
	// Extend, when > 0 (with Score, K and MinRatio; not with Betas), lets
	// the path go on below MinRatio when the score is still rising there:
	// if the solution at MinRatio beta_max scored best so far, the path
	// continues with the same geometric step (beta_k = beta_max
	// MinRatio^(k/(K-1)) for k >= K, warm starts and screening as above)
	// until the score has peaked (Patience) or the next beta would fall
	// below Extend beta_max, a hard floor (0 < Extend < MinRatio). The
	// results then number more than K (Extended says how many more).
	Extend float64
}

// Extended returns how many betas of a path's results lie below its
// MinRatio grid of k points (0 when the path was not extended).
func Extended(results []*Result, k int) int {
	return max(len(results)-k, 0)
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

// Selected returns the index of the result with the highest Score (the
// first of equal ones), or -1 when no result was scored.
func Selected(results []*Result) int {
	best := -1
	for i, r := range results {
		if r.Score != nil && (best < 0 || *r.Score > *results[best].Score) {
			best = i
		}
	}
	return best
}

// Path solves the training problem of opts for a decreasing sequence of
// betas, from beta_max down to MinRatio*beta_max (or po.Betas), at a fixed
// alpha (opts.Alpha; in the sum form alpha = 2 C2 / C1 and beta = C1/n
// varies). Each beta is warm-started from the previous solution, with
// screening from its first pass (a screened set is never reused at a
// smaller beta, section 5 of the design note). With the working-set
// solver, each beta also starts from the strong rule's working set
// (strongSet) and the L-BFGS curvature of the previous beta
// (carriedMemory).
//
// After each beta, each is called (if not nil) with the index, the result
// and the full-size solution, which it must not keep without copying. On
// return m.W holds the last solution, or with po.Score the best-scoring
// one (Selected).
func Path(ctx context.Context, m *chain.Model, c *sparse.Corpus, opts Options, po PathOptions, each func(k int, res *Result, w []float64) error) ([]*Result, error) {
	opts, err := pathForm(opts)
	if err != nil {
		return nil, err
	}
	if err := po.check(); err != nil {
		return nil, err
	}
	if opts.Allowed != nil {
		return nil, errors.New("train: Path does not take partial labels (train one penalty with Train)")
	}
	tr, err := setup(ctx, m, c, opts)
	if err != nil {
		return nil, err
	}
	betas := po.Betas
	if betas == nil {
		betas = PathBetas(tr.betaMax, po.K, po.MinRatio)
	}
	sel := pathSelection{patience: po.Patience}
	// With a prior the path starts at the old model, which may score best:
	// patience counts from there (see peak.Peak.FromStart).
	sel.peak.FromStart = tr.op.Prior != nil
	var out []*Result
	// w is the point of the solves (with a prior, v; last is w0 + v).
	w, prev := tr.op.Init, []float64(nil)
	last := w
	var start []float64
	// What one beta hands to the next: its L1 coefficient (the strong
	// rule) and its curvature (carriedMemory).
	var prevLam1 float64
	var carry *carriedState
	for k := 0; k < len(betas); k++ {
		beta := betas[k]
		pen, err := tr.lambdas(beta, 0)
		if err != nil {
			return out, err
		}
		init := w
		if tr.op.Solver == SolverWorkingSet && k >= 2 {
			start = predictStart(start, prev, w, math.Log(betas[k-1]/beta)/math.Log(betas[k-2]/betas[k-1]))
			init = start
		}
		so, err := tr.solve(ctx, solveInput{pen: pen, init: init, prevLam1: prevLam1, carry: carry, path: true})
		if err != nil {
			return out, err
		}
		res, sol := so.res, so.w
		prevLam1, carry = pen.l1, so.carry
		out = append(out, res)
		prev, w, last = w, offPrior(tr.op.Prior, sol), sol
		stop := false
		if po.Score != nil {
			if stop, err = sel.add(po.Score, res, sol); err != nil {
				return out, err
			}
		}
		if each != nil {
			if err := each(k, res, sol); err != nil {
				return out, err
			}
		}
		if stop || res.StopReason == StopInterrupt {
			break
		}
		if k == len(betas)-1 && (k >= po.K || sel.lastImproved) {
			betas = po.extend(betas, tr.betaMax)
		}
	}
	copy(m.W, last)
	if sel.best != nil {
		copy(m.W, sel.best)
	}
	return out, nil
}

// offPrior returns the point of the solve that gave the full-size
// solution sol: sol itself, or with a prior v = sol - w0 (in a new vector),
// which warm-starts the next beta of a path; w = w0 + v again within
// rounding (the path's solutions are the solves' own w0 + v).
func offPrior(prior, sol []float64) []float64 {
	if prior == nil {
		return sol
	}
	v := make([]float64, len(sol))
	for j, w0 := range prior {
		v[j] = sol[j] - w0
	}
	return v
}

// predictStart returns the starting point of the next beta of a
// working-set path from the last two solutions: the secant predictor
// w + r (w - prev), r the ratio of the log-beta steps, with the weights whose
// sign would flip set to zero (the support changes there). It is only a
// starting point: the solve evaluates it and certifies its result by the
// gap. dst is reused.
func predictStart(dst, prev, w []float64, r float64) []float64 {
	if prev == nil {
		return w
	}
	dst = resizeFloats(dst, len(w))
	for j, v := range w {
		p := v + r*(v-prev[j])
		if p*v <= 0 {
			p = 0
		}
		dst[j] = p
	}
	return dst
}

// pathForm returns the paper-form options of a path: in the sum form,
// alpha = 2 C2 / C1 (the ratio stays fixed along the path); with no
// penalty given, a path runs in the paper's form with alpha = 1 (a path
// sets beta itself, so Train's default penalty does not apply).
func pathForm(opts Options) (Options, error) {
	if err := opts.validate(); err != nil {
		return opts, err
	}
	if sum, paper := opts.forms(); !sum {
		if !paper {
			opts.Alpha = 1 // the paper's form with its default alpha
		}
		return opts, nil
	}
	if !(opts.C1 > 0) || !(opts.C2 > 0) {
		return opts, errors.New("train: a regularization path in the sum form needs C1 > 0 and C2 > 0 (their ratio fixes alpha)")
	}
	opts.Alpha, opts.SumForm, opts.C1, opts.C2 = 2*opts.C2/opts.C1, false, 0, 0
	return opts, opts.validate()
}

// extend returns betas with the next beta below the grid appended (see
// PathOptions.Extend), or betas unchanged when the path may not go on.
func (po *PathOptions) extend(betas []float64, betaMax float64) []float64 {
	if !(po.Extend > 0) || po.Score == nil || po.Betas != nil || po.K < 2 {
		return betas
	}
	next := betaMax * math.Pow(po.MinRatio, float64(len(betas))/float64(po.K-1))
	if next < po.Extend*betaMax {
		return betas
	}
	return append(betas, next)
}

// WithDefaults returns po with its zero fields set to their defaults (K
// 100, MinRatio 0.1, Patience 3), or an error naming what is invalid. Path
// applies it; package train/selection builds the grid that every fold of a
// cross-validation shares from it.
func (po PathOptions) WithDefaults() (PathOptions, error) {
	err := po.check()
	return po, err
}

func (po *PathOptions) check() error {
	if po.Patience == 0 {
		po.Patience = 3
	}
	if po.Betas != nil {
		for i, b := range po.Betas {
			if !(b > 0) || math.IsInf(b, 1) || (i > 0 && b >= po.Betas[i-1]) {
				return fmt.Errorf("train: path betas must be positive, finite and decreasing (beta %d = %g)", i, b)
			}
		}
		if len(po.Betas) == 0 {
			return errors.New("train: empty list of path betas")
		}
		return nil
	}
	if po.K == 0 {
		po.K = 100
	}
	if po.MinRatio == 0 {
		po.MinRatio = 0.1
	}
	if po.K < 1 || !(po.MinRatio > 0 && po.MinRatio <= 1) || po.Patience < 1 {
		return errors.New("train: path needs K >= 1, 0 < MinRatio <= 1 and Patience >= 1")
	}
	if po.Extend != 0 && !(po.Extend > 0 && po.Extend < po.MinRatio) {
		return fmt.Errorf("train: a path's hard floor Extend = %g must lie in (0, MinRatio = %g)", po.Extend, po.MinRatio)
	}
	return nil
}

// Scorer rates the weights w of a model (higher is better), e.g. the F1 on
// a development set of a tagger with those weights. It must not keep w
// (the caller reuses it) and must not return NaN.
type Scorer func(w []float64) (float64, error)

// pathSelection keeps the best-scoring solution of a path and decides when
// the score has peaked (peak.Peak).
type pathSelection struct {
	patience     int // PathOptions.Patience
	peak         peak.Peak
	best         []float64
	lastImproved bool // the last score was the best so far
}

// add scores the solution w of res and reports whether the path should
// stop (see PathOptions.Patience).
func (s *pathSelection) add(score Scorer, res *Result, w []float64) (bool, error) {
	v, err := peak.Checked(score, w)
	if err != nil {
		return false, fmt.Errorf("train: scoring the solution at beta %g: %w", res.Beta, err)
	}
	res.Score = &v
	s.peak.Limit = s.patience
	improved, stop := s.peak.Add(v)
	s.lastImproved = improved
	if improved {
		s.best = append(s.best[:0], w...)
	}
	return stop, nil
}
