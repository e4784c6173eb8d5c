package paperbench

import (
	"encoding/json"
	"fmt"

	"github.com/sparsetag/sparsetag/internal/atomicfile"
	"github.com/sparsetag/sparsetag/train"
)

// TrainReport is the JSON training report of one solve (tagger train
// --report, and one element of a path report). Field names are part of the
// CLI contract: scripts read them.
type TrainReport struct {
	Data             string            `json:"data,omitempty"`
	Alpha            float64           `json:"alpha"`
	Beta             float64           `json:"beta"`
	BetaMax          float64           `json:"beta_max"`
	BetaRatio        float64           `json:"beta_ratio"` // beta / beta_max
	Features         int               `json:"features"`   // d, the size of the model's feature set
	Screen           string            `json:"screen"`
	Solver           string            `json:"solver"`        // working-set or full: the policy that ran (at the end)
	SolverReason     string            `json:"solver_reason"` // "requested", or why the working set did not run or handed over
	Epsilon          float64           `json:"epsilon"`
	RelEpsilon       float64           `json:"rel_epsilon"` // target gap relative to the objective (0: not used)
	Gamma            float64           `json:"gamma"`
	Iterations       []train.Iteration `json:"iterations"`
	NonzeroFinal     int               `json:"nonzero_final"`
	ScreenedFinal    int               `json:"screened_final"`
	ScreenedStatic   int               `json:"screened_static"` // by the static range rule, before the first pass (included in screened_final)
	GapFinal         float64           `json:"gap_final"`
	SecondsTotal     float64           `json:"seconds_total"`
	SecondsScreening float64           `json:"seconds_screening"`
	StopReason       string            `json:"stop_reason"`
	Converged        bool              `json:"converged"`
	// WarmStart is the stochastic warm start before the solve (absent when
	// none ran); seconds_total and the iterations' seconds include its
	// seconds, their evaluations do not count its epochs.
	WarmStart *train.WarmStart `json:"warm_start,omitempty"`
	// Warnings are the result's (train.Result.Warnings): a penalty that
	// zeroes every weight or leaves no state weight.
	Warnings []string `json:"warnings,omitempty"`
}

// PathReport is the JSON report of a regularization path (tagger path
// --report).
type PathReport struct {
	Data         string        `json:"data"`
	Alpha        float64       `json:"alpha"`
	BetaMax      float64       `json:"beta_max"`
	Features     int           `json:"features"`
	Screen       string        `json:"screen"`
	Epsilon      float64       `json:"epsilon"`
	Gamma        float64       `json:"gamma"`
	K            int           `json:"k"`
	MinRatio     float64       `json:"min_ratio"`
	SecondsTotal float64       `json:"seconds_total"` // wall time of the whole path, set-up included
	Path         []TrainReport `json:"path"`
}

// NewTrainReport converts a training result. gamma is the screening trigger
// of the run (train.Options.Gamma), which the result does not record.
func NewTrainReport(data string, res *train.Result, gamma float64) TrainReport {
	r := TrainReport{
		Data: data, Alpha: res.Alpha, Beta: res.Beta, BetaMax: res.BetaMax, Features: res.Dimension,
		Screen: string(res.Screen), Solver: string(res.Solver), SolverReason: res.SolverReason, ScreenedStatic: res.ScreenedStatic, Epsilon: res.Epsilon, RelEpsilon: res.RelEpsilon, Gamma: gamma, Iterations: res.Iterations,
		NonzeroFinal: res.NonZero, ScreenedFinal: res.Screened, GapFinal: res.Gap,
		SecondsTotal: res.Seconds, SecondsScreening: res.SecondsScreening,
		StopReason: string(res.StopReason), Converged: res.Converged, WarmStart: res.Warm,
		Warnings: res.Warnings,
	}
	if res.BetaMax > 0 {
		r.BetaRatio = res.Beta / res.BetaMax
	}
	if r.Iterations == nil {
		r.Iterations = []train.Iteration{}
	}
	return r
}

// WriteJSON writes v as indented JSON to path atomically (internal/atomicfile).
func WriteJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return atomicfile.WriteFile(path, append(b, '\n'))
}
