package train

import (
	"errors"
	"fmt"
	"math"
	"runtime"

	"github.com/sparsetag/sparsetag/train/objective"
)

// DefaultRelEpsilon is the default stopping rule: a certified gap of at
// most 0.1% of the objective (see README "Stopping rule").
const DefaultRelEpsilon = 1e-3

// DefaultC1 and DefaultC2 are the penalty of the zero Options, in the sum
// form: sound across corpora (CoNLL-2000 chunking F1 93.54, POS 91.2%,
// OCR letters 86.3%, Spanish NER F1 78.1), where a fraction of beta_max is
// not (0.1 beta_max, the default before, gave F1 38.6 on chunking and 0 on
// NER: see the README's results).
const (
	DefaultC1 = 1.0
	DefaultC2 = 1.0
)

// MaxPenalty bounds C1, C2 and Beta: above it every weight is zero to
// working precision on any corpus, so such a value is a mistake.
const MaxPenalty = 1e12

// Options configures Train. The zero value trains the sum form with
// C1 = C2 = 1 (DefaultC1, DefaultC2), Pinsker screening, the working-set
// solver started from DefaultWarmEpochs epochs of SGD, and stops when the
// certified duality gap is at most DefaultRelEpsilon (0.1%) of the
// objective. tagger train's defaults are these (its flags only set the
// fields).
//
// The objective is P(w) = (1/n) sum_i NLL_i(w) + beta (alpha/2 ||w||^2 + ||w||_1).
// The sum form used by CRFsuite and Wapiti, sum_i NLL_i + C1 ||w||_1 + C2 ||w||^2,
// is the same problem with beta = C1/n and alpha = 2 C2 / C1. Give the
// penalty in one form: C1 and C2 (SumForm is then implied), or the paper's
// Alpha with Beta or BetaRatio; Validate refuses a mix of both. With
// neither, the default sum form applies. C1 = 0 (pure L2) is allowed; it
// trains with plain L-BFGS.
//
// The options come in five groups, embedded so that each field reads as
// Options.Field: the problem (the penalty and the feature set), when to
// stop, the method, the resources and the hooks.
type Options struct {
	Problem
	Stopping
	Method
	Resources
	Hooks

	// tune, when not nil, replaces defaultTuning(): only tests set it, to
	// take the other of two ways to the same optimum on small problems.
	tune *tuning
}

// Problem is the part of Options that defines the optimum: the penalty,
// in one of two forms, and the feature set.
type Problem struct {
	// The paper's form (when any of the three is set): Alpha is the L2/L1
	// mix (0 means 1), Beta the strength (0 means BetaRatio * beta_max),
	// BetaRatio beta as a fraction of beta_max, below 1 (0 means 0.1).
	Alpha     float64
	Beta      float64
	BetaRatio float64

	// The sum form (when C1 or C2 is set, or SumForm): C1 >= 0, C2 >= 0.
	// With no penalty field set at all, C1 = DefaultC1 and C2 = DefaultC2.
	// C2 = 0 with C1 > 0 is pure L1 (CRF++'s CRF-L1), certified by a gap
	// of its own (nol2.go); C1 = C2 = 0 is no penalty, which has none and
	// stops on CRFsuite's rules: both run the full solver without
	// screening, and refuse what needs an L2 term (validateNoL2).
	SumForm bool
	C1, C2  float64

	// ObservedPairs restricts state and pair features to the (attribute,
	// label) pairs seen in the training data (CRFsuite's default). The
	// default uses every pair (CRF++, Wapiti and the paper).
	ObservedPairs bool

	// Prior, when not nil, is a full-size weight vector w0 in the model's
	// layout (an old model: chain.Model.WithPrior maps one onto new data)
	// that training keeps as a fixed offset: it fits w = Prior + v with
	// the elastic-net penalty on v alone, the same convex problem with
	// w0's scores added to every lattice, so the certified gap and the
	// Pinsker and static screening rules stay safe (a screened v_j = 0
	// leaves w_j = w0_j; proof in docs/prior.md). The solve starts from
	// v = 0 (the old model itself): no warm start; Init is refused with
	// it, as is the paper's rule (ScreenPaper, ScreenBoth). Path takes it
	// (beta_max is then ||m(w0)||_inf, and each beta warm-starts v).
	// m.W receives w = w0 + v. It is not modified.
	Prior []float64

	// Allowed, when not nil, holds the allowed labels of every position of
	// the corpus (partial labels; the corpus's own labels are ignored):
	// training maximizes the likelihood of every label sequence the sets
	// allow, whose numerator is a constrained forward-backward. That
	// objective is NOT convex: there is no certified gap and no safe
	// screening. The solve runs the full solver without screening from
	// zero (or Init; no warm start) and stops on the Delta rule (0 means
	// DefaultPartialDelta) or MaxIter; Result.Gap is then only a
	// stationarity measure. Asking for a gap target (Epsilon, RelEpsilon),
	// a screening rule, the working set or a certificate is refused, as is
	// Path. Pair attributes are not supported.
	Allowed *LabelSets

	// Weights, when not nil, holds one weight per sequence of the corpus
	// (finite, above 0; CRFsuite's @weight lines, dataset.SequenceWeights):
	// the loss becomes (1/n) sum_i Weights[i] NLL_i(w), n still the
	// number of sequences, so a weight of 2 counts a sequence twice. The
	// certified gap, the mixture certificate and the Pinsker and static
	// screening rules stay safe with the weights
	// (docs/crfsuite-algorithms.md, "The weighted dual"); the warm start
	// weighs its steps the same way. Refused with partial labels (Allowed)
	// and with the paper's rule (ScreenPaper, ScreenBoth). nil trains
	// exactly as unit weights did before they existed (the same bits).
	Weights []float64
}

