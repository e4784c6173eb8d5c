package chain

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"time"

	"github.com/sparsetag/sparsetag/chain/internal/owlqn"
	"github.com/sparsetag/sparsetag/screen"
	"github.com/sparsetag/sparsetag/sparse"
)

var errNonFinite = errors.New("chain: objective is not finite (NaN or Inf)")

// ScreenRule names a safe screening rule.
type ScreenRule string

// The screening rules. These names are part of the command-line contract.
const (
	ScreenNone    ScreenRule = "none"    // no screening
	ScreenPinsker ScreenRule = "pinsker" // the l1/Pinsker gap rule (any sequence length)
	ScreenPaper   ScreenRule = "paper"   // the paper's Euclidean rule (T = 1 only)
	ScreenBoth    ScreenRule = "both"    // minimum of both bounds (T = 1 only)
)

// Options configures Train. The zero value trains with the paper's form of
// the objective, alpha = 1 and beta = 0.1 beta_max, Pinsker screening, and a
// target duality gap of 1e-6 per sequence.
//
// The objective is P(w) = (1/n) sum_i NLL_i(w) + beta (alpha/2 ||w||^2 + ||w||_1).
// The sum form used by CRFsuite and Wapiti, sum_i NLL_i + C1 ||w||_1 + C2 ||w||^2,
// is the same problem with beta = C1/n and alpha = 2 C2 / C1; set SumForm to
// give C1 and C2 instead of Alpha and Beta. C1 = 0 (pure L2) is allowed; it
// trains with plain L-BFGS.
type Options struct {
	Alpha     float64 // L2/L1 mix, > 0; 0 means 1
	Beta      float64 // regularization strength; 0 means BetaRatio * beta_max
	BetaRatio float64 // beta as a fraction of beta_max when Beta is 0; 0 means 0.1

	SumForm bool    // use C1 and C2 instead of Alpha, Beta and BetaRatio
	C1, C2  float64 // sum-form penalties (C1 >= 0, C2 > 0)

	// Epsilon is the target duality gap of the average-form objective: training
	// stops when P(w) - P(w*) <= G(w) <= Epsilon. 0 means 1e-6, the paper's
	// target, which keeps ||w - w*|| <= sqrt(2 Epsilon / (alpha beta)).
	Epsilon float64
	// Delta and Period give CRFsuite's stopping rule as an option: stop when
	// the objective improved by less than Delta (relative) over the last
	// Period iterations. Delta = 0 disables it; Period 0 means 10.
	Delta  float64
	Period int

	MaxIter int // 0 means 1000
	Threads int // worker goroutines; 0 means runtime.NumCPU()
	Memory  int // L-BFGS memory; 0 means 10

	Screen ScreenRule // "" means ScreenPinsker
	Tau    float64    // screening safety margin; 0 means 1e-9
	// Gamma > 0 screens only when the gap has fallen by this factor since
	// the last check (the paper uses 0.5); 0 checks at every iteration.
	Gamma float64
	// ResetMemoryOnScreen clears the L-BFGS memory when features are removed
	// instead of compacting it.
	ResetMemoryOnScreen bool

	// ObservedPairs restricts state and pair features to the (attribute,
	// label) pairs seen in the training data (CRFsuite's default). The
	// default uses every pair (CRF++, Wapiti and the paper).
	ObservedPairs bool

	// Init, when not nil, is a full-size weight vector to start from (warm
	// start). It is not modified.
	Init []float64

	// Progress, when not nil, is called after every iteration.
	Progress func(Iteration)
}

// Iteration is one line of the training log.
type Iteration struct {
	Iter     int     `json:"iter"`
	Primal   float64 `json:"primal"`
	Gap      float64 `json:"gap"`
	Active   int     `json:"active"`
	Screened int     `json:"screened"`
	NonZero  int     `json:"nonzero"`
	Seconds  float64 `json:"seconds"`
}

// Result summarizes a training run.
type Result struct {
	Alpha, Beta, BetaMax float64
	Lambda1, Lambda2     float64 // beta and alpha*beta: the average-form L1 and L2 coefficients
	Screen               ScreenRule
	Epsilon              float64
	Iterations           []Iteration
	NonZero              int
	Screened             int
	Dimension            int // number of features in the model's feature set
	Gap, Primal          float64
	Seconds              float64
	SecondsScreening     float64
	Converged            bool   // the gap reached Epsilon (or the Delta rule fired)
	StopReason           string // "gap", "delta", "max-iter", "line-search"
}

