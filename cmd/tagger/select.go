package main

import (
	"fmt"
	"io"
	"time"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/dataset"
	"github.com/sparsetag/sparsetag/internal/paperbench"
	"github.com/sparsetag/sparsetag/sparse"
	"github.com/sparsetag/sparsetag/train"
)

// selectRow is one beta of a model-selection path (the JSON report and the
// printed table).
type selectRow struct {
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

// selectReport is the JSON report of tagger train --select.
type selectReport struct {
	Train        string      `json:"train"`
	Dev          string      `json:"dev,omitempty"`
	Folds        int         `json:"folds,omitempty"`
	Metric       string      `json:"metric"`
	Alpha        float64     `json:"alpha"`
	BetaMax      float64     `json:"beta_max"`
	Sequences    int         `json:"train_sequences"`
	Betas        int         `json:"betas"`
	Floor        float64     `json:"floor"`
	Chosen       int         `json:"chosen"`
	SecondsTotal float64     `json:"seconds_total"`
	Path         []selectRow `json:"path"`
	Refit        *selectRow  `json:"refit,omitempty"`
}

// newSelectRow is the row of result r of a path over n training sequences.
func newSelectRow(k int, r *train.Result, n int) selectRow {
	row := selectRow{K: k, Ratio: r.Beta / r.BetaMax, Beta: r.Beta, C1: r.Lambda1 * float64(n), C2: r.Lambda2 * float64(n) / 2,
		Passes: len(r.Iterations) - 1, Iterations: r.NumIterations(), NonZero: r.NonZero, Screened: r.Screened, Gap: r.Gap, Seconds: r.Seconds}
	if r.Score != nil {
		row.Score = *r.Score
	}
	return row
}

// selectModel trains by model selection: a regularization path from
// beta_max down to --select-floor beta_max (warm starts, screening,
// working sets), each model scored on the --select file (or by
// --select-folds cross-validation), stopped once the score has peaked;
// it keeps the best model.
func selectModel(e *env, path string, tf *trainFlags, op train.Options, m *chain.Model, c *sparse.Corpus, exs []dataset.Example) (*chain.Model, error) {
	if err := tf.checkSelect(); err != nil {
		return nil, err
	}
	t0 := time.Now()
	rep := &selectReport{Train: path, Dev: tf.selectDev, Folds: tf.selectFolds, Betas: tf.betas, Floor: tf.selectFloor, Sequences: c.Len()}
	var err error
	if tf.selectDev != "" {
		err = selectOnDev(e, tf, op, m, c, rep)
	} else {
		m, err = selectByFolds(e, tf, op, m, c, exs, rep)
	}
	if err != nil {
		return nil, err
	}
	rep.SecondsTotal = time.Since(t0).Seconds()
	printSelect(e.stdout, rep)
	if tf.report != "" {
		if err := paperbench.WriteJSON(tf.report, rep); err != nil {
			return nil, err
		}
	}
	if err := m.SaveFile(tf.model); err != nil {
		return nil, err
	}
	if !tf.quiet {
		fmt.Fprintf(e.stderr, "wrote %s\n", tf.model)
	}
	return m, nil
}

func (tf *trainFlags) checkSelect() error {
	switch {
	case tf.selectDev != "" && tf.selectFolds > 0:
		return usagef("give --select FILE or --select-folds K, not both")
	case tf.selectFolds == 1 || tf.selectFolds < 0:
		return usagef("--select-folds must be >= 2")
	case tf.valid != "" || tf.ckpt != "" || tf.init != "":
		return usagef("--select does not combine with --valid, --checkpoint or --init")
	case tf.c1 == 0:
		return usagef("--select needs --c1 > 0 (with --c2 it fixes the L1/L2 ratio; the path varies the penalty)")
	case tf.betas < 2 || !(tf.selectFloor > 0 && tf.selectFloor < 1):
		return usagef("--select needs --betas >= 2 and 0 < --select-floor < 1")
	case tf.patience < 1:
		return usagef("--patience must be >= 1")
	}
	return nil
}

// pathProgress prints one line per solved beta on stderr.
func pathProgress(e *env, tf *trainFlags, what string) func(k int, r *train.Result, _ []float64) error {
	return func(k int, r *train.Result, _ []float64) error {
		if !tf.quiet {
			s := ""
			if r.Score != nil {
				s = fmt.Sprintf(", dev %.4f", *r.Score)
			}
			fmt.Fprintf(e.stderr, "%s beta %d/%d: beta/beta_max %.3g, %d non-zero, gap %.2e (%s), %.1fs%s\n",
				what, k+1, tf.betas, r.Beta/r.BetaMax, r.NonZero, r.Gap, r.StopReason, r.Seconds, s)
		}
		return nil
	}
}

// devScorer returns the score of weights w of m on the labeled examples:
// chunk F1 for chunk labels, token accuracy otherwise (Evaluation.F1).
func devScorer(m *chain.Model, dev []dataset.Example) func(w []float64) (float64, error) {
	es := &earlyStop{m: m, valid: dev}
	return es.score
}

func selectOnDev(e *env, tf *trainFlags, op train.Options, m *chain.Model, c *sparse.Corpus, rep *selectReport) error {
	dev, err := readExamples(tf.selectDev, dataFlags{format: tf.format, folds: tf.validFold}, true, e.stdin)
	if err != nil {
		return err
	}
	po := train.PathOptions{K: tf.betas, MinRatio: tf.selectFloor, Patience: tf.patience, Score: devScorer(m, dev)}
	each := pathProgress(e, tf, "path")
	var evals []float64
	if tf.selectEval != "" {
		if each, err = evalEach(e, tf, m, each, &evals); err != nil {
			return err
		}
	}
	res, err := train.Path(e.ctx, m, c, op, po, each)
	if err != nil {
		return err
	}
	rep.Metric = metricName(m)
	rep.Alpha, rep.BetaMax = res[0].Alpha, res[0].BetaMax
	rep.Chosen = train.Selected(res)
	for k, r := range res {
		rep.Path = append(rep.Path, newSelectRow(k, r, c.Len()))
		if k < len(evals) {
			rep.Path[k].EvalScore = &evals[k]
		}
	}
	rep.Path[rep.Chosen].Chosen = true
	return nil
}

// evalEach returns each, preceded by scoring every path solution on the
// --select-eval file into *evals.
func evalEach(e *env, tf *trainFlags, m *chain.Model, each func(int, *train.Result, []float64) error, evals *[]float64) (func(int, *train.Result, []float64) error, error) {
	exs, err := readExamples(tf.selectEval, dataFlags{format: tf.format, folds: tf.validFold}, true, e.stdin)
	if err != nil {
		return nil, err
	}
	score := devScorer(m, exs)
	return func(k int, r *train.Result, w []float64) error {
		v, err := score(w)
		if err != nil {
			return fmt.Errorf("%s: %w", tf.selectEval, err)
		}
		*evals = append(*evals, v)
		if !tf.quiet {
			fmt.Fprintf(e.stderr, "path beta %d: eval %.4f\n", k+1, v)
		}
		return each(k, r, w)
	}, nil
}

// metricName names the score of Evaluation.F1 for m's labels.
func metricName(m *chain.Model) string {
	if chain.HasChunkLabels(m.Labels) {
		return "chunk f1"
	}
	return "token accuracy"
}

// printSelect writes the path table, the chosen row marked with '*'.
func printSelect(w io.Writer, rep *selectReport) {
	fmt.Fprintf(w, "model selection on %s: alpha %g, beta_max %.6g, %d training sequences\n", selectSource(rep), rep.Alpha, rep.BetaMax, rep.Sequences)
	fmt.Fprintf(w, "  %3s  %11s  %10s  %6s  %6s  %8s  %9s  %9s  %9s  %8s", "k", "beta/bmax", "c1", "passes", "iters", "nonzero", "screened", "gap", "dev", "seconds")
	if rep.Path[0].EvalScore != nil {
		fmt.Fprintf(w, "  %9s", "eval")
	}
	fmt.Fprintln(w)
	for _, r := range rep.Path {
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
	if rep.Chosen == len(rep.Path)-1 && len(rep.Path) == rep.Betas {
		fmt.Fprintf(w, "note: the score was still improving at the smallest penalty; a smaller --select-floor (now %g) may select a better model\n", rep.Floor)
	}
	if r := rep.Refit; r != nil {
		fmt.Fprintf(w, "refit on all %d sequences: beta %.4g (c1 %.4g, c2 %.4g), %d non-zero, gap %.2e, %.1fs\n",
			rep.Sequences, r.Beta, r.C1, r.C2, r.NonZero, r.Gap, r.Seconds)
	}
	fmt.Fprintf(w, "select: %d betas, %.1fs\n", len(rep.Path), rep.SecondsTotal)
}

func selectSource(rep *selectReport) string {
	if rep.Dev != "" {
		return rep.Dev
	}
	return fmt.Sprintf("%d folds of %s", rep.Folds, rep.Train)
}