// LabelSets holds the allowed labels of every position of a corpus
// (Problem.Allowed).
type LabelSets = objective.LabelSets

// NewLabelSets returns the sets of n positions over L labels, all empty.
func NewLabelSets(n, L int) *LabelSets { return objective.NewLabelSets(n, L) }

// DefaultPartialDelta is the Delta rule of a partial-label solve when
// Options.Delta is 0 (CRFsuite's default delta).
const DefaultPartialDelta = 1e-5

// Stopping is the part of Options that says when a solve stops.
type Stopping struct {
	// Epsilon is the target duality gap of the average-form objective: training
	// stops when P(w) - P(w*) <= G(w) <= Epsilon (the paper uses 1e-6,
	// which keeps ||w - w*|| <= sqrt(2 Epsilon / (alpha beta))).
	// RelEpsilon is the target gap relative to the objective: training
	// stops when G(w) <= RelEpsilon * P(w), which certifies that P(w) is
	// within that fraction of the optimum whatever the data's scale. When
	// both are 0, RelEpsilon is DefaultRelEpsilon; when only Epsilon is
	// set, only Epsilon applies.
	Epsilon    float64
	RelEpsilon float64
	// Delta and Period give CRFsuite's stopping rule as an option: stop when
	// the objective improved by less than Delta (relative) over the last
	// Period iterations. Delta = 0 disables it; Period 0 means 10.
	Delta   float64
	Period  int
	MaxIter int // OWL-QN iterations at most; 0 means 1000
}

// gapTarget is the gap at which a solve whose objective is primal stops:
// the larger of Epsilon and RelEpsilon times |primal|.
func (s Stopping) gapTarget(primal float64) float64 {
	return math.Max(s.Epsilon, s.RelEpsilon*math.Abs(primal))
}

// Method is the part of Options that says how the optimum is reached: the
// solver, the screening rule, the optimizer's memory and the starting
// point. It changes the path to the optimum, not the optimum.
type Method struct {
	// Solver selects the policy of the solver loop; "" means
	// SolverWorkingSet. The working set needs the Pinsker rule and an L1
	// term; with another rule or c1 = 0 the full policy runs, and
	// Result.Solver and Result.SolverReason say so.
	Solver Solver
	// Certificate selects the dual point of the working-set policy's gap;
	// "" means CertificateMixture. The full policy uses the model's own.
	Certificate Certificate
	Screen      ScreenRule // "" means ScreenPinsker
	Tau         float64    // screening safety margin; 0 means 1e-9
	// Gamma > 0 screens only when the gap has fallen by this factor since
	// the last check (the paper uses 0.5); 0 checks at every iteration.
	Gamma float64
	// ResetMemoryOnScreen clears the L-BFGS memory when features are removed
	// instead of compacting it.
	ResetMemoryOnScreen bool
	Memory              int // L-BFGS memory; 0 means 10

	// Init, when not nil, is a full-size weight vector to start from (warm
	// start). It is not modified.
	Init []float64

	// WarmEpochs is the number of epochs of stochastic gradient descent
	// with the cumulative L1 penalty (train/warmstart) that give the solve its
	// starting point when neither Init nor Resume is given; 0 means
	// DefaultWarmEpochs (a negative value is refused: to start from zero,
	// set ColdStart). It is deterministic (a fixed seed) and
	// single-threaded, and holds 16 B per unscreened feature while it runs.
	// Path does not use it (its betas start from the previous solution).
	WarmEpochs int
	// ColdStart starts the solve from zero, without the stochastic warm
	// start (tagger train --warm-epochs 0).
	ColdStart bool
}

