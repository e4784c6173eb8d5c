package main

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/sparsetag/sparsetag/train/online"
)

// param is one training parameter under CRFsuite's name, with its
// default as CRFsuite prints it and its help text.
type param struct {
	Name    string `json:"name"`
	Type    string `json:"type"` // "float", "int", "bool" (0 or 1, as CRFsuite's int flags) or "string"
	Default string `json:"default"`
	Help    string `json:"help"`
	// Extra marks a parameter of sparsetag that CRFsuite does not have.
	Extra bool `json:"extra,omitempty"`
	// Ignored says why an accepted CRFsuite parameter has no effect here
	// ("" when it has one).
	Ignored string `json:"ignored,omitempty"`
	// Choices restricts a string parameter.
	Choices []string `json:"choices,omitempty"`
}

// featureParams are the parameters of CRFsuite's crf1d feature generation
// (crf1d_encode.c), which every algorithm has, first, as crfsuite's
// params() lists them.
func featureParams(algorithm string) []param {
	ps := []param{
		{Name: "feature.minfreq", Type: "float", Default: "0.000000", Help: "The minimum frequency of features."},
		{Name: "feature.possible_states", Type: "bool", Default: "0", Help: "Force to generate possible state features."},
		{Name: "feature.possible_transitions", Type: "bool", Default: "0", Help: "Force to generate possible transition features."},
	}
	if algorithm == "lbfgs" {
		ps[2].Ignored = "every transition is a feature whatever this says (its weight is 0 in the saved model when unused)"
	}
	return ps
}

// extraParams are sparsetag's own, accepted by every algorithm (seed by
// the online ones only).
func extraParams(algorithm string) []param {
	threads := param{Name: "threads", Type: "int", Default: "0", Extra: true, Help: "Worker threads for training (0: every core). The model does not depend on it."}
	template := param{Name: "template", Type: "string", Default: "", Extra: true,
		Help: "A CRF++ template (its text) over the token columns of sequences appended with append_columns; empty for attribute items."}
	if algorithm == "lbfgs" {
		return []param{threads, template,
			{Name: "path", Type: "int", Default: "0", Extra: true,
				Help: "Train along an elastic-net path of this many penalties (0: one model at c1, c2): c1 from c1_max (every weight zero) down to path.min_ratio c1_max at the ratio c2/c1 of the parameters, warm-started and screened from one to the next; with holdout sequences (train(model, holdout)), the model with the best score on them (chunk F1 or token accuracy) is kept and the path stops once the score has peaked, otherwise the last."},
			{Name: "path.min_ratio", Type: "float", Default: "0.100000", Extra: true, Help: "The smallest c1 of the path, as a fraction of c1_max (0 < path.min_ratio < 1)."},
			{Name: "path.folds", Type: "int", Default: "0", Extra: true,
				Help: "Select the penalty of the path by K-fold cross-validation of the training sequences (K >= 2; sequence i is in fold i mod K, each fold encoded on its own): every fold solves the path on the others and is scored on itself, the c1 of the best mean score is chosen and the model is refit on every sequence down to it (tagger train --select-folds K). Needs path > 0 and no holdout; 0: no cross-validation."},
		}
	}
	threads.Ignored = "CRFsuite's online algorithms update the weights one sequence at a time: they run on one thread"
	return []param{threads, template,
		{Name: "seed", Type: "int", Default: "0", Extra: true, Help: "The order of the sequences: 0 (the default) visits them in CRFsuite 0.12's own order (its unseeded C-library rand() of glibc), so that training follows CRFsuite's epochs, losses and model up to rounding; N > 0 draws a new permutation every epoch from seed N instead. The model is a function of the data, the parameters and the seed."}}
}

// The help texts CRFsuite's online trainers share (train_*.c).
const (
	helpMaxIter   = "The maximum number of iterations."
	helpEpsMean   = "The stopping criterion (the mean loss)."
	maxIterOnline = "100"
)

