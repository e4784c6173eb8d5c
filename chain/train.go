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

	// Checkpoint, when not nil, is called every CheckpointEvery iterations
	// (0 means 10) with the state needed to continue the run; Resume
	// continues a run from such a state and reaches the same model, bit for
	// bit, as the uninterrupted run (training is deterministic).
	Checkpoint      func(*Checkpoint) error
	CheckpointEvery int
	Resume          *Checkpoint

	// Monitor, when not nil, is called every MonitorEvery iterations (0
	// means 10) with the current full-size weights (scratch: copy what you
	// keep); returning true stops training with StopReason "monitor". Use it
	// for early stopping on a validation set.
	Monitor      func(it Iteration, w []float64) (stop bool, err error)
	MonitorEvery int
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
	StopReason           string // "gap", "delta", "max-iter", "line-search", "monitor"
	// ScreenedSet holds the full indices of the features removed by
	// screening (nil without screening).
	ScreenedSet sparse.Bitset `json:"-"`
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
	if err := checkCorpus(m, c); err != nil {
		return nil, err
	}
	if op.Init != nil && len(op.Init) != len(m.W) {
		return nil, fmt.Errorf("chain: initial weights have length %d, model needs %d", len(op.Init), len(m.W))
	}
	t0 := time.Now()
	tr := newTrainer(m, c, op)
	if err := tr.prepare(ctx); err != nil {
		return nil, err
	}
	lam1, lam2, err := tr.lambdas(op.Beta, op.BetaRatio)
	if err != nil {
		return nil, err
	}
	res, w, err := tr.solve(ctx, lam1, lam2, op.Init, op.Resume)
	if err != nil {
		return nil, err
	}
	copy(m.W, w)
	res.NonZero = m.NonZero()
	res.Seconds = time.Since(t0).Seconds()
	return res, nil
}

// checkCorpus validates the training corpus against the model layout.
func checkCorpus(m *Model, c *sparse.Corpus) error {
	if err := c.Validate(m.NumLabels()); err != nil {
		return fmt.Errorf("chain: training corpus: %w", err)
	}
	if c.Labels == nil {
		return errors.New("chain: training corpus has no labels")
	}
	if c.Len() == 0 {
		return errors.New("chain: training corpus is empty")
	}
	if c.NumUnary > m.NumUnary || c.NumPair > m.NumPair {
		return fmt.Errorf("chain: corpus has %d/%d attributes, model only %d/%d", c.NumUnary, c.NumPair, m.NumUnary, m.NumPair)
	}
	return nil
}