// Resources is the part of Options that bounds what a run may use.
type Resources struct {
	Threads int // worker goroutines; 0 means runtime.NumCPU() (the model does not depend on it)
	// MemoryLimit > 0 makes Train refuse, before allocating, a run whose
	// EstimateMemory exceeds it (bytes), with an error naming the largest
	// term.
	MemoryLimit int64
}

// Hooks is the part of Options through which a run reports and is
// steered: the log, checkpoints, the interrupt and the monitor.
type Hooks struct {
	// Progress, when not nil, is called with every line of the log: the
	// start, every OWL-QN iteration of either policy, with its exact
	// objective (the working set's w is zero outside the set), and the
	// gap at the lines of full passes (Iteration.Pass).
	Progress func(Iteration)

	// Checkpoint, when not nil, is called at the first full pass after
	// every CheckpointEvery iterations (0 means 10) with the state needed
	// to continue the run, for either policy; Resume continues a run from
	// such a state and reaches the same model, bit for bit, as the
	// uninterrupted run (training is deterministic).
	Checkpoint      func(*Checkpoint) error
	CheckpointEvery int
	Resume          *Checkpoint

	// Interrupt, when not nil, ends training gracefully once it is closed
	// (for example on SIGINT): the current OWL-QN iteration finishes, a
	// full pass prices the point it reached (its certified gap), the
	// checkpoint is written when Checkpoint is set, and Train returns that
	// point with StopInterrupt and no error. Cancelling ctx instead aborts
	// at once with ctx's error and leaves the model unchanged. Along a path
	// the interrupted beta is the last one.
	Interrupt <-chan struct{}

	// Monitor, when not nil, is called at the first full pass after every
	// MonitorEvery iterations (0 means 10) with the current full-size
	// weights (scratch: copy what you keep); returning true stops training
	// with StopMonitor. Use it for early stopping on a validation set.
	Monitor      func(it Iteration, w []float64) (stop bool, err error)
	MonitorEvery int
}

// DefaultOptions returns the zero Options with every default filled in:
// the one source of the defaults, which tagger train's flags show.
func DefaultOptions() Options {
	var o Options
	return o.defaults()
}

// sumForm reports whether o gives its penalty in the sum form (SumForm,
// C1 or C2 set) and whether it gives it in the paper's (Alpha, Beta or
// BetaRatio set); neither means the default sum form.
func (o *Options) forms() (sum, paper bool) {
	return o.SumForm || o.C1 != 0 || o.C2 != 0, o.Alpha != 0 || o.Beta != 0 || o.BetaRatio != 0
}

func (o *Options) defaults() Options {
	r := *o
	switch sum, paper := r.forms(); {
	case sum:
		r.SumForm = true
	case !paper:
		r.SumForm, r.C1, r.C2 = true, DefaultC1, DefaultC2
	}
	if r.SumForm {
		return r.defaultsRest()
	}
	if r.Alpha == 0 {
		r.Alpha = 1
	}
	if r.BetaRatio == 0 {
		r.BetaRatio = 0.1
	}
	return r.defaultsRest()
}