// algorithms holds each training algorithm's own parameters under
// CRFsuite's names, defaults (as CRFsuite prints them) and help
// (train_lbfgs.c, train_l2sgd.c, train_averaged_perceptron.c,
// train_passive_aggressive.c, train_arow.c). lbfgs trains with package
// train's certified elastic net, the others with package train/online;
// onlineParams maps and range-checks the latter's values.
var algorithms = map[string][]param{
	"lbfgs": {
		{Name: "c1", Type: "float", Default: "0.000000", Help: "Coefficient for L1 regularization."},
		{Name: "c2", Type: "float", Default: "1.000000", Help: "Coefficient for L2 regularization."},
		{Name: "max_iterations", Type: "int", Default: strconv.Itoa(math.MaxInt32), Help: "The maximum number of iterations for L-BFGS optimization."},
		{Name: "num_memories", Type: "int", Default: "6", Help: "The number of limited memories for approximating the inverse hessian matrix."},
		{Name: "epsilon", Type: "float", Default: "0.000010", Help: "Epsilon for testing the convergence of the objective. Here: the certified duality gap relative to the objective (CRFsuite: the gradient norm relative to the weights' norm)."},
		{Name: "period", Type: "int", Default: "10", Help: "The duration of iterations to test the stopping criterion."},
		{Name: "delta", Type: "float", Default: "0.000010", Help: "The threshold for the stopping criterion; an L-BFGS iteration stops when the\nimprovement of the log likelihood over the last ${period} iterations is no\ngreater than this threshold."},
		{Name: "linesearch", Type: "string", Default: "MoreThuente", Choices: []string{"MoreThuente", "Backtracking", "StrongBacktracking"},
			Help:    "The line search algorithm used in L-BFGS updates:\n{   'MoreThuente': More and Thuente's method,\n    'Backtracking': Backtracking method with regular Wolfe condition,\n    'StrongBacktracking': Backtracking method with strong Wolfe condition\n}\n",
			Ignored: "sparsetag's OWL-QN uses its own backtracking line search"},
		{Name: "max_linesearch", Type: "int", Default: "20", Help: "The maximum number of trials for the line search algorithm.",
			Ignored: "sparsetag's OWL-QN uses its own backtracking line search"},
	},
	"l2sgd": {
		{Name: "c2", Type: "float", Default: "1.000000", Help: "Coefficient for L2 regularization."},
		{Name: "max_iterations", Type: "int", Default: "1000", Help: "The maximum number of iterations (epochs) for SGD optimization."},
		{Name: "period", Type: "int", Default: "10", Help: "The duration of iterations to test the stopping criterion."},
		{Name: "delta", Type: "float", Default: "0.000001", Help: "The threshold for the stopping criterion; an optimization process stops when\nthe improvement of the log likelihood over the last ${period} iterations is no\ngreater than this threshold."},
		{Name: "calibration.eta", Type: "float", Default: "0.100000", Help: "The initial value of learning rate (eta) used for calibration."},
		{Name: "calibration.rate", Type: "float", Default: "2.000000", Help: "The rate of increase/decrease of learning rate for calibration."},
		{Name: "calibration.samples", Type: "int", Default: "1000", Help: "The number of instances used for calibration."},
		{Name: "calibration.candidates", Type: "int", Default: "10", Help: "The number of candidates of learning rate."},
		{Name: "calibration.max_trials", Type: "int", Default: "20", Help: "The maximum number of trials of learning rates for calibration."},
	},
	"averaged-perceptron": {
		{Name: "max_iterations", Type: "int", Default: maxIterOnline, Help: helpMaxIter},
		{Name: "epsilon", Type: "float", Default: "0.000000", Help: "The stopping criterion (the ratio of incorrect label predictions)."},
	},
	"passive-aggressive": {
		{Name: "type", Type: "int", Default: "1", Help: "The strategy for updating feature weights: {\n    0: PA without slack variables,\n    1: PA type I,\n    2: PA type II\n}.\n"},
		{Name: "c", Type: "float", Default: "1.000000", Help: "The aggressiveness parameter."},
		{Name: "error_sensitive", Type: "bool", Default: "1", Help: "Consider the number of incorrect labels to the cost function."},
		{Name: "averaging", Type: "bool", Default: "1", Help: "Compute the average of feature weights (similarly to Averaged Perceptron)."},
		{Name: "max_iterations", Type: "int", Default: maxIterOnline, Help: helpMaxIter},
		{Name: "epsilon", Type: "float", Default: "0.000000", Help: helpEpsMean},
	},
	"arow": {
		{Name: "variance", Type: "float", Default: "1.000000", Help: "The initial variance of every feature weight."},
		{Name: "gamma", Type: "float", Default: "1.000000", Help: "Tradeoff parameter."},
		{Name: "max_iterations", Type: "int", Default: maxIterOnline, Help: helpMaxIter},
		{Name: "epsilon", Type: "float", Default: "0.000000", Help: helpEpsMean},
	},
}

