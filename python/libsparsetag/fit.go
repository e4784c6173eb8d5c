package main

// This file is the only one of the library that calls package train: the
// mapping of CRFsuite's parameters onto train.Options, the training log in
// CRFsuite's words, and the interrupt rule of the toolkit.

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"time"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/dataset"
	"github.com/sparsetag/sparsetag/features"
	"github.com/sparsetag/sparsetag/peer"
	"github.com/sparsetag/sparsetag/train"
)

// lbfgsOptions maps CRFsuite's lbfgs parameters onto train.Options:
// c1, c2 are the sum form's penalties; epsilon is the relative certified
// gap (CRFsuite's is a gradient-norm test); period and delta are
// CRFsuite's rule as they are; num_memories the L-BFGS memory;
// feature.possible_states = 0 restricts states to observed pairs.
func lbfgsOptions(p params) train.Options {
	// Field by field: train groups its options (Problem, Stopping, ...)
	// and promotes their fields, which a composite literal cannot name.
	var op train.Options
	op.SumForm, op.C1, op.C2 = true, p.floats["c1"], p.floats["c2"]
	op.RelEpsilon = p.floats["epsilon"]
	op.Delta, op.Period = p.floats["delta"], p.ints["period"]
	op.MaxIter = p.ints["max_iterations"]
	op.Memory = p.ints["num_memories"]
	op.Threads = p.ints["threads"]
	op.ObservedPairs = p.ints["feature.possible_states"] == 0
	return op
}

// minFreq maps feature.minfreq (CRFsuite drops features seen fewer
// times) onto the attribute count below which attributes are dropped.
func minFreq(p params) int {
	f := p.floats["feature.minfreq"]
	if f <= 1 {
		return 0
	}
	return int(math.Ceil(f))
}

// fit trains, logs in CRFsuite's words, saves the model under the
// interrupt rule and keeps it for Python.
func (j *job) fit(alg string, p params, exs, hold []dataset.Example, path string) error {
	t0 := time.Now()
	j.printf("Feature generation\n")
	j.printf("type: CRF1d\n")
	j.printf("feature.minfreq: %f\n", p.floats["feature.minfreq"])
	j.printf("feature.possible_states: %d\n", p.ints["feature.possible_states"])
	j.printf("feature.possible_transitions: %d\n", p.ints["feature.possible_transitions"])
	if len(exs) == 0 {
		j.printf("No training data: no model is written.\n")
		j.info["written"] = ""
		return nil
	}
	enc := features.NewAttributeEncoder()
	m, c, err := dataset.NewTrainingModel(enc, exs, minFreq(p))
	if err != nil {
		return err
	}
	for _, s := range []string{"0", ".", ".", ".", ".", "1", ".", ".", ".", ".", "2", ".", ".", ".", ".", "3", ".", ".", ".", ".", "4", ".", ".", ".", ".",
		"5", ".", ".", ".", ".", "6", ".", ".", ".", ".", "7", ".", ".", ".", ".", "8", ".", ".", ".", ".", "9", ".", ".", ".", ".", "10", "\n"} {
		j.printf("%s", s)
	}
	op := lbfgsOptions(p)
	j.printf("Number of features: %d\n", len(m.W))
	j.printf("Seconds required: %.3f\n\n", time.Since(t0).Seconds())
	if op.C1 > 0 {
		j.printf("Orthant-Wise Limited-memory Quasi-Newton (OWL-QN) optimization\n")
	} else {
		j.printf("L-BFGS optimization\n")
	}
	j.printf("c1: %f\nc2: %f\nnum_memories: %d\nmax_iterations: %d\nepsilon: %f\nstop: %d\ndelta: %f\nlinesearch: %s\nlinesearch.max_iterations: %d\nthreads: %d\n\n",
		op.C1, op.C2, op.Memory, op.MaxIter, p.floats["epsilon"], op.Period, op.Delta, p.strings["linesearch"], p.ints["max_linesearch"], op.Threads)

	// The training log: one CRFsuite block per iteration, closed when the
	// next begins (so that a holdout evaluation can join it).
	n := float64(c.Len())
	var (
		open     bool
		lastIter int
		lastSecs float64
	)
	closeBlock := func() {
		if open {
			j.printf("\n")
			open = false
		}
	}
	op.Progress = func(it train.Iteration) {
		if it.Iter == 0 || it.Iter == lastIter {
			if open && it.Pass {
				j.printf("Duality gap (certified, average form): %.6e\n", it.Gap)
			}
			return
		}
		closeBlock()
		j.printf("***** Iteration #%d *****\n", it.Iter)
		j.printf("Loss: %f\n", it.Primal*n)
		j.printf("Active features: %d\n", it.NonZero)
		if it.Pass {
			j.printf("Duality gap (certified, average form): %.6e\n", it.Gap)
		}
		j.printf("Seconds required for this iteration: %.3f\n", it.Seconds-lastSecs)
		lastIter, lastSecs, open = it.Iter, it.Seconds, true
	}
	if len(hold) > 0 {
		score, err := train.TaggerScorer(m, func(tg *chain.Tagger) (float64, error) {
			return 0, j.holdout(tg, m.Labels, hold)
		})
		if err != nil {
			return err
		}
		op.Monitor = func(_ train.Iteration, w []float64) (bool, error) {
			_, err := score(w)
			return false, err
		}
		op.MonitorEvery = 1
	}
	op.Interrupt = j.intr
	res, err := train.Train(context.Background(), m, c, op)
	if err != nil {
		return err
	}
	if len(hold) > 0 && open {
		// The model trained, evaluated in the last iteration's block
		// (the monitor runs at full passes only).
		if err := j.holdout(chain.NewTagger(m), m.Labels, hold); err != nil {
			return err
		}
	}
	closeBlock()
	for _, w := range res.Warnings {
		j.printf("Warning: %s\n", w)
	}
	interrupted := res.StopReason == train.StopInterrupt
	j.printf("%s after %d iterations (stop: %s); certified gap %.6e (relative %.3e)\n",
		map[bool]string{true: "Interrupted", false: "Finished"}[interrupted], res.NumIterations(), res.StopReason, res.Gap, res.Gap/math.Max(math.Abs(res.Primal), 1e-300))
	j.printf("Total seconds required for training: %.3f\n\n", time.Since(t0).Seconds())

	j.info["iterations"] = res.NumIterations()
	j.info["stop_reason"] = string(res.StopReason)
	j.info["gap"] = res.Gap
	j.info["objective"] = res.Primal * n
	j.info["interrupted"] = interrupted
	j.info["written"] = ""
	if interrupted && res.NumIterations() == 0 {
		j.printf("Interrupted before the first iteration: no model.\n")
		return nil
	}
	j.model = fromChain(m, "sparsetag")
	if path == "" {
		return nil
	}
	dest, err := destination(path, interrupted)
	if err != nil {
		return err
	}
	t1 := time.Now()
	j.printf("Storing the model\n")
	if err := peer.SaveCRFsuite(dest, m); err != nil {
		return err
	}
	L := len(m.Labels)
	attrs := 0
	for a := 0; a < m.Layout.NumUnary; a++ {
		for _, w := range m.State[a*L : a*L+L] {
			if w != 0 {
				attrs++
				break
			}
		}
	}
	j.printf("Number of active features: %d (%d)\n", m.NonZero(), len(m.W))
	j.printf("Number of active attributes: %d (%d)\n", attrs, m.Layout.NumUnary)
	j.printf("Number of active labels: %d (%d)\n", L, L)
	if dest != path {
		j.printf("Interrupted: %s exists and is kept; the model is in %s\n", path, dest)
	}
	j.printf("Seconds required: %.3f\n\n", time.Since(t1).Seconds())
	j.info["written"] = dest
	return nil
}

