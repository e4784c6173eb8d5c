package train

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/screen"
	"github.com/sparsetag/sparsetag/sparse"
	"github.com/sparsetag/sparsetag/train/internal/owlqn"
	"github.com/sparsetag/sparsetag/train/objective"
	"github.com/sparsetag/sparsetag/train/warmstart"
)

// penalty is the average-form elastic net of a solve: l1 ||w||_1 +
// l2/2 ||w||^2 (l1 = beta, l2 = alpha beta; in the sum form l1 = C1/n and
// l2 = 2 C2/n). The trainer holds the one copy; the objective and the
// optimizer are handed what they need per call.
type penalty struct{ l1, l2 float64 }

// trainer holds the state of one training run: the feature set, the
// objective over it and the screening constants. The state of one solve
// (the optimizer, m, the gap) is the solver loop's (run, solve.go); what a
// solve starts from and what it hands to the next are values (solveInput,
// solveOutput), never trainer fields.
type trainer struct {
	m   *chain.Model
	c   *sparse.Corpus
	op  Options
	fs  *objective.Features // the objective's: only it changes the active set
	obj *objective.Objective

	betaMax    float64     // ||m(0)||_inf over the feature set
	pen        penalty     // the penalty of the current solve
	rnorm      *rnormTable // the Pinsker constants (nil when not screening)
	rnormMin   float64     // smallest Rnorm over the feature set
	static     []float64   // full size, the static range bounds B_j (sum form; nil when not screening)
	screenSecs float64
	// staticCount is the number of features the static rule removed (beyond
	// those with Rnorm 0) for the current penalty.
	staticCount int

	wBuf, mBuf, dBuf, pBuf []float64 // scratch of the paper's rule
	keepBuf                []int32   // scratch of screening
	scratch                screenScratch
	wMon                   []float64      // full-size weights for Options.Monitor
	digest                 digestCache    // the problem's digest for checkpoints, computed once
	cx                     *sparse.Corpus // c with its dense blocks expanded, for the paper's rule (expandedOnce)
}

// setup is the one preparation of Train and Path: it checks the options
// (which it returns with the defaults filled in), the corpus, the initial
// weights and the memory estimate, then makes the trainer and fixes its
// feature set, beta_max and screening constants.
func setup(ctx context.Context, m *chain.Model, c *sparse.Corpus, opts Options) (*trainer, error) {
	if err := opts.validate(); err != nil {
		return nil, err
	}
	op := opts.defaults()
	if err := checkCorpus(m, c); err != nil {
		return nil, err
	}
	if op.Init != nil && len(op.Init) != len(m.W) {
		return nil, fmt.Errorf("train: initial weights have length %d, model needs %d", len(op.Init), len(m.W))
	}
	if op.Prior != nil && len(op.Prior) != len(m.W) {
		return nil, fmt.Errorf("train: prior weights have length %d, model needs %d", len(op.Prior), len(m.W))
	}
	if op.Weights != nil {
		if err := objective.CheckWeights(op.Weights, c.Len()); err != nil {
			return nil, err
		}
	}
	if err := checkMemory(m, c, op); err != nil {
		return nil, err
	}
	tr := newTrainer(m, c, op)
	if op.Prior != nil {
		// The solution is written into m.W, which may be the caller's
		// Prior: keep a copy for finish.
		tr.op.Prior = slices.Clone(op.Prior)
	}
	if err := configure(tr.obj, tr.op); err != nil {
		return nil, err
	}
	if err := tr.prepare(ctx); err != nil {
		return nil, err
	}
	return tr, nil
}

// configure installs the options' sequence weights, label sets and prior
// on an objective.
func configure(obj *objective.Objective, op Options) error {
	if err := obj.SetWeights(op.Weights); err != nil {
		return err
	}
	if op.Allowed != nil {
		if err := obj.SetPartial(op.Allowed); err != nil {
			return err
		}
	}
	if op.Prior != nil {
		return obj.SetPrior(op.Prior)
	}
	return nil
}

