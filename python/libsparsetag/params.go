package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"
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

// Parameters of CRFsuite's crf1d feature generation (crf1d_encode.c), which
// every algorithm has, first, as crfsuite's params() lists them.
var featureParams = []param{
	{Name: "feature.minfreq", Type: "float", Default: "0.000000", Help: "The minimum frequency of features."},
	{Name: "feature.possible_states", Type: "bool", Default: "0", Help: "Force to generate possible state features."},
	{Name: "feature.possible_transitions", Type: "bool", Default: "0", Help: "Force to generate possible transition features.",
		Ignored: "every transition is a feature whatever this says (its weight is 0 in the saved model when unused)"},
}

// extraParams are sparsetag's own, accepted by every algorithm.
var extraParams = []param{
	{Name: "threads", Type: "int", Default: "0", Extra: true, Help: "Worker threads for training (0: every core). The model does not depend on it."},
}

// algorithms holds each training algorithm's own parameters under
// CRFsuite's names, defaults and help (train_lbfgs.c, ...). An algorithm
// CRFsuite has but this library does not train yet maps to nil: its name is
// known and refused with a message. To add one, give its table here and
// its trainer in fit.go.
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
	"l2sgd":               nil,
	"averaged-perceptron": nil,
	"passive-aggressive":  nil,
	"arow":                nil,
}

// aliases are the short names python-crfsuite accepts.
var aliases = map[string]string{"ap": "averaged-perceptron", "pa": "passive-aggressive"}

// canonical returns the algorithm's CRFsuite name, or an error for an
// unknown algorithm and for one not trained here yet.
func canonical(algorithm string) (string, error) {
	a := strings.ToLower(algorithm)
	if c, ok := aliases[a]; ok {
		a = c
	}
	ps, ok := algorithms[a]
	if !ok {
		return "", fmt.Errorf("unknown training algorithm %q (CRFsuite's are lbfgs, l2sgd, ap, pa and arow)", algorithm)
	}
	if ps == nil {
		return "", fmt.Errorf("training algorithm %q is not available in sparsetag yet: only lbfgs (L-BFGS, OWL-QN when c1 > 0) trains today", algorithm)
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
	out := append([]param(nil), featureParams...)
	out = append(out, algorithms[a]...)
	return append(out, extraParams...), nil
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