// destination applies the toolkit's interrupt rule (tagger train's): a
// finished run writes path; an interrupted one never replaces an
// existing file and writes path + ".interrupted" instead.
func destination(path string, interrupted bool) (string, error) {
	if !interrupted {
		return path, nil
	}
	switch _, err := os.Lstat(path); {
	case err == nil:
		return path + ".interrupted", nil
	case errors.Is(err, fs.ErrNotExist):
		return path, nil
	default:
		return "", fmt.Errorf("interrupted: cannot tell whether %s exists, so no model is written: %w", path, err)
	}
}

// holdout logs CRFsuite's holdout evaluation (crfsuite_evaluation_output)
// of tg on the held-out sequences.
func (j *job) holdout(tg *chain.Tagger, labels []string, hold []dataset.Example) error {
	L := len(labels)
	id := map[string]int{}
	for i, l := range labels {
		id[l] = i
	}
	match, model, ref := make([]int, L), make([]int, L), make([]int, L)
	items, itemsOK, inst, instOK := 0, 0, 0, 0
	var path []int
	for i := range hold {
		ex := &hold[i]
		var err error
		if path, err = tg.Tag(path, ex.Input()); err != nil {
			return err
		}
		ok := true
		for t, y := range path {
			r, known := id[ex.Labels[t]]
			model[y]++
			if known {
				ref[r]++
			}
			if known && r == y {
				match[y]++
				itemsOK++
			} else {
				ok = false
			}
			items++
		}
		inst++
		if ok {
			instOK++
		}
	}
	j.printf("Performance by label (#match, #model, #ref) (precision, recall, F1):\n")
	var sp, sr, sf float64
	for y, l := range labels {
		if model[y] == 0 && ref[y] == 0 {
			j.printf("    %s: (0, 0, 0) (******, ******, ******)\n", l)
			continue
		}
		p, r := ratio(match[y], model[y]), ratio(match[y], ref[y])
		f := 0.0
		if p+r > 0 {
			f = 2 * p * r / (p + r)
		}
		sp, sr, sf = sp+p, sr+r, sf+f
		j.printf("    %s: (%d, %d, %d) (%1.4f, %1.4f, %1.4f)\n", l, match[y], model[y], ref[y], p, r, f)
	}
	j.printf("Macro-average precision, recall, F1: (%f, %f, %f)\n", sp/float64(L), sr/float64(L), sf/float64(L))
	j.printf("Item accuracy: %d / %d (%1.4f)\n", itemsOK, items, ratio(itemsOK, items))
	j.printf("Instance accuracy: %d / %d (%1.4f)\n", instOK, inst, ratio(instOK, inst))
	return nil
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}