// defaultsRest fills in every default but the penalty's.
func (o *Options) defaultsRest() Options {
	r := *o
	if r.Allowed != nil {
		// Not convex: no gap target, no screening (validate refused them).
		r.Screen, r.Solver, r.Certificate = ScreenNone, SolverFull, CertificateModel
		if r.Delta == 0 {
			r.Delta = DefaultPartialDelta
		}
	}
	if r.SumForm && r.C2 == 0 {
		// Pure L1 or no penalty (validateNoL2 refused the rest).
		r.Screen, r.Solver, r.Certificate = ScreenNone, SolverFull, CertificateModel
		if r.C1 == 0 && r.Epsilon == 0 {
			r.Epsilon = DefaultNoPenaltyEpsilon
		}
	}
	if r.Allowed == nil && r.Epsilon == 0 && r.RelEpsilon == 0 {
		r.RelEpsilon = DefaultRelEpsilon
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
	if r.ColdStart || r.Prior != nil || r.Allowed != nil {
		r.WarmEpochs = 0
	} else if r.WarmEpochs == 0 {
		r.WarmEpochs = DefaultWarmEpochs
	}
	if r.Screen == "" {
		r.Screen = ScreenPinsker
	}
	if r.Solver == "" {
		r.Solver = SolverWorkingSet
	}
	if r.Certificate == "" {
		r.Certificate = CertificateMixture
	}
	if r.CheckpointEvery <= 0 {
		r.CheckpointEvery = 10
	}
	if r.MonitorEvery <= 0 {
		r.MonitorEvery = 10
	}
	if r.Tau == 0 {
		r.Tau = 1e-9
	}
	return r
}

// Validate reports the first option that makes no sense whatever the
// data: a negative, NaN or infinite penalty, tolerance or screening
// setting, sum-form penalties without an L2 term, a negative count, an
// unknown solver or screening rule. Zero values are valid (they mean the
// defaults). Train, Path and selection.CrossValidate check the same; call Validate
// to refuse bad options before reading any data.
func (o Options) Validate() error { return o.validate() }

func (o *Options) validate() error {
	for _, v := range []struct {
		name string
		x    float64
	}{{"alpha", o.Alpha}, {"beta", o.Beta}, {"beta ratio", o.BetaRatio}, {"c1", o.C1}, {"c2", o.C2}, {"epsilon", o.Epsilon}, {"relative epsilon", o.RelEpsilon}, {"delta", o.Delta}, {"tau", o.Tau}, {"gamma", o.Gamma}} {
		if math.IsNaN(v.x) || math.IsInf(v.x, 0) || v.x < 0 {
			return fmt.Errorf("train: option %s = %v: want a finite non-negative number", v.name, v.x)
		}
	}
	sum, paper := o.forms()
	switch {
	case sum && paper:
		return fmt.Errorf("train: the penalty is given in both forms (c1 %v, c2 %v and alpha %v, beta %v, beta ratio %v): give the sum form (C1, C2) or the paper's (Alpha with Beta or BetaRatio), not both", o.C1, o.C2, o.Alpha, o.Beta, o.BetaRatio)
	case o.BetaRatio >= 1:
		return fmt.Errorf("train: beta ratio %v: at or above beta_max every weight is zero; want 0 < ratio < 1 (0.01 or less for a useful model)", o.BetaRatio)
	}
	for _, v := range []struct {
		name string
		x    float64
	}{{"c1", o.C1}, {"c2", o.C2}, {"beta", o.Beta}} {
		if v.x > MaxPenalty {
			return fmt.Errorf("train: %s = %v is absurd: above %g every weight is zero to working precision (typical values are 0.01 to 10)", v.name, v.x, MaxPenalty)
		}
	}
	if o.WarmEpochs < 0 {
		return fmt.Errorf("train: warm epochs = %d: want >= 0 (0 means %d; to start from zero, set ColdStart)", o.WarmEpochs, DefaultWarmEpochs)
	}
	if o.MaxIter < 0 || o.Memory < 0 || o.Period < 0 || o.Threads < 0 {
		return errors.New("train: max-iter, memory, period and threads must be >= 0")
	}
	switch o.Solver {
	case "", SolverFull, SolverWorkingSet:
	default:
		return fmt.Errorf("train: unknown solver %q (want working-set or full)", o.Solver)
	}
	switch o.Certificate {
	case "", CertificateMixture, CertificateModel:
	default:
		return fmt.Errorf("train: unknown certificate %q (want mixture or model)", o.Certificate)
	}
	switch o.Screen {
	case "", ScreenNone, ScreenPinsker, ScreenPaper, ScreenBoth:
	default:
		return fmt.Errorf("train: unknown screening rule %q (want none, pinsker, paper or both)", o.Screen)
	}
	if o.Allowed != nil {
		const why = "partial labels (Allowed) make the objective non-convex: no certified gap and no safe screening; it stops on the Delta rule"
		switch {
		case o.Epsilon != 0 || o.RelEpsilon != 0:
			return fmt.Errorf("train: a gap target (epsilon %v, relative epsilon %v) with %s", o.Epsilon, o.RelEpsilon, why)
		case o.Screen != "" && o.Screen != ScreenNone:
			return fmt.Errorf("train: screening rule %q with %s", o.Screen, why)
		case o.Solver == SolverWorkingSet:
			return fmt.Errorf("train: the working-set solver needs safe screening; %s", why)
		case o.Certificate != "":
			return fmt.Errorf("train: certificate %q with %s", o.Certificate, why)
		}
	}
	if err := o.validateNoL2(); err != nil {
		return err
	}
	if o.Weights != nil {
		switch {
		case o.Allowed != nil:
			return errors.New("train: sequence weights with partial labels (Allowed) are not supported")
		case o.Screen == ScreenPaper || o.Screen == ScreenBoth:
			return fmt.Errorf("train: screening rule %q is not proven with sequence weights; use %q", o.Screen, ScreenPinsker)
		}
	}
	if o.Prior != nil {
		switch {
		case o.Init != nil:
			return errors.New("train: Init and Prior both given: with a prior the solve starts from the prior itself (v = 0)")
		case o.Screen == ScreenPaper || o.Screen == ScreenBoth:
			return fmt.Errorf("train: screening rule %q is not proven with a prior; use %q (docs/prior.md)", o.Screen, ScreenPinsker)
		}
	}
	return nil
}
