package online

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Algorithm names an online trainer by CRFsuite's name.
type Algorithm string

// The trainers of this package (CRFsuite's train_*.c).
const (
	L2SGD Algorithm = "l2sgd" // SGD with L2 regularization and a calibrated learning rate
	AP    Algorithm = "ap"    // averaged perceptron
	PA    Algorithm = "pa"    // passive-aggressive (types 0, 1, 2)
	AROW  Algorithm = "arow"  // adaptive regularization of weights
)

// Algorithms lists the trainers in CRFsuite's order.
var Algorithms = []Algorithm{L2SGD, AP, PA, AROW}

// Params holds CRFsuite's parameters of one algorithm under CRFsuite's
// names, defaults and meaning (NewParams sets the defaults; Set changes
// one by name, as crfsuite learn -p name=value does).
type Params struct {
	Algorithm Algorithm

	MaxIterations int     // max_iterations: epochs at most (l2sgd 1000, the others 100)
	Epsilon       float64 // epsilon (ap, pa, arow): stop when the epoch's loss / n is below it (0)

	// pa
	Type           int     // type: 0 (PA), 1 (PA-I), 2 (PA-II); default 1
	C              float64 // c: the aggressiveness (1)
	ErrorSensitive bool    // error_sensitive: cost = margin + sqrt(#errors) instead of + 1 (true)
	Averaging      bool    // averaging: return the average of the weights (true)

	// arow
	Variance float64 // variance: initial variance of every weight (1)
	Gamma    float64 // gamma: the tradeoff (1)

	// l2sgd
	C2                    float64 // c2: the L2 coefficient of sum NLL + c2 ||w||^2 (1)
	Period                int     // period: epochs over which the improvement is measured (10)
	Delta                 float64 // delta: stop when the improvement over period epochs is below it (1e-6)
	CalibrationEta        float64 // calibration.eta: the first candidate learning rate (0.1)
	CalibrationRate       float64 // calibration.rate: factor between candidates (2)
	CalibrationSamples    int     // calibration.samples: sequences of the calibration sample (1000)
	CalibrationCandidates int     // calibration.candidates: candidates that improve on w = 0 (10)
	CalibrationMaxTrials  int     // calibration.max_trials: calibration epochs at most (20)

	// The feature set (every algorithm).
	Features FeatureSet
}

// param describes one parameter: its name, the algorithms that take it
// (nil: all), its default and help, and how to set it.
type param struct {
	name string
	algs []Algorithm
	def  string
	help string
	set  func(p *Params, v string) error
}

