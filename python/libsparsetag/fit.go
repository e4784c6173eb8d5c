package main

// The files fit*.go are the only ones of the library that call package
// train and train/online: the mapping of CRFsuite's parameters onto their
// options, the training log in CRFsuite's words, and the interrupt rule
// of the toolkit. This one holds what every algorithm shares: feature
// generation, the holdout evaluation and storing the model.

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/dataset"
	"github.com/sparsetag/sparsetag/features"
	"github.com/sparsetag/sparsetag/peer"
	"github.com/sparsetag/sparsetag/sparse"
	"github.com/sparsetag/sparsetag/train/selection"
)

// outcome is what a trainer tells fit: the iterations (epochs) finished
// and whether the run was interrupted.
type outcome struct {
	iterations  int
	interrupted bool
}

// fit trains with the algorithm (CRFsuite's name), logs in CRFsuite's
// words, saves the model to path (none when empty) under the interrupt
// rule and keeps it for Python.
func (j *job) fit(alg string, p params, exs, hold []dataset.Example, path string) error {
	t0 := time.Now()
	j.info["written"] = ""
	m, c, err := j.generate(alg, p, exs, t0)
	if err != nil || m == nil {
		return err
	}
	var out outcome
	switch {
	case alg == "lbfgs" && p.ints["path"] > 0 && p.ints["path.folds"] > 0:
		out, err = j.fitFolds(p, m, c, exs, t0)
	case alg == "lbfgs" && p.ints["path"] > 0:
		out, err = j.fitPath(p, m, c, hold, t0)
	case alg == "lbfgs":
		out, err = j.fitLBFGS(p, m, c, hold, t0)
	default:
		out, err = j.fitOnline(alg, p, m, c, dataset.SequenceWeights(exs), hold, t0)
	}
	if err != nil {
		return err
	}
	j.info["iterations"] = out.iterations
	j.info["interrupted"] = out.interrupted
	if out.interrupted && out.iterations == 0 {
		j.printf("Interrupted before the first iteration: no model.\n")
		return nil
	}
	j.model = fromChain(m, "sparsetag")
	if path == "" {
		return nil
	}
	return j.store(m, path, out.interrupted)
}

// generate logs CRFsuite's feature generation and encodes the training
// sequences; it returns a nil model when there are none (no model is
// written then).
func (j *job) generate(alg string, p params, exs []dataset.Example, t0 time.Time) (*chain.Model, *sparse.Corpus, error) {
	j.printf("Feature generation\n")
	j.printf("type: CRF1d\n")
	j.printf("feature.minfreq: %f\n", p.floats["feature.minfreq"])
	j.printf("feature.possible_states: %d\n", p.ints["feature.possible_states"])
	j.printf("feature.possible_transitions: %d\n", p.ints["feature.possible_transitions"])
	if len(exs) == 0 {
		j.printf("No training data: no model is written.\n")
		return nil, nil, nil
	}
	// lbfgs drops rare attributes when encoding; the online trainers
	// apply feature.minfreq to their feature set as CRFsuite does.
	freq := 0
	if alg == "lbfgs" {
		freq = minFreq(p)
	}
	var m *chain.Model
	var c *sparse.Corpus
	if j.pre != nil { // encoded while Python appended them
		m, c = j.pre.model()
	}
	if m == nil {
		enc, err := newEncoder(p, exs)
		if err != nil {
			return nil, nil, err
		}
		if m, c, err = dataset.NewTrainingModel(enc, exs, freq); err != nil {
			return nil, nil, err
		}
	}
	for i := 0; i <= 10; i++ { // CRFsuite's progress bar: 0....1....2 ... 10
		j.printf("%d", i)
		if i < 10 {
			for k := 0; k < 4; k++ {
				j.printf(".")
			}
		}
	}
	j.printf("\n")
	if alg == "lbfgs" {
		// The online trainers' feature set is chosen when they start: its
		// size is logged at the end of training.
		j.printf("Number of features: %d\n", len(m.W))
	}
	j.printf("Seconds required: %.3f\n\n", time.Since(t0).Seconds())
	return m, c, nil
}

// newEncoder returns a new encoder of exs's kind: attributes, or token
// columns read by the parameter template (checkKinds checked it).
func newEncoder(p params, exs []dataset.Example) (*features.Encoder, error) {
	if len(exs) == 0 || exs[0].Tokens == nil {
		return features.NewAttributeEncoder(), nil
	}
	tmpl, err := features.Compile(p.strings["template"])
	if err != nil {
		return nil, fmt.Errorf("parameter template: %w", err)
	}
	return features.NewTemplateEncoder(tmpl), nil
}

// blocks writes the per-iteration blocks of the training log: a block
// ends with an empty line when the next begins or the run ends, so that a
// holdout evaluation can join it.
type blocks struct {
	j    *job
	open bool
}

func (b *blocks) begin(format string, args ...any) {
	b.end()
	b.j.printf(format, args...)
	b.open = true
}

func (b *blocks) end() {
	if b.open {
		b.j.printf("\n")
		b.open = false
	}
}

// holdoutScorer returns the function that logs the holdout evaluation of
// full-size weights w (in m's layout) on hold.
func (j *job) holdoutScorer(m *chain.Model, hold []dataset.Example) (func(w []float64) error, error) {
	score, err := selection.TaggerScorer(m, func(tg *chain.Tagger) (float64, error) {
		return 0, j.holdout(tg, m.Labels, hold)
	})
	if err != nil {
		return nil, err
	}
	return func(w []float64) error {
		_, err := score(w)
		return err
	}, nil
}

// store saves m to path under the interrupt rule and logs CRFsuite's
// summary of the stored model.
func (j *job) store(m *chain.Model, path string, interrupted bool) error {
	dest, err := destination(path, interrupted)
	if err != nil {
		return err
	}
	t1 := time.Now()
	j.printf("Storing the model\n")
	if why := peer.CheckCRFsuite(m); why != nil {
		// A template model (token columns) has no CRFsuite form.
		j.printf("In sparsetag's format (%v)\n", why)
		if err := m.SaveFile(dest); err != nil {
			return err
		}
	} else if err := peer.SaveCRFsuite(dest, m); err != nil {
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
