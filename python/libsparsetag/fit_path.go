package main

import (
	"context"
	"fmt"
	"time"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/dataset"
	"github.com/sparsetag/sparsetag/sparse"
	"github.com/sparsetag/sparsetag/train"
	"github.com/sparsetag/sparsetag/train/selection"
)

// pathPoint is one penalty of an elastic-net path, for Python
// (Trainer.last_run["path"]).
type pathPoint struct {
	C1         float64  `json:"c1"`
	C2         float64  `json:"c2"`
	NonZero    int      `json:"active_features"`
	Gap        float64  `json:"gap"`
	Iterations int      `json:"iterations"`
	Score      *float64 `json:"score,omitempty"`
}

// fitPath solves lbfgs's elastic net along a path of penalties, the sum
// form's c1 from c1_max (every weight zero) down to path.min_ratio c1_max
// with c2/c1 fixed as c1 and c2 give it (train.Path: warm starts and
// screening from one penalty to the next). With holdout sequences, each
// model is scored on them (chunk F1 for chunk labels, token accuracy
// otherwise), the path stops once the score has peaked and the best model
// is kept: tagger train --select's selection. Without, the last model is.
func (j *job) fitPath(p params, m *chain.Model, c *sparse.Corpus, hold []dataset.Example, t0 time.Time) (outcome, error) {
	op := lbfgsOptions(p)
	if op.C1 <= 0 {
		return outcome{}, fmt.Errorf("parameter path: a path varies c1 at a fixed c2/c1, so it needs c1 > 0 (c1 = %g)", op.C1)
	}
	op.Interrupt = j.intr
	po := train.PathOptions{K: p.ints["path"], MinRatio: p.floats["path.min_ratio"]}
	metric := ""
	if len(hold) > 0 {
		var err error
		if po.Score, metric, err = f1Scorer(m, hold); err != nil {
			return outcome{}, err
		}
	}
	j.printf("Elastic-net path (sparsetag): %d penalties from c1_max down to %g c1_max, c2/c1 = %g\n", po.K, po.MinRatio, op.C2/op.C1)
	j.printf("Selection: %s\n\n", map[bool]string{true: "the best " + metric + " on the holdout sequences", false: "none (no holdout: the last model)"}[metric != ""])
	var points []pathPoint
	res, err := train.Path(context.Background(), m, c, op, po, j.logPoints(&points, c.Len(), "holdout, "+metric, t0))
	if err != nil {
		return outcome{}, err
	}
	best := len(res) - 1
	if metric != "" {
		best = train.Selected(res)
	}
	interrupted := len(res) > 0 && res[len(res)-1].StopReason == train.StopInterrupt
	j.printf("%s after %d penalties; the model kept is point #%d\n", map[bool]string{true: "Interrupted", false: "Finished"}[interrupted], len(res), best+1)
	j.printf("Total seconds required for training: %.3f\n\n", time.Since(t0).Seconds())
	j.info["path"] = points
	j.info["selected"] = best
	return outcome{iterations: len(res), interrupted: interrupted}, nil
}

// f1Scorer scores weights of m on exs (chunk F1 for chunk labels, token
// accuracy otherwise: tagger train --select's score) and names the score.
func f1Scorer(m *chain.Model, exs []dataset.Example) (train.Scorer, string, error) {
	score, err := selection.TaggerScorer(m, func(tg *chain.Tagger) (float64, error) {
		ev, err := dataset.EvaluateAll(tg, exs, 0)
		if err != nil {
			return 0, err
		}
		return ev.F1(), nil
	})
	metric := "token accuracy"
	if chain.HasChunkLabels(m.Labels) {
		metric = "chunk f1"
	}
	return score, metric, err
}

// logPoints returns the callback of a path over n sequences that appends
// each solved penalty to points and logs its block (scored: how the score
// was taken).
func (j *job) logPoints(points *[]pathPoint, n int, scored string, t0 time.Time) func(int, *train.Result, []float64) error {
	last := t0
	return func(k int, r *train.Result, _ []float64) error {
		pt := pathPoint{C1: r.Beta * float64(n), C2: r.Lambda2 * float64(n) / 2, NonZero: r.NonZero, Gap: r.Gap, Iterations: r.NumIterations(), Score: r.Score}
		*points = append(*points, pt)
		j.printf("***** Path point #%d *****\nc1: %f\nc2: %f\nActive features: %d\nDuality gap (certified, average form): %.6e\n",
			k+1, pt.C1, pt.C2, pt.NonZero, pt.Gap)
		if pt.Score != nil {
			j.printf("Score (%s): %f\n", scored, *pt.Score)
		}
		j.printf("Seconds required for this iteration: %.3f\n\n", time.Since(last).Seconds())
		last = time.Now()
		return nil
	}
}
