package trainselect

import (
	"fmt"
	"io"

	"github.com/sparsetag/sparsetag/train"
	"github.com/sparsetag/sparsetag/train/selection"
)

// SelectRow is one beta of a model-selection path (tagger train --select
// or --select-folds): a row of the JSON report and of the printed table.
type SelectRow struct {
	K          int       `json:"k"`
	Ratio      float64   `json:"beta_over_beta_max"`
	Beta       float64   `json:"beta"`
	C1         float64   `json:"c1"`
	C2         float64   `json:"c2"`
	Passes     int       `json:"passes"`
	Iterations int       `json:"iterations"`
	NonZero    int       `json:"nonzero"`
	Screened   int       `json:"screened"`
	Gap        float64   `json:"gap"`
	Score      float64   `json:"dev_score"`
	EvalScore  *float64  `json:"eval_score,omitempty"` // --select-eval
	FoldScores []float64 `json:"fold_scores,omitempty"`
	Seconds    float64   `json:"seconds"`
	Chosen     bool      `json:"chosen"`
}

// SelectReport is the JSON report of tagger train --select (or
// --select-folds).
type SelectReport struct {
	Train     string  `json:"train"`
	Dev       string  `json:"dev,omitempty"`
	Folds     int     `json:"folds,omitempty"`
	Metric    string  `json:"metric"`
	Alpha     float64 `json:"alpha"`
	BetaMax   float64 `json:"beta_max"`
	Sequences int     `json:"train_sequences"`
	Betas     int     `json:"betas"`
	Floor     float64 `json:"floor"`
	HardFloor float64 `json:"hard_floor,omitempty"` // --select-hard-floor (0: no extension)
	// Extended is the number of betas of Path below Floor: the score still
	// rose at Floor, so the path went on (train.PathOptions.Extend).
	Extended     int         `json:"extended,omitempty"`
	Chosen       int         `json:"chosen"`
	SecondsTotal float64     `json:"seconds_total"`
	Path         []SelectRow `json:"path"`
	Refit        *SelectRow  `json:"refit,omitempty"`
}

// NewSelectRow is the row of result r, the k-th of a path over n training
// sequences (c1 and c2 are the sum-form penalties of n sequences).
func NewSelectRow(k int, r *train.Result, n int) SelectRow {
	row := SelectRow{K: k, Ratio: r.Beta / r.BetaMax, Beta: r.Beta, C1: r.Beta * float64(n), C2: r.Lambda2 * float64(n) / 2,
		Passes: r.NumPasses(), Iterations: r.NumIterations(), NonZero: r.NonZero, Screened: r.Screened, Gap: r.Gap, Seconds: r.Seconds}
	if r.Score != nil {
		row.Score = *r.Score
	}
	return row
}

// SetPath fills the report of a selection on a development set: the rows
// of a scored path over rep.Sequences training sequences (train.Path with
// a Score) and the chosen one (train.Selected); evals[k], when there, is
// the --select-eval score of solution k.
func (rep *SelectReport) SetPath(res []*train.Result, evals []float64) {
	rep.Alpha, rep.BetaMax = res[0].Alpha, res[0].BetaMax
	rep.Chosen, rep.Path = train.Selected(res), nil
	for k, r := range res {
		rep.Path = append(rep.Path, NewSelectRow(k, r, rep.Sequences))
		if k < len(evals) {
			rep.Path[k].EvalScore = &evals[k]
		}
	}
	rep.Path[rep.Chosen].Chosen = true
	rep.Extended = train.Extended(res, rep.Betas)
}

