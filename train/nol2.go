package train

import (
	"errors"
	"fmt"
	"math"
)

// Training without an L2 term (the sum form with C2 = 0): pure L1 when
// C1 > 0, no penalty when C1 = 0, as CRFsuite's and Wapiti's lbfgs and
// CRF++'s CRF-L1 accept. Both run the full solver (one OWL-QN iteration
// per pass over every feature) without screening and stop on the Delta
// rule or MaxIter as well.
//
// Pure L1 is certified (docs/crfsuite-algorithms.md, "Pure L1: a
// certificate"): without the L2 term the dual gains the constraint
// ||m(theta)||_inf <= beta, and the point theta_i = c p_w,i + (1 - c)
// delta(y_i) with c = min(1, beta / ||m_s(p_w)||_inf) is feasible, with
// m_s(theta) = c m_s(p_w) (m_s is affine in theta and 0 at the gold
// labelings). Its gap P(w) + D(theta) is, as for every dual point,
//
//	G = (1/n) sum_i s_i KL(theta_i || p_w,i) + sum_j (beta |w_j| - c w_j m_j),
//
// and KL(theta_i || p_w,i) has a closed form in p = p_w,i(y_i) =
// exp(-NLL_i): c (1 - p) log c + x log(x / p), x = c p + 1 - c (theta_i
// is c p_w,i off the gold labeling). Each term is computed on its own,
// without the difference of two numbers near log Z that the entropy form
// would take. c is rounded down by a relative 1e-12 so that the computed m
// scaled by it is inside the constraint by a margin.
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
// penalty (see the comment above).
func (tr *trainer) noL2Gap(x, m []float64) float64 {
	if tr.pen.l1 == 0 {
		g, w := 0.0, 0.0
		for k, v := range m {
			g += v * v
			w += x[k] * x[k]
		}
		return math.Sqrt(g) / math.Max(1, math.Sqrt(w))
	}
	l1 := tr.pen.l1
	inf := 0.0
	for _, v := range m {
		inf = math.Max(inf, math.Abs(v)) // NaN wins: the gap is NaN
		if math.IsNaN(v) {
			return math.NaN()
		}
	}
	c := 1.0
	if inf > l1 {
		c = l1 / inf * (1 - 1e-12)
	}
	g := 0.0
	for k, v := range x {
		g += l1*math.Abs(v) - c*v*m[k]
	}
	return g + tr.mixtureKL(c)
}

// mixtureKL returns (1/n) sum_i s_i KL(theta_i || p_w,i) for theta_i = c
// p_w,i + (1 - c) delta(y_i), from the sequence losses NLL_i of the last
// evaluation.
func (tr *trainer) mixtureKL(c float64) float64 {
	if c == 1 {
		return 0
	}
	nll := tr.obj.SequenceLosses()
	logc := math.Log(c)
	sum := 0.0
	for i, l := range nll {
		p := math.Exp(-l)
		x := c*p + 1 - c
		kl := c*(1-p)*logc + x*(math.Log(x)+l)
		if tr.op.Weights != nil {
			kl *= tr.op.Weights[i]
		}
		sum += kl
	}
	return sum / float64(len(nll))
}

// noPenalty reports whether the solve has neither an L1 nor an L2 term
// (false for a nil trainer: a bare run of a test).
func (tr *trainer) noPenalty() bool { return tr != nil && tr.pen.l1 == 0 && tr.pen.l2 == 0 }