func (o *Options) defaults() Options {
	r := *o
	if r.Alpha == 0 {
		r.Alpha = 1
	}
	if r.BetaRatio == 0 {
		r.BetaRatio = 0.1
	}
	if r.Epsilon == 0 {
		r.Epsilon = 1e-6
	}
	if r.Period == 0 {
		r.Period = 10
	}
	if r.MaxIter == 0 {
		r.MaxIter = 1000
	}
	if r.Threads <= 0 {
		r.Threads = runtime.NumCPU()
	}
	if r.Memory == 0 {
		r.Memory = 10
	}
	if r.Screen == "" {
		r.Screen = ScreenPinsker
	}
	if r.Tau == 0 {
		r.Tau = 1e-9
	}
	return r
}

func (o *Options) validate() error {
	for _, v := range []struct {
		name string
		x    float64
	}{{"alpha", o.Alpha}, {"beta", o.Beta}, {"beta ratio", o.BetaRatio}, {"c1", o.C1}, {"c2", o.C2}, {"epsilon", o.Epsilon}, {"delta", o.Delta}, {"tau", o.Tau}, {"gamma", o.Gamma}} {
		if math.IsNaN(v.x) || math.IsInf(v.x, 0) || v.x < 0 {
			return fmt.Errorf("chain: option %s = %v: want a finite non-negative number", v.name, v.x)
		}
	}
	if o.SumForm && o.C2 == 0 {
		return errors.New("chain: c2 must be > 0 (the duality gap and the screening rules need an L2 term)")
	}
	if o.MaxIter < 0 || o.Memory < 0 || o.Period < 0 {
		return errors.New("chain: max-iter, memory and period must be >= 0")
	}
	switch o.Screen {
	case "", ScreenNone, ScreenPinsker, ScreenPaper, ScreenBoth:
	default:
		return fmt.Errorf("chain: unknown screening rule %q (want none, pinsker, paper or both)", o.Screen)
	}
	return nil
}

// Train fits the weights of m on the labeled corpus c and stores the solution
// in m.W (full size, exact zeros for screened and inactive features). m gives
// the layout (labels, attribute counts, transitions) and is typically made by
// NewModel. Training is deterministic for a given input and options, whatever
// the number of threads. It stops on ctx cancellation with ctx's error and
// leaves m unchanged.
func Train(ctx context.Context, m *Model, c *sparse.Corpus, opts Options) (*Result, error) {
	if err := opts.validate(); err != nil {
		return nil, err
	}
	op := opts.defaults()
	if err := c.Validate(m.NumLabels()); err != nil {
		return nil, fmt.Errorf("chain: training corpus: %w", err)
	}
	if c.Labels == nil {
		return nil, errors.New("chain: training corpus has no labels")
	}
	if c.Len() == 0 {
		return nil, errors.New("chain: training corpus is empty")
	}
	if c.NumUnary > m.NumUnary || c.NumPair > m.NumPair {
		return nil, fmt.Errorf("chain: corpus has %d/%d attributes, model only %d/%d", c.NumUnary, c.NumPair, m.NumUnary, m.NumPair)
	}
	if op.Init != nil && len(op.Init) != len(m.W) {
		return nil, fmt.Errorf("chain: initial weights have length %d, model needs %d", len(op.Init), len(m.W))
	}
	t0 := time.Now()
	tr := newTrainer(m, c, op)
	res, err := tr.run(ctx)
	if err != nil {
		return res, err
	}
	res.Seconds = time.Since(t0).Seconds()
	return res, nil
}

// trainer holds the state of one training run.
type trainer struct {
	m   *Model
	c   *sparse.Corpus
	op  Options
	obj *objective

	lam1, lam2 float64
	rnorm      []float64 // full size, the Pinsker constants (nil when not screening)
	mAct       []float64 // m over the active set at the last evaluation
	lastF      float64   // L(w) at the last evaluation
	screenSecs float64
	screened   int
}

func newTrainer(m *Model, c *sparse.Corpus, op Options) *trainer {
	return &trainer{m: m, c: c, op: op, obj: newObjective(m, c, op.Threads)}
}