// tuning holds the thresholds that choose between two ways to the same
// optimum: which accumulation the objective uses, when the working set
// hands over to the full policy. Runs use defaultTuning; a test sets the
// fields of its own value (Options.tune) to take the other way on a small
// problem. It is read only.
type tuning struct {
	fusedBudget     int          // the objective's Settings.FusedBudget (0: its default)
	wsDenseFraction float64      // see defaultWSDenseFraction
	wsSwitchMin     int          // see defaultWSSwitchMin
	newton          newtonTuning // the Newton candidate (newton.go)
}

// defaultTuning returns the tuning of every run but a test's.
func defaultTuning() tuning {
	return tuning{wsDenseFraction: defaultWSDenseFraction, wsSwitchMin: defaultWSSwitchMin, newton: defaultNewton()}
}

// tuned returns the tuning of a run: o.tune, or defaultTuning.
func (o *Options) tuned() tuning {
	if o.tune == nil {
		return defaultTuning()
	}
	return *o.tune
}

func newTrainer(m *chain.Model, c *sparse.Corpus, op Options) *trainer {
	tr := &trainer{m: m, c: c, op: op}
	tr.obj = objective.New(m, c, objective.Settings{Threads: op.Threads, FusedBudget: op.tuned().fusedBudget})
	tr.fs = tr.obj.Features()
	return tr
}

// optSettings are the optimizer settings of every solve.
func (tr *trainer) optSettings() owlqn.Settings {
	return owlqn.Settings{M: tr.op.Memory, L1: tr.pen.l1, Threads: tr.op.Threads}
}

// isTransition reports whether feature j is a label-bigram feature.
func (tr *trainer) isTransition(j int32) bool {
	return int(j) >= tr.m.Layout.TransOffset() && int(j) < tr.m.Layout.PairOffset()
}

// countedBetaMax returns beta_max from counts (objective.UniformBetaMax)
// where only the sum form reports it, and whether it could: the paper
// form's penalty is a fraction of beta_max, whose bits then come from the
// pass (computeBetaMax) as always.
func countedBetaMax(obj *objective.Objective, op Options) (float64, bool) {
	if !op.SumForm {
		return 0, false
	}
	return obj.UniformBetaMax()
}

// computeBetaMax sets beta_max = ||m(0)||_inf over the feature set from a
// pass at w = 0. The paper form needs its exact value (beta is a fraction
// of it), computed as always with every feature active; the sum form (with
// a prior or partial labels, or counts that give a non-finite value, where
// countedBetaMax cannot) only reports it,
// and gets it from one pass with no active feature and the expectations
// of every feature (no full-size m or references).
func (tr *trainer) computeBetaMax(ctx context.Context) error {
	fs := tr.fs
	if !tr.op.SumForm {
		tr.obj.SetActive(fs.AllSlice(), false)
		_, m, err := tr.obj.Loss(ctx, make([]float64, fs.Size()))
		if err != nil {
			return err
		}
		tr.betaMax = screen.BetaMax(m)
		tr.obj.SetActive(nil, false) // let the full-size buffers go before screening and the warm start
		return nil
	}
	tr.obj.SetActive(nil, false)
	if _, _, err := tr.obj.Loss(ctx, nil); err != nil {
		return err
	}
	tr.betaMax = tr.obj.MaxAbsResidual(fs.All)
	return nil
}

// lambdas returns the average-form L1 and L2 coefficients for the options,
// given beta (0: ratio * beta_max).
func (tr *trainer) lambdas(beta, ratio float64) (penalty, error) {
	op := tr.op
	n := float64(tr.c.Len())
	var lam1, lam2 float64
	if op.SumForm {
		lam1, lam2 = op.C1/n, 2*op.C2/n
	} else {
		if beta == 0 {
			beta = ratio * tr.betaMax
		}
		lam1, lam2 = beta, op.Alpha*beta
	}
	if !(lam2 > 0) && !op.noL2() {
		return penalty{}, errors.New("train: the L2 coefficient alpha*beta must be > 0 (beta_max is 0: do all training labels agree?)")
	}
	return penalty{l1: lam1, l2: lam2}, nil
}

