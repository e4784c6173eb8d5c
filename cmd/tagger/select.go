package main

import (
	"fmt"
	"time"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/dataset"
	"github.com/sparsetag/sparsetag/internal/paperbench"
	"github.com/sparsetag/sparsetag/sparse"
	"github.com/sparsetag/sparsetag/train"
)

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
	rep := &paperbench.SelectReport{Train: path, Dev: tf.selectDev, Folds: tf.selectFolds, Betas: tf.betas, Floor: tf.selectFloor, Sequences: c.Len()}
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
	rep.Print(e.stdout)
	if err := m.SaveFile(tf.model); err != nil {
		return nil, err
	}
	if !tf.quiet {
		fmt.Fprintf(e.stderr, "wrote %s\n", tf.model)
	}
	if tf.report != "" {
		if err := paperbench.WriteJSON(tf.report, rep); err != nil {
			return nil, fmt.Errorf("the model is saved, but the report is not: %w", err)
		}
	}
	if e.interrupted() {
		// The path ended at the interrupted beta; the best model so far
		// is saved.
		return nil, e.interruptedError()
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
	case tf.betas < 2 || tf.betas > maxBetas || !(tf.selectFloor > 0 && tf.selectFloor < 1):
		return usagef("--select needs 2 <= --betas <= %d and 0 < --select-floor < 1", maxBetas)
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

// f1Scorer rates weights of m by the F1 of Evaluation on the labeled
// examples: chunk F1 for chunk labels, token accuracy otherwise.
func f1Scorer(m *chain.Model, exs []dataset.Example) (train.Scorer, error) {
	return train.TaggerScorer(m, func(tg *chain.Tagger) (float64, error) {
		ev, err := dataset.Evaluate(tg, exs, 0)
		if err != nil {
			return 0, err
		}
		return ev.F1(), nil
	})
}

// fileScorer is f1Scorer on the labeled file path (--format, --valid-folds).
func fileScorer(e *env, tf *trainFlags, m *chain.Model, path string) (train.Scorer, error) {
	exs, err := readExamples(path, dataFlags{format: tf.format, folds: tf.validFold}, true, e.stdin)
	if err != nil {
		return nil, err
	}
	return f1Scorer(m, exs)
}

func selectOnDev(e *env, tf *trainFlags, op train.Options, m *chain.Model, c *sparse.Corpus, rep *paperbench.SelectReport) error {
	score, err := fileScorer(e, tf, m, tf.selectDev)
	if err != nil {
		return err
	}
	po := train.PathOptions{K: tf.betas, MinRatio: tf.selectFloor, Patience: tf.patience, Score: score}
	each := pathProgress(e, tf, "path")
	var evals []float64
	if tf.selectEval != "" {
		if each, err = evalEach(e, tf, m, each, &evals); err != nil {
			return err
		}
	}
	op.Interrupt = e.interrupt // the path ends at the interrupted beta
	res, err := train.Path(e.work(), m, c, op, po, each)
	if err != nil {
		return err
	}
	rep.Metric = metricName(m)
	rep.SetPath(res, evals)
	return nil
}

// evalEach returns each, preceded by scoring every path solution on the
// --select-eval file into *evals.
func evalEach(e *env, tf *trainFlags, m *chain.Model, each func(int, *train.Result, []float64) error, evals *[]float64) (func(int, *train.Result, []float64) error, error) {
	score, err := fileScorer(e, tf, m, tf.selectEval)
	if err != nil {
		return nil, err
	}
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