// initialActive returns the feature set of the model: every feature, or the
// observed pairs only, and always the transitions when the model has them.
func (tr *trainer) initialActive() []int32 {
	m := tr.m
	L := m.NumLabels()
	var act []int32
	for j := 0; j < m.NumUnary*L; j++ {
		if !tr.op.ObservedPairs || tr.obj.obs[j] != 0 {
			act = append(act, int32(j))
		}
	}
	if m.Transitions {
		for j := m.TransOffset(); j < m.PairOffset(); j++ {
			act = append(act, int32(j))
		}
	}
	for j := m.PairOffset(); j < len(m.W); j++ {
		if !tr.op.ObservedPairs || tr.obj.obs[j] != 0 {
			act = append(act, int32(j))
		}
	}
	return act
}

func (tr *trainer) run(ctx context.Context) (*Result, error) {
	m, op, obj := tr.m, tr.op, tr.obj
	n := float64(tr.c.Len())
	active := tr.initialActive()
	obj.setActive(active)
	res := &Result{Screen: op.Screen, Epsilon: op.Epsilon, Dimension: len(active)}

	// beta_max from m(0) over the feature set (section 2 of the design note).
	x := make([]float64, len(active))
	tr.mAct = make([]float64, len(active))
	if _, err := obj.eval(ctx, x, tr.mAct); err != nil {
		return nil, err
	}
	res.BetaMax = screen.BetaMax(tr.mAct)
	if op.SumForm {
		tr.lam1 = op.C1 / n
		tr.lam2 = 2 * op.C2 / n
		if op.C1 > 0 {
			res.Beta, res.Alpha = tr.lam1, tr.lam2/tr.lam1
		}
	} else {
		beta := op.Beta
		if beta == 0 {
			beta = op.BetaRatio * res.BetaMax
		}
		tr.lam1, tr.lam2 = beta, op.Alpha*beta
		res.Beta, res.Alpha = beta, op.Alpha
	}
	res.Lambda1, res.Lambda2 = tr.lam1, tr.lam2
	if tr.lam2 <= 0 {
		return nil, errors.New("chain: the L2 coefficient alpha*beta must be > 0 (beta_max is 0: do all training labels agree?)")
	}
	if (op.Screen == ScreenPaper || op.Screen == ScreenBoth) && tr.c.MaxLen() > 1 {
		return nil, fmt.Errorf("chain: screening rule %q needs T = 1 (enumerable label space); use %q on chains", op.Screen, ScreenPinsker)
	}
	if op.Init != nil {
		sparse.Gather(x, op.Init, active)
	}
	if op.Screen != ScreenNone && tr.lam1 > 0 {
		r, err := featureRnorm(m, tr.c)
		if err != nil {
			return nil, err
		}
		tr.rnorm = r
	}

	t0 := time.Now()
	fn := func(xa, grad []float64) (float64, error) {
		if len(tr.mAct) != len(xa) {
			tr.mAct = tr.mAct[:len(xa)]
		}
		loss, err := obj.eval(ctx, xa, tr.mAct)
		if err != nil {
			return 0, err
		}
		tr.lastF = loss
		f := loss
		for k, v := range xa {
			grad[k] = tr.lam2*v - tr.mAct[k]
			f += 0.5 * tr.lam2 * v * v
		}
		return f, nil
	}
	opt, err := owlqn.New(x, fn, owlqn.Settings{M: op.Memory, L1: tr.lam1})
	if err != nil {
		return nil, err
	}
	lastCheckGap := math.Inf(1)
	var hist []float64
	for iter := 0; ; iter++ {
		xa := opt.X()
		gap := fyGap(xa, tr.mAct, tr.lam1, tr.lam2)
		primal := opt.Objective()
		// Screening at the current point (its m and gap come from the same pass).
		if tr.rnorm != nil && gap > op.Epsilon && (op.Gamma == 0 || gap < op.Gamma*lastCheckGap) {
			ts := time.Now()
			removed, nonzeroRemoved := tr.screen(opt, gap, n)
			lastCheckGap = gap
			tr.screenSecs += time.Since(ts).Seconds()
			if removed > 0 {
				if nonzeroRemoved {
					if err := opt.Reevaluate(); err != nil {
						return nil, err
					}
				}
				xa = opt.X()
				gap = fyGap(xa, tr.mAct, tr.lam1, tr.lam2)
				primal = opt.Objective()
			}
		}
		it := Iteration{Iter: iter, Primal: primal, Gap: gap, Active: len(obj.active), Screened: tr.screened,
			NonZero: countNonZero(xa), Seconds: time.Since(t0).Seconds()}
		res.Iterations = append(res.Iterations, it)
		if op.Progress != nil {
			op.Progress(it)
		}
		hist = append(hist, primal)
		if gap <= op.Epsilon {
			res.Converged, res.StopReason = true, "gap"
			break
		}
		if op.Delta > 0 && len(hist) > op.Period {
			prev := hist[len(hist)-1-op.Period]
			if (prev-primal)/math.Max(math.Abs(primal), 1e-300) < op.Delta {
				res.Converged, res.StopReason = true, "delta"
				break
			}
		}
		if iter >= op.MaxIter {
			res.StopReason = "max-iter"
			break
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := opt.Iterate(); err != nil {
			if errors.Is(err, owlqn.ErrLineSearch) {
				// The last valid point is kept; re-evaluate so m and the gap
				// belong to it, then stop.
				if err := opt.Reevaluate(); err != nil {
					return nil, err
				}
				res.StopReason = "line-search"
				xa = opt.X()
				gap = fyGap(xa, tr.mAct, tr.lam1, tr.lam2)
				res.Iterations = append(res.Iterations, Iteration{Iter: iter + 1, Primal: opt.Objective(), Gap: gap,
					Active: len(obj.active), Screened: tr.screened, NonZero: countNonZero(xa), Seconds: time.Since(t0).Seconds()})
				break
			}
			return nil, err
		}
	}
	// Install the solution: full size, exact zeros outside the active set.
	w := make([]float64, len(m.W))
	sparse.Scatter(w, opt.X(), obj.active)
	if err := checkFinite(w); err != nil {
		return nil, err
	}
	copy(m.W, w)
	last := res.Iterations[len(res.Iterations)-1]
	res.Gap, res.Primal = last.Gap, last.Primal
	res.NonZero = m.NonZero()
	res.Screened = tr.screened
	res.SecondsScreening = tr.screenSecs
	return res, nil
}

// screen applies the configured rule at the optimizer's current point and
// removes the screened coordinates from the problem. It reports how many were
// removed and whether any of them was non-zero in the current iterate.
func (tr *trainer) screen(opt *owlqn.Optimizer, gap, n float64) (int, bool) {
	obj := tr.obj
	act := obj.active
	xa := opt.X()
	r := math.Sqrt(2 * gap / n)
	thresh := tr.lam1 * (1 - tr.op.Tau)
	keep := make([]int32, 0, len(act))
	removed := 0
	nonzero := false
	for k, j := range act {
		if math.Abs(tr.mAct[k])+r*tr.rnorm[j] < thresh {
			removed++
			if xa[k] != 0 {
				nonzero = true
			}
			continue
		}
		keep = append(keep, int32(k))
	}
	if removed == 0 {
		return 0, false
	}
	newAct := make([]int32, len(keep))
	for k, q := range keep {
		newAct[k] = act[q]
	}
	opt.Compact(keep, tr.op.ResetMemoryOnScreen)
	tr.mAct = sparse.Compact(tr.mAct, keep)
	obj.setActive(newAct)
	tr.screened += removed
	return removed, nonzero
}

// featureRnorm returns the Pinsker constants Rnorm_j of every feature of the
// model layout (section 4 of the design note).
func featureRnorm(m *Model, c *sparse.Corpus) ([]float64, error) {
	lay := screen.Layout{NumAttrs: m.NumUnary, L: m.NumLabels(), NumPair: m.NumPair}
	return lay.Rnorm(nil, c)
}

// fyGap is the Fenchel-Young duality gap of the average-form problem with
// L1 coefficient lam1 and L2 coefficient lam2 (section 2 of the design
// note); with lam1 = 0 it is sum_j (lam2 w_j - m_j)^2 / (2 lam2).
func fyGap(w, m []float64, lam1, lam2 float64) float64 {
	if lam1 > 0 {
		return screen.GapSum(w, m, lam1, lam2)
	}
	g := 0.0
	for j, v := range w {
		d := lam2*v - m[j]
		g += d * d
	}
	return g / (2 * lam2)
}

func countNonZero(x []float64) int {
	n := 0
	for _, v := range x {
		if v != 0 {
			n++
		}
	}
	return n
}