// setPenalty installs the penalty of a solve and starts its screening from
// scratch (a screened set is never reused at another penalty): features
// whose Rnorm is 0 are identically zero functions of y (m_j = 0 always),
// so w*_j = 0 for every beta. last says that no other penalty will be
// solved (the static bounds can go after use).
func (tr *trainer) setPenalty(pen penalty, last bool) {
	tr.pen = pen
	tr.screenSecs = 0
	tr.fs.ResetScreening()
	if tr.rnorm == nil || pen.l1 <= 0 {
		return
	}
	for j := range tr.fs.All {
		if tr.rnorm.at(j) == 0 {
			tr.fs.Screen(j)
		}
	}
	tr.staticScreen(last)
}

// newResult starts the result of a solve.
func (tr *trainer) newResult() *Result {
	res := &Result{Screen: tr.op.Screen, Epsilon: tr.op.Epsilon, RelEpsilon: tr.op.RelEpsilon, Dimension: tr.fs.Size(),
		BetaMax: tr.betaMax, Beta: tr.pen.l1, Lambda2: tr.pen.l2}
	if tr.pen.l1 > 0 {
		res.Alpha = tr.pen.l2 / tr.pen.l1
	}
	return res
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

// resizeFloats returns s with length n, reusing its storage when it can.
func resizeFloats(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n)
	}
	return s[:n]
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

// checkFinite reports the first weight that is NaN or infinite: w[k] is
// the weight of feature idx[k] (idx nil: of feature k).
func checkFinite(w []float64, idx []int32) error {
	for k, v := range w {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			j := k
			if idx != nil {
				j = int(idx[k])
			}
			return fmt.Errorf("train: weight %d is %v", j, v)
		}
	}
	return nil
}

// checkCorpus validates the training corpus against the model layout.
func checkCorpus(m *chain.Model, c *sparse.Corpus) error {
	if err := c.Validate(m.NumLabels()); err != nil {
		return fmt.Errorf("train: training corpus: %w", err)
	}
	if c.Labels == nil {
		return errors.New("train: training corpus has no labels")
	}
	if c.Len() == 0 {
		return errors.New("train: training corpus is empty")
	}
	if c.NumUnary > m.Layout.NumUnary || c.NumPair > m.Layout.NumPair {
		return fmt.Errorf("train: corpus has %d/%d attributes, model only %d/%d", c.NumUnary, c.NumPair, m.Layout.NumUnary, m.Layout.NumPair)
	}
	return nil
}

// warmStart runs the stochastic warm start of Options.WarmEpochs at the
// penalty of the solve (setPenalty, which has screened the features that
// are zero whatever the data's dual point; free are the others, the
// unscreened features) and returns its point and what it did (a discarded
// point is empty). onEpoch, when not nil, is called after every epoch
// (tests).
func (tr *trainer) warmStart(ctx context.Context, free []int32, onEpoch func(warmstart.Point)) (sparsePoint, *WarmStart, error) {
	p := warmstart.Problem{Model: tr.m, Corpus: tr.c, Weights: tr.op.Weights, L1: tr.pen.l1, L2: tr.pen.l2, Frozen: tr.frozenFeatures(), Free: free}
	w, info, err := warmstart.Run(ctx, p, warmstart.Settings{Epochs: tr.op.WarmEpochs, Interrupt: tr.op.Interrupt, OnEpoch: onEpoch})
	return sparsePoint{idx: w.Idx, val: w.Val}, info, err
}

// frozenFeatures returns the features the warm start keeps at zero (nil:
// none): those outside the model's feature set and those setPenalty
// screened (Rnorm 0, and the static range rule's).
func (tr *trainer) frozenFeatures() sparse.Bitset {
	d := len(tr.m.W)
	if tr.fs.Size() == d && tr.fs.Screened() == 0 {
		return nil
	}
	frozen := sparse.NewBitset(d)
	for j := 0; j < d; j++ {
		if !tr.fs.InSet(int32(j)) || tr.fs.IsScreened(int32(j)) {
			frozen.Set(j)
		}
	}
	return frozen
}