// SetCV fills the report of a cross-validation: one row per grid point
// with fold 0's path (over n0 training sequences), the mean and the fold
// scores and the seconds of every fold; then the refit's last result (the
// chosen model over rep.Sequences sequences, its seconds those of the
// whole refit path).
func (rep *SelectReport) SetCV(cv *selection.CVResult, n0 int, refit []*train.Result) {
	rep.Path, rep.Chosen = make([]SelectRow, len(cv.Ratios)), cv.Chosen
	for k := range rep.Path {
		row := NewSelectRow(k, cv.Results[0][k], n0)
		row.Score, row.FoldScores, row.Chosen = cv.Mean[k], cv.Scores[k], k == cv.Chosen
		for _, res := range cv.Results[1:] {
			row.Seconds += res[k].Seconds
		}
		rep.Path[k] = row
	}
	last := refit[len(refit)-1]
	r := NewSelectRow(cv.Chosen, last, rep.Sequences)
	for _, res := range refit[:len(refit)-1] {
		r.Seconds += res.Seconds
	}
	rep.Refit, rep.Alpha, rep.BetaMax = &r, last.Alpha, last.BetaMax
	rep.Extended = max(len(cv.Ratios)-rep.Betas, 0)
}

// Print writes the path table, the chosen row marked with '*', and the
// summary lines.
func (rep *SelectReport) Print(w io.Writer) {
	fmt.Fprintf(w, "model selection on %s: alpha %g, beta_max %.6g, %d training sequences\n", rep.source(), rep.Alpha, rep.BetaMax, rep.Sequences)
	fmt.Fprintf(w, "  %3s  %11s  %10s  %6s  %6s  %8s  %9s  %9s  %9s  %8s", "k", "beta/bmax", "c1", "passes", "iters", "nonzero", "screened", "gap", "dev", "seconds")
	if rep.Path[0].EvalScore != nil {
		fmt.Fprintf(w, "  %9s", "eval")
	}
	fmt.Fprintln(w)
	for k, r := range rep.Path {
		if k == rep.Betas && rep.Extended > 0 {
			fmt.Fprintf(w, "  -- below --select-floor %g: the score was still rising there --\n", rep.Floor)
		}
		mark := " "
		if r.Chosen {
			mark = "*"
		}
		fmt.Fprintf(w, "%s %3d  %11.4g  %10.4g  %6d  %6d  %8d  %9d  %9.2e  %9.4f  %8.1f",
			mark, r.K, r.Ratio, r.C1, r.Passes, r.Iterations, r.NonZero, r.Screened, r.Gap, r.Score, r.Seconds)
		if r.EvalScore != nil {
			fmt.Fprintf(w, "  %9.4f", *r.EvalScore)
		}
		fmt.Fprintln(w)
	}
	ch := rep.Path[rep.Chosen]
	fmt.Fprintf(w, "selected: beta/beta_max %.4g (beta %.4g, c1 %.4g, c2 %.4g), %s %.4f, %d non-zero\n",
		ch.Ratio, ch.Beta, ch.C1, ch.C2, rep.Metric, ch.Score, ch.NonZero)
	last := len(rep.Path) - 1
	switch {
	case rep.Extended > 0:
		fmt.Fprintf(w, "note: the score was still rising at --select-floor %g, so the path went on below it: %d more betas, down to beta/beta_max %.4g",
			rep.Floor, rep.Extended, rep.Path[last].Ratio)
		if rep.Chosen == last {
			fmt.Fprintf(w, ", the hard floor (--select-hard-floor %g), still rising: a smaller hard floor may select a better model\n", rep.HardFloor)
		} else {
			fmt.Fprintf(w, ", where it had peaked (%d below the best: --patience)\n", last-rep.Chosen)
		}
	case rep.Chosen == last && len(rep.Path) == rep.Betas:
		fmt.Fprintf(w, "note: the score was still improving at the smallest penalty; a smaller --select-floor (now %g) may select a better model\n", rep.Floor)
	}
	if r := rep.Refit; r != nil {
		fmt.Fprintf(w, "refit on all %d sequences: beta %.4g (c1 %.4g, c2 %.4g), %d non-zero, gap %.2e, %.1fs\n",
			rep.Sequences, r.Beta, r.C1, r.C2, r.NonZero, r.Gap, r.Seconds)
	}
	fmt.Fprintf(w, "select: %d betas, %.1fs\n", len(rep.Path), rep.SecondsTotal)
}

func (rep *SelectReport) source() string {
	if rep.Dev != "" {
		return rep.Dev
	}
	return fmt.Sprintf("%d folds of %s", rep.Folds, rep.Train)
}