// aliases are the short names python-crfsuite accepts.
var aliases = map[string]string{"ap": "averaged-perceptron", "pa": "passive-aggressive"}

// onlineAlgorithm maps CRFsuite's names of the online trainers onto
// package train/online's.
var onlineAlgorithm = map[string]online.Algorithm{
	"l2sgd": online.L2SGD, "averaged-perceptron": online.AP, "passive-aggressive": online.PA, "arow": online.AROW,
}

// canonical returns the algorithm's CRFsuite name, or an error for an
// unknown algorithm.
func canonical(algorithm string) (string, error) {
	a := strings.ToLower(algorithm)
	if c, ok := aliases[a]; ok {
		a = c
	}
	if _, ok := algorithms[a]; !ok {
		return "", fmt.Errorf("unknown training algorithm %q (CRFsuite's are lbfgs, l2sgd, ap, pa and arow)", algorithm)
	}
	return a, nil
}

// paramTable returns every parameter of the algorithm, in CRFsuite's order
// (features first), sparsetag's extras last.
func paramTable(algorithm string) ([]param, error) {
	a, err := canonical(algorithm)
	if err != nil {
		return nil, err
	}
	out := featureParams(a)
	out = append(out, algorithms[a]...)
	return append(out, extraParams(a)...), nil
}

// onlineParams maps parsed parameters of an online algorithm onto
// train/online's, which checks each value's range (a count at least 1, a
// rate above 0, ...) and says what it takes.
func onlineParams(alg string, p params) (*online.Params, error) {
	op, err := online.NewParams(onlineAlgorithm[alg])
	if err != nil {
		return nil, err
	}
	for _, name := range online.Names(op.Algorithm) {
		var text string
		if v, ok := p.floats[name]; ok {
			text = strconv.FormatFloat(v, 'g', -1, 64)
		} else if v, ok := p.ints[name]; ok {
			text = strconv.Itoa(v)
		} else {
			return nil, fmt.Errorf("parameter %s of %s has no value (internal error)", name, alg)
		}
		if err := op.Set(name, text); err != nil {
			return nil, errors.New(strings.TrimPrefix(err.Error(), "online: "))
		}
	}
	if p.ints["seed"] < 0 {
		return nil, fmt.Errorf("parameter seed = %d: want 0 or more", p.ints["seed"])
	}
	return op, nil
}

// params are parsed parameter values.
type params struct {
	floats  map[string]float64
	ints    map[string]int
	strings map[string]string
}

// parseParams checks values (name → text, as Python sends them) against
// the algorithm's table and fills in the defaults.
func parseParams(algorithm string, given map[string]string) (params, error) {
	tab, err := paramTable(algorithm)
	if err != nil {
		return params{}, err
	}
	p := params{floats: map[string]float64{}, ints: map[string]int{}, strings: map[string]string{}}
	known := map[string]bool{}
	for _, d := range tab {
		known[d.Name] = true
		text, ok := given[d.Name]
		if !ok {
			text = d.Default
		}
		text = strings.TrimSpace(text)
		switch d.Type {
		case "float":
			v, err := strconv.ParseFloat(text, 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				return p, fmt.Errorf("parameter %s = %q: want a finite number", d.Name, text)
			}
			p.floats[d.Name] = v
		case "int", "bool":
			v, err := strconv.Atoi(text)
			if err != nil {
				f, ferr := strconv.ParseFloat(text, 64)
				if ferr != nil || f != math.Trunc(f) || math.Abs(f) > math.MaxInt32 {
					return p, fmt.Errorf("parameter %s = %q: want an integer", d.Name, text)
				}
				v = int(f)
			}
			if d.Type == "bool" {
				v = min(max(v, 0), 1)
			}
			p.ints[d.Name] = v
		default:
			if len(d.Choices) > 0 {
				okc := false
				for _, c := range d.Choices {
					okc = okc || c == text
				}
				if !okc {
					return p, fmt.Errorf("parameter %s = %q: want one of %s", d.Name, text, strings.Join(d.Choices, ", "))
				}
			}
			p.strings[d.Name] = text
		}
	}
	for name := range given {
		if !known[name] {
			return p, fmt.Errorf("parameter not found: %s (algorithm %s)", name, algorithm)
		}
	}
	return p, nil
}