var params = []param{
	{"max_iterations", nil, "100 (l2sgd: 1000)", "maximum number of epochs", func(p *Params, v string) error { return setInt(&p.MaxIterations, v, 1) }},
	{"epsilon", []Algorithm{AP, PA, AROW}, "0", "stop when the epoch's loss divided by the number of sequences is below this (ap: ratio of wrong labels; pa, arow: mean cost)", func(p *Params, v string) error { return setFloat(&p.Epsilon, v, 0, false) }},
	{"type", []Algorithm{PA}, "1", "0: PA without slack, 1: PA-I, 2: PA-II", func(p *Params, v string) error {
		if err := setInt(&p.Type, v, 0); err != nil {
			return err
		}
		if p.Type > 2 {
			return fmt.Errorf("must be 0, 1 or 2")
		}
		return nil
	}},
	{"c", []Algorithm{PA}, "1", "aggressiveness (PA-I, PA-II)", func(p *Params, v string) error { return setFloat(&p.C, v, 0, true) }},
	{"error_sensitive", []Algorithm{PA}, "1", "1: the cost counts sqrt(number of wrong labels); 0: it counts 1", func(p *Params, v string) error { return setBool(&p.ErrorSensitive, v) }},
	{"averaging", []Algorithm{PA}, "1", "1: return the average of the weights over all updates", func(p *Params, v string) error { return setBool(&p.Averaging, v) }},
	{"variance", []Algorithm{AROW}, "1", "initial variance of every weight", func(p *Params, v string) error { return setFloat(&p.Variance, v, 0, true) }},
	{"gamma", []Algorithm{AROW}, "1", "tradeoff between the loss and the change of the weights", func(p *Params, v string) error { return setFloat(&p.Gamma, v, 0, true) }},
	{"c2", []Algorithm{L2SGD}, "1", "L2 coefficient: minimizes sum_i s_i NLL_i + c2 ||w||^2 (s_i: sequence weights)", func(p *Params, v string) error { return setFloat(&p.C2, v, 0, true) }},
	{"period", []Algorithm{L2SGD}, "10", "epochs over which the improvement of the objective is measured", func(p *Params, v string) error { return setInt(&p.Period, v, 1) }},
	{"delta", []Algorithm{L2SGD}, "1e-6", "stop when the objective improved by less than this fraction over period epochs", func(p *Params, v string) error { return setFloat(&p.Delta, v, 0, false) }},
	{"calibration.eta", []Algorithm{L2SGD}, "0.1", "first candidate learning rate", func(p *Params, v string) error { return setFloat(&p.CalibrationEta, v, 0, true) }},
	{"calibration.rate", []Algorithm{L2SGD}, "2", "factor between candidate learning rates (> 1)", func(p *Params, v string) error {
		if err := setFloat(&p.CalibrationRate, v, 0, true); err != nil {
			return err
		}
		if p.CalibrationRate <= 1 {
			return fmt.Errorf("must be above 1")
		}
		return nil
	}},
	{"calibration.samples", []Algorithm{L2SGD}, "1000", "sequences of the calibration sample", func(p *Params, v string) error { return setInt(&p.CalibrationSamples, v, 1) }},
	{"calibration.candidates", []Algorithm{L2SGD}, "10", "candidate learning rates that must improve on w = 0", func(p *Params, v string) error { return setInt(&p.CalibrationCandidates, v, 1) }},
	{"calibration.max_trials", []Algorithm{L2SGD}, "20", "calibration epochs at most", func(p *Params, v string) error { return setInt(&p.CalibrationMaxTrials, v, 1) }},
	{"feature.minfreq", nil, "0", "drop features seen less often than this in training", func(p *Params, v string) error { return setFloat(&p.Features.MinFreq, v, 0, false) }},
	{"feature.possible_states", nil, "0", "1: every (attribute, label) pair of an observed attribute", func(p *Params, v string) error { return setBool(&p.Features.PossibleStates, v) }},
	{"feature.possible_transitions", nil, "0", "1: every label transition", func(p *Params, v string) error { return setBool(&p.Features.PossibleTransitions, v) }},
}

// NewParams returns CRFsuite's defaults for algorithm a.
func NewParams(a Algorithm) (*Params, error) {
	if !slices.Contains(Algorithms, a) {
		return nil, fmt.Errorf("online: unknown algorithm %q (want l2sgd, ap, pa or arow)", a)
	}
	p := &Params{Algorithm: a, MaxIterations: 100, Type: 1, C: 1, ErrorSensitive: true, Averaging: true,
		Variance: 1, Gamma: 1, C2: 1, Period: 10, Delta: 1e-6, CalibrationEta: 0.1, CalibrationRate: 2,
		CalibrationSamples: 1000, CalibrationCandidates: 10, CalibrationMaxTrials: 20}
	if a == L2SGD {
		p.MaxIterations = 1000
	}
	return p, nil
}

// Set sets the parameter name (CRFsuite's name) to value, or returns an
// error naming the parameter and saying what it takes.
func (p *Params) Set(name, value string) error {
	for _, q := range params {
		if q.name != name {
			continue
		}
		if q.algs != nil && !slices.Contains(q.algs, p.Algorithm) {
			return fmt.Errorf("online: parameter %s does not apply to %s (its parameters: %s)", name, p.Algorithm, strings.Join(Names(p.Algorithm), ", "))
		}
		if err := q.set(p, strings.TrimSpace(value)); err != nil {
			return fmt.Errorf("online: %s=%s: %v", name, value, err)
		}
		return nil
	}
	return fmt.Errorf("online: unknown parameter %q of %s (its parameters: %s)", name, p.Algorithm, strings.Join(Names(p.Algorithm), ", "))
}