// trainer holds the state of one training run.
type trainer struct {
	m   *Model
	c   *sparse.Corpus
	op  Options
	obj *objective

	features    []int32   // the model's feature set (full indices)
	betaMax     float64   // ||m(0)||_inf over the feature set
	lam1, lam2  float64   // average-form L1 and L2 coefficients
	rnorm       []float64 // full size, the Pinsker constants (nil when not screening)
	rnormMin    float64   // smallest Rnorm over the feature set
	mAct        []float64 // m over the active set at the last evaluation
	screenSecs  float64
	screened    int
	screenedSet sparse.Bitset

	wBuf, mBuf, dBuf, pBuf []float64 // scratch of the paper's rule
	keepBuf                []int32   // scratch of screen
	wMon                   []float64 // full-size weights for Options.Monitor
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

// prepare fixes the feature set, computes m(0) and beta_max, and the
// screening constants.
func (tr *trainer) prepare(ctx context.Context) error {
	op, obj := tr.op, tr.obj
	tr.features = tr.initialActive()
	obj.setActive(tr.features)
	tr.mAct = make([]float64, len(tr.features))
	if _, err := obj.eval(ctx, make([]float64, len(tr.features)), tr.mAct); err != nil {
		return err
	}
	tr.betaMax = screen.BetaMax(tr.mAct)
	if (op.Screen == ScreenPaper || op.Screen == ScreenBoth) && tr.c.MaxLen() > 1 {
		return fmt.Errorf("chain: screening rule %q needs T = 1 (enumerable label space); use %q on chains", op.Screen, ScreenPinsker)
	}
	if op.Screen != ScreenNone {
		r, err := featureRnorm(tr.m, tr.c)
		if err != nil {
			return err
		}
		tr.rnorm = r
		tr.rnormMin = math.Inf(1)
		for _, j := range tr.features {
			tr.rnormMin = math.Min(tr.rnormMin, r[j])
		}
	}
	return nil
}

// lambdas returns the average-form L1 and L2 coefficients for the options,
// given beta (0: ratio * beta_max).
func (tr *trainer) lambdas(beta, ratio float64) (lam1, lam2 float64, err error) {
	op := tr.op
	n := float64(tr.c.Len())
	if op.SumForm {
		lam1, lam2 = op.C1/n, 2*op.C2/n
	} else {
		if beta == 0 {
			beta = ratio * tr.betaMax
		}
		lam1, lam2 = beta, op.Alpha*beta
	}
	if !(lam2 > 0) {
		return 0, 0, errors.New("chain: the L2 coefficient alpha*beta must be > 0 (beta_max is 0: do all training labels agree?)")
	}
	return lam1, lam2, nil
}

// solve minimizes the objective with L1 coefficient lam1 and L2 coefficient
// lam2 from the full-size starting point init (nil: zero), screening from the
// first iteration on the whole feature set. It returns the full-size
// solution.
func (tr *trainer) solve(ctx context.Context, lam1, lam2 float64, init []float64, resume *Checkpoint) (*Result, []float64, error) {
	op, obj := tr.op, tr.obj
	n := float64(tr.c.Len())
	tr.lam1, tr.lam2 = lam1, lam2
	tr.screened, tr.screenSecs = 0, 0
	tr.screenedSet = sparse.NewBitset(len(tr.m.W))
	res := &Result{Screen: op.Screen, Epsilon: op.Epsilon, Dimension: len(tr.features), BetaMax: tr.betaMax,
		Lambda1: lam1, Lambda2: lam2, Beta: lam1}
	if lam1 > 0 {
		res.Alpha = lam2 / lam1
	}
	// Never reuse a screened set: start from the whole feature set, less
	// the features whose Rnorm is 0 when screening: they are identically
	// zero functions of y (m_j = 0 always), so w*_j = 0 for every beta.
	active := make([]int32, 0, len(tr.features))
	for _, j := range tr.features {
		if tr.rnorm != nil && lam1 > 0 && tr.rnorm[j] == 0 {
			tr.screenedSet.Set(int(j))
			tr.screened++
			continue
		}
		active = append(active, j)
	}
	if len(active) == 0 {
		// Nothing can be non-zero: the zero vector is optimal.
		res.Iterations = []Iteration{{Screened: tr.screened}}
		res.Converged, res.StopReason = true, "gap"
		res.Screened, res.ScreenedSet = tr.screened, tr.screenedSet
		return res, make([]float64, len(tr.m.W)), nil
	}
	obj.setActive(active)
	x := make([]float64, len(active))
	if init != nil {
		sparse.Gather(x, init, active)
	}
	tr.mAct = tr.mAct[:cap(tr.mAct)]
	if len(tr.mAct) < len(active) {
		tr.mAct = make([]float64, len(active))
	}
	tr.mAct = tr.mAct[:len(active)]

	t0 := time.Now()
	fn := func(xa, grad []float64) (float64, error) {
		tr.mAct = tr.mAct[:len(xa)]
		loss, err := obj.eval(ctx, xa, tr.mAct)
		if err != nil {
			return 0, err
		}
		f := loss
		for k, v := range xa {
			grad[k] = tr.lam2*v - tr.mAct[k]
			f += 0.5 * tr.lam2 * v * v
		}
		return f, nil
	}
	opt, err := owlqn.New(x, fn, owlqn.Settings{M: op.Memory, L1: lam1, Threads: op.Threads})
	if err != nil {
		return nil, nil, err
	}
	defer opt.Close()
	lastCheckGap := math.Inf(1)
	var hist []float64
	start := 0
	if resume != nil {
		if err := tr.restore(resume, opt, res); err != nil {
			return nil, nil, err
		}
		lastCheckGap, hist = resume.LastCheckGap, append([]float64(nil), resume.History...)
		start = len(res.Iterations) - 1
		t0 = t0.Add(-time.Duration(res.Iterations[start].Seconds * float64(time.Second)))
	}
	for iter := start; ; iter++ {
		if resume != nil && iter == start {
			// The checkpoint was taken right before this iteration's step.
			goto step
		}
		{
			xa := opt.X()
			gap := fyGap(xa, tr.mAct, lam1, lam2)
			primal := opt.Objective()
			// Screening at the current point: m and the gap come from the same
			// pass (section 5 of the design note).
			if tr.rnorm != nil && lam1 > 0 && gap > op.Epsilon && (op.Gamma == 0 || gap < op.Gamma*lastCheckGap) {
				ts := time.Now()
				removed, err := tr.screen(opt, gap, n)
				if err != nil {
					return nil, nil, err
				}
				lastCheckGap = gap
				tr.screenSecs += time.Since(ts).Seconds()
				if removed > 0 {
					if opt.Stale() {
						if err := opt.Reevaluate(); err != nil {
							return nil, nil, err
						}
					}
					xa = opt.X()
					gap = fyGap(xa, tr.mAct, lam1, lam2)
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
				return nil, nil, err
			}
			if op.Checkpoint != nil && iter > 0 && iter%op.CheckpointEvery == 0 {
				if err := op.Checkpoint(tr.checkpoint(opt, res, hist, lastCheckGap)); err != nil {
					return nil, nil, fmt.Errorf("chain: checkpoint: %w", err)
				}
			}
			if op.Monitor != nil && iter > 0 && iter%op.MonitorEvery == 0 {
				if tr.wMon == nil {
					tr.wMon = make([]float64, len(tr.m.W))
				}
				clear(tr.wMon)
				sparse.Scatter(tr.wMon, opt.X(), obj.active)
				stop, err := op.Monitor(res.Iterations[len(res.Iterations)-1], tr.wMon)
				if err != nil {
					return nil, nil, fmt.Errorf("chain: monitor: %w", err)
				}
				if stop {
					res.StopReason = "monitor"
					break
				}
			}
		}
	step:
		if err := opt.Iterate(); err != nil {
			if !errors.Is(err, owlqn.ErrLineSearch) {
				return nil, nil, err
			}
			// No further progress at working precision. Keep the last valid
			// point and re-evaluate so that m and the gap belong to it.
			if err := opt.Reevaluate(); err != nil {
				return nil, nil, err
			}
			res.StopReason = "line-search"
			xa := opt.X()
			gap := fyGap(xa, tr.mAct, lam1, lam2)
			res.Iterations = append(res.Iterations, Iteration{Iter: iter + 1, Primal: opt.Objective(), Gap: gap,
				Active: len(obj.active), Screened: tr.screened, NonZero: countNonZero(xa), Seconds: time.Since(t0).Seconds()})
			if op.Progress != nil {
				op.Progress(res.Iterations[len(res.Iterations)-1])
			}
			break
		}
	}
	// The solution: full size, exact zeros outside the active set.
	w := make([]float64, len(tr.m.W))
	sparse.Scatter(w, opt.X(), obj.active)
	if err := checkFinite(w); err != nil {
		return nil, nil, err
	}
	last := res.Iterations[len(res.Iterations)-1]
	res.Gap, res.Primal = last.Gap, last.Primal
	res.NonZero = countNonZero(w)
	res.Screened = tr.screened
	res.ScreenedSet = tr.screenedSet
	res.SecondsScreening = tr.screenSecs
	res.Seconds = time.Since(t0).Seconds()
	return res, w, nil
}

// screen applies the configured rule at the optimizer's current point and
// removes the screened coordinates from the problem (weights, gradient,
// optimizer memory and, through the active set, the attribute lists used for
// scoring). It reports how many were removed.
func (tr *trainer) screen(opt *owlqn.Optimizer, gap, n float64) (int, error) {
	obj := tr.obj
	act := obj.active
	xa := opt.X()
	thresh := tr.lam1 * (1 - tr.op.Tau)
	r := math.Sqrt(2 * gap / n)
	if tr.op.Screen == ScreenPinsker && r*tr.rnormMin >= thresh {
		// No feature can pass the Pinsker test at this gap: skip the O(d)
		// pass.
		return 0, nil
	}
	var paper []float64
	if tr.op.Screen == ScreenPaper || tr.op.Screen == ScreenBoth {
		b, err := tr.paperBounds(xa, gap)
		if err != nil {
			return 0, err
		}
		paper = b
	}
	U := tr.m.NumUnary * tr.m.NumLabels()
	keep := tr.keepBuf[:0]
	removed := 0
	for k, j := range act {
		bound := math.Abs(tr.mAct[k]) + r*tr.rnorm[j]
		if paper != nil && int(j) < U {
			if tr.op.Screen == ScreenPaper {
				// The paper's rule alone on state features; features with
				// Rnorm 0 (identically zero) are still dropped.
				if tr.rnorm[j] > 0 {
					bound = paper[j]
				}
			} else {
				bound = math.Min(bound, paper[j])
			}
		}
		if bound < thresh {
			removed++
			tr.screenedSet.Set(int(j))
			continue
		}
		keep = append(keep, int32(k))
	}
	tr.keepBuf = keep
	if removed == 0 {
		return 0, nil
	}
	newAct := make([]int32, len(keep))
	for k, q := range keep {
		newAct[k] = act[q]
	}
	opt.Compact(keep, tr.op.ResetMemoryOnScreen)
	tr.mAct = sparse.Compact(tr.mAct, keep)
	obj.setActive(newAct)
	tr.screened += removed
	return removed, nil
}

// paperBounds evaluates the paper's Euclidean rule (T = 1 only) at the
// current point: an upper bound on |m_j(theta*)| for every state feature.
func (tr *trainer) paperBounds(xa []float64, gap float64) ([]float64, error) {
	obj := tr.obj
	m := tr.m
	U := m.NumUnary * m.NumLabels()
	if len(tr.wBuf) < len(m.W) {
		tr.wBuf = make([]float64, len(m.W))
		tr.mBuf = make([]float64, len(m.W))
	}
	w, mf := tr.wBuf[:U], tr.mBuf[:U]
	clear(w)
	clear(mf)
	for k, j := range obj.active {
		if int(j) < U {
			w[j] = xa[k]
			mf[j] = tr.mAct[k]
		}
	}
	delta := screen.DualResidual(tr.dBuf[:0], w, mf, tr.lam2/tr.lam1, tr.lam1)
	tr.dBuf = delta
	// Features outside the reduced problem contribute 0 to delta.
	live := sparse.NewBitset(U)
	for _, j := range obj.active {
		if int(j) < U {
			live.Set(int(j))
		}
	}
	for j := range delta {
		if !live.Has(j) {
			delta[j] = 0
		}
	}
	in := &screen.T1Input{Corpus: tr.c, L: m.NumLabels(), P: obj.mu, Delta: delta, M: mf, Gap: gap}
	b, err := screen.EuclideanT1(tr.pBuf[:0], in, screen.T1Options{})
	tr.pBuf = b
	return b, err
}

// featureRnorm returns the Pinsker constants Rnorm_j of every feature of the
// model layout (section 4 of the design note).
func featureRnorm(m *Model, c *sparse.Corpus) ([]float64, error) {
	return screen.Rnorm(nil, m.Layout, c)
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
