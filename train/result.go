package train

import "github.com/sparsetag/sparsetag/sparse"

// Iteration is one line of the training log: the start and every OWL-QN
// iteration, at the point X reached. Lines of full passes (Pass) carry the
// certified duality gap of the whole problem (the pass's own gap, or P
// minus the best dual bound Primal - Gap of the solve's earlier passes if
// smaller: it never grows while Primal does not); the other lines (inner
// iterations of the working-set policy) have Gap 0. A full pass may repeat the Iter of
// the line before it (the inner solve ended without a step) and its
// objective may exceed the previous line's only when screening set
// non-zero weights to zero (Zeroed > 0).
type Iteration struct {
	Iter     int     `json:"iter"`
	Primal   float64 `json:"primal"`
	Gap      float64 `json:"gap"`
	Pass     bool    `json:"pass"`
	Zeroed   int     `json:"zeroed,omitempty"`
	Active   int     `json:"active"`
	Screened int     `json:"screened"`
	NonZero  int     `json:"nonzero"`
	// Seconds since the solve started, its warm start included.
	Seconds float64 `json:"seconds"`
	// Evaluations is the number of passes over the data (objective
	// evaluations: forward-backward on every sequence) since the solve
	// started (a resumed run counts from the resume).
	Evaluations int `json:"evaluations"`
	// Warm, on the first line of a solve only, is its stochastic warm
	// start (nil when none ran): a log can say how the start was found
	// before the iterations from it.
	Warm *WarmStart `json:"-"`
}

// Result summarizes a training run.
type Result struct {
	// The average-form penalty of the solve: Beta is the L1 coefficient
	// (in the sum form C1/n), Lambda2 the L2 coefficient (alpha beta; in
	// the sum form 2 C2/n) and Alpha = Lambda2/Beta (0 when Beta is 0).
	Alpha, Beta, BetaMax float64
	Lambda2              float64
	Screen               ScreenRule
	Solver               Solver // the policy that ran
	SolverReason         string // why: "requested", or why the working set could not run
	Epsilon              float64
	RelEpsilon           float64
	Iterations           []Iteration
	NonZero              int
	Screened             int
	ScreenedStatic       int // removed by the static range rule before the first pass (included in Screened)
	Dimension            int // number of features in the model's feature set
	Gap, Primal          float64
	Seconds              float64
	Evaluations          int // passes over the data (objective evaluations) of the solve
	SecondsScreening     float64
	Converged            bool // the gap reached Epsilon (or the Delta rule fired)
	StopReason           StopReason
	// Warm describes the stochastic warm start (nil when none ran); Seconds
	// and the Iterations' seconds include it, Evaluations does not count
	// its epochs.
	Warm *WarmStart `json:",omitempty"`
	// Score is the PathOptions.Score of the solution (nil when not scored).
	Score *float64 `json:",omitempty"`
	// Warnings says what makes the model doubtful whatever the data: a
	// penalty at or above beta_max (every weight zero), or no non-zero
	// state weight (the model ignores its input), each with what to try.
	Warnings []string `json:",omitempty"`
	// ScreenedSet holds the full indices of the features removed by
	// screening (nil without screening).
	ScreenedSet sparse.Bitset `json:"-"`
}

// NumIterations returns the number of OWL-QN iterations of the solve, for
// both policies (Iter of the last line).
func (r *Result) NumIterations() int {
	if len(r.Iterations) == 0 {
		return 0
	}
	return r.Iterations[len(r.Iterations)-1].Iter
}

// NumPasses returns the number of full passes after the first: one per
// iteration for the full policy, one per inner solve for the working set.
func (r *Result) NumPasses() int {
	n := 0
	for _, it := range r.Iterations {
		if it.Pass {
			n++
		}
	}
	return max(n-1, 0)
}

// Passes returns the lines of the log that full passes wrote (with the
// gap of the whole problem).
func (r *Result) Passes() []Iteration {
	var out []Iteration
	for _, it := range r.Iterations {
		if it.Pass {
			out = append(out, it)
		}
	}
	return out
}