// Names returns the parameter names algorithm a takes, sorted.
func Names(a Algorithm) []string {
	var out []string
	for _, q := range params {
		if q.algs == nil || slices.Contains(q.algs, a) {
			out = append(out, q.name)
		}
	}
	sort.Strings(out)
	return out
}

// Help returns one line per parameter of algorithm a: name, default, help.
func Help(a Algorithm) []string {
	var out []string
	for _, q := range params {
		if q.algs == nil || slices.Contains(q.algs, a) {
			def := q.def
			if q.name == "max_iterations" {
				def = "100"
				if a == L2SGD {
					def = "1000"
				}
			}
			out = append(out, fmt.Sprintf("%s (default %s): %s", q.name, def, q.help))
		}
	}
	return out
}

func setInt(dst *int, v string, min int) error {
	n, err := strconv.Atoi(v)
	if err != nil {
		return fmt.Errorf("not an integer")
	}
	if n < min {
		return fmt.Errorf("must be at least %d", min)
	}
	*dst = n
	return nil
}

func setFloat(dst *float64, v string, min float64, strict bool) error {
	x, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
		return fmt.Errorf("not a finite number")
	}
	if x < min || (strict && x == min) {
		if strict {
			return fmt.Errorf("must be above %g", min)
		}
		return fmt.Errorf("must be at least %g", min)
	}
	*dst = x
	return nil
}

func setBool(dst *bool, v string) error {
	switch v {
	case "0":
		*dst = false
	case "1":
		*dst = true
	default:
		return fmt.Errorf("must be 0 or 1")
	}
	return nil
}

// Validate checks p (Set validates each value; Validate checks a Params
// built by hand).
func (p *Params) Validate() error {
	if !slices.Contains(Algorithms, p.Algorithm) {
		return fmt.Errorf("online: unknown algorithm %q", p.Algorithm)
	}
	bad := func(name string, v any) error {
		return fmt.Errorf("online: %s=%v is out of range (see online.Help)", name, v)
	}
	switch {
	case p.MaxIterations < 1:
		return bad("max_iterations", p.MaxIterations)
	case !(p.Epsilon >= 0):
		return bad("epsilon", p.Epsilon)
	case p.Type < 0 || p.Type > 2:
		return bad("type", p.Type)
	case !(p.C > 0) || math.IsInf(p.C, 0):
		return bad("c", p.C)
	case !(p.Variance > 0) || math.IsInf(p.Variance, 0):
		return bad("variance", p.Variance)
	case !(p.Gamma > 0) || math.IsInf(p.Gamma, 0):
		return bad("gamma", p.Gamma)
	case !(p.C2 > 0) || math.IsInf(p.C2, 0):
		return bad("c2", p.C2)
	case p.Period < 1:
		return bad("period", p.Period)
	case !(p.Delta >= 0):
		return bad("delta", p.Delta)
	case !(p.CalibrationEta > 0):
		return bad("calibration.eta", p.CalibrationEta)
	case !(p.CalibrationRate > 1):
		return bad("calibration.rate", p.CalibrationRate)
	case p.CalibrationSamples < 1:
		return bad("calibration.samples", p.CalibrationSamples)
	case p.CalibrationCandidates < 1:
		return bad("calibration.candidates", p.CalibrationCandidates)
	case p.CalibrationMaxTrials < 1:
		return bad("calibration.max_trials", p.CalibrationMaxTrials)
	case !(p.Features.MinFreq >= 0):
		return bad("feature.minfreq", p.Features.MinFreq)
	}
	return nil
}
