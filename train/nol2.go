package train

import (
	"errors"
	"fmt"

	"github.com/sparsetag/sparsetag/train/certificate"
)

// Training without an L2 term (the sum form with C2 = 0): pure L1 when
// C1 > 0, no penalty when C1 = 0, as CRFsuite's and Wapiti's lbfgs and
// CRF++'s CRF-L1 accept. Both run the full solver (one OWL-QN iteration
// per pass over every feature) without screening and stop on the Delta
// rule or MaxIter as well.
//
// Pure L1 is certified (docs/crfsuite-algorithms.md, "Pure L1: a
// certificate"; certificate.PureL1Gap): the gold labelings mixed into the
// model's distributions give a dual point inside ||m||_inf <= beta.
//
// No penalty has no dual constraint to repair and no gap: the log's Gap is
// CRFsuite's gradient test ||grad L|| / max(1, ||w||), and the run stops
// when it is at most Epsilon (CRFsuite's epsilon, default
// DefaultNoPenaltyEpsilon), on the Delta rule or on MaxIter. Nothing is
// certified.

// DefaultNoPenaltyEpsilon is Epsilon without a penalty (C1 = C2 = 0):
// CRFsuite's lbfgs epsilon, a bound on ||grad|| / max(1, ||w||).
const DefaultNoPenaltyEpsilon = 1e-5

// noL2 reports whether the options train without an L2 term.
func (o *Options) noL2() bool {
	sum, _ := o.forms()
	return sum && o.C2 == 0
}

// validateNoL2 refuses, without an L2 term, what needs one: the screening
// rules (their radius is derived with it), the working set (it needs
// screening), the mixture certificate, partial labels, a prior and a gap
// target relative to the objective without a penalty (there is no gap).
func (o *Options) validateNoL2() error {
	if !o.noL2() {
		return nil
	}
	what := "pure L1 (c2 = 0)"
	if o.C1 == 0 {
		what = "no penalty (c1 = c2 = 0)"
	}
	switch {
	case o.Screen != "" && o.Screen != ScreenNone:
		return fmt.Errorf("train: screening rule %q with %s: the rules are derived with an L2 term (the full solver runs without screening)", o.Screen, what)
	case o.Solver == SolverWorkingSet:
		return fmt.Errorf("train: the working-set solver with %s: it needs screening (the full solver runs)", what)
	case o.Certificate == CertificateMixture:
		return fmt.Errorf("train: the mixture certificate with %s: it is derived with an L2 term", what)
	case o.Allowed != nil || o.Prior != nil:
		return fmt.Errorf("train: partial labels or a prior with %s are not supported", what)
	case o.C1 == 0 && o.RelEpsilon != 0:
		return errors.New("train: a relative gap target with no penalty (c1 = c2 = 0): there is no gap; Epsilon bounds CRFsuite's gradient test")
	}
	return nil
}

// noL2Gap returns the gap of a full pass without an L2 term at x, with m
// = -grad L over every feature of the feature set (the full policy without
// screening): the pure-L1 certificate, or CRFsuite's gradient test with no
// penalty (train/certificate: PureL1Gap, GradientTest).
func (tr *trainer) noL2Gap(x, m []float64) float64 {
	if tr.pen.l1 == 0 {
		return certificate.GradientTest(x, m)
	}
	return certificate.PureL1Gap(x, m, tr.pen.l1, tr.obj.Stats().SequenceLosses, tr.op.Weights)
}

// none reports whether the penalty has neither an L1 nor an L2 term.
func (p penalty) none() bool { return p.l1 == 0 && p.l2 == 0 }
