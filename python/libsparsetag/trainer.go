package main

/*
#include <stdint.h>
*/
import "C"

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/sparsetag/sparsetag/dataset"
	"github.com/sparsetag/sparsetag/features"
	"github.com/sparsetag/sparsetag/train/online"
)

// trainer holds the training data of a Python Trainer: the sequences as
// Go copies (rule 2); labels interned.
type trainer struct {
	mu     sync.Mutex
	exs    []dataset.Example
	groups []int
	intern map[string]string
	// pre encodes the sequences of group 0 as they come (preEncoder);
	// preOff: no guess until clear (one was taken or dropped).
	pre    *preEncoder
	preOff bool
}

func newTrainer() *trainer { return &trainer{intern: map[string]string{}} }

func (tr *trainer) append(kind C.int, buf *C.char, blen C.int64_t, counts *C.int32_t, T C.int64_t, values *C.double, labels *C.char, llen C.int64_t, group int, weight float64) error {
	if weight != 0 { // 0: not given
		if err := online.CheckWeight(weight); err != nil {
			return fmt.Errorf("sequence weight: %w", err)
		}
	}
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if kind != seqAttributes && kind != seqDicts && kind != seqColumns {
		return fmt.Errorf("unknown sequence kind %d", kind)
	}
	ex, err := readSeq(kind, buf, blen, counts, T, values, true, nil)
	if err != nil {
		return err
	}
	ls, err := readStrings(labels, llen, int(T))
	if err != nil {
		return fmt.Errorf("the numbers of items and labels differ: %w", err)
	}
	for _, l := range ls {
		if l == "" {
			return fmt.Errorf("empty label")
		}
	}
	for i, l := range ls {
		if x, ok := tr.intern[l]; ok {
			ls[i] = x
		} else {
			tr.intern[l] = l
		}
	}
	ex.Labels = ls
	ex.Weight = weight
	ex.Line = len(tr.exs) + 1
	tr.exs = append(tr.exs, ex)
	tr.groups = append(tr.groups, group)
	tr.guess(ex, group)
	return nil
}

// guess hands a sequence of group 0 to the pre-encoder (started by the
// first one); token columns end the guess.
func (tr *trainer) guess(ex dataset.Example, group int) {
	switch {
	case tr.preOff || group != 0:
	case ex.Tokens != nil:
		tr.endGuess()
	default:
		if tr.pre == nil {
			tr.pre = newPreEncoder()
		}
		tr.pre.add(ex)
	}
}

// endGuess drops the pre-encoder's guess (the caller holds tr.mu).
func (tr *trainer) endGuess() {
	if tr.pre != nil {
		tr.pre.drop()
	}
	tr.pre, tr.preOff = nil, true
}

// takeGuess returns the pre-encoder when the run (alg, p, holdout group,
// n training sequences) is the one it guessed, nil otherwise; either way
// the guess ends.
func (tr *trainer) takeGuess(alg string, p params, holdout, n int) *preEncoder {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	pe := tr.pre
	ok := pe != nil && !tr.preOff && alg == "lbfgs" && minFreq(p) == 0 && holdout != 0 && pe.n == n
	for i := 0; ok && i < len(tr.groups); i++ {
		ok = tr.groups[i] == 0 || tr.groups[i] == holdout
	}
	if !ok {
		tr.endGuess()
		return nil
	}
	pe.finish()
	tr.pre, tr.preOff = nil, true
	return pe
}

func (tr *trainer) clear() {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tr.exs, tr.groups, tr.intern = nil, nil, map[string]string{}
	tr.endGuess()
	tr.preOff = false
}

// job is one training run in its goroutine; Python polls it (rule 5).
type job struct {
	mu     sync.Mutex
	log    strings.Builder // lines not yet handed to Python
	notify chan struct{}   // a line was logged (capacity 1)
	done   chan struct{}   // closed when the run has ended
	intr   chan struct{}   // closed by interrupt
	once   sync.Once

	pre *preEncoder // the training sequences, encoded (nil: not guessed)

	// Set before done is closed.
	err   error
	model *model
	info  map[string]any
}

// start checks the algorithm and parameters and starts training on the
// sequences appended so far (a snapshot: appending later does not change
// this run).
func (tr *trainer) start(algorithm string, given map[string]string, modelPath string, holdout int) (*job, error) {
	alg, err := canonical(algorithm)
	if err != nil {
		return nil, err
	}
	p, err := parseParams(alg, given)
	if err != nil {
		return nil, err
	}
	tr.mu.Lock()
	var trainSet, hold []dataset.Example
	for i, ex := range tr.exs {
		if holdout >= 0 && tr.groups[i] == holdout {
			hold = append(hold, ex)
		} else {
			trainSet = append(trainSet, ex)
		}
	}
	tr.mu.Unlock()
	if err := checkAlgorithm(alg, p, trainSet, len(hold)); err != nil {
		return nil, err
	}
	j := &job{notify: make(chan struct{}, 1), done: make(chan struct{}), intr: make(chan struct{}), info: map[string]any{}}
	j.pre = tr.takeGuess(alg, p, holdout, len(trainSet))
	go func() {
		defer close(j.done)
		defer stopProfile()
		defer func() {
			if r := recover(); r != nil {
				j.err = runtimeErr("sparsetag: internal error in training: %v", r)
			}
		}()
		j.err = j.fit(alg, p, trainSet, hold, modelPath)
	}()
	return j, nil
}

// checkAlgorithm refuses, before training starts, what the algorithm
// cannot train: an online algorithm's values out of range, a bad path or
// cross-validation (nhold: the holdout sequences), and sequence weights
// other than 1 with lbfgs.
func checkAlgorithm(alg string, p params, exs []dataset.Example, nhold int) error {
	if err := checkKinds(p, exs); err != nil {
		return err
	}
	if alg != "lbfgs" {
		_, err := onlineParams(alg, p)
		return err
	}
	if k, r := p.ints["path"], p.floats["path.min_ratio"]; k < 0 || (k > 0 && !(r > 0 && r < 1)) || (k > 0 && p.floats["c1"] <= 0) {
		return fmt.Errorf("parameters path = %d, path.min_ratio = %g, c1 = %g: want path >= 0 and, for a path, 0 < path.min_ratio < 1 and c1 > 0 (its c2/c1 is fixed along the path)", k, r, p.floats["c1"])
	}
	if err := checkFolds(p, len(exs), nhold); err != nil {
		return err
	}
	for i := range exs {
		if w := exs[i].Weight; w != 0 && w != 1 {
			return fmt.Errorf("sequence %d has the weight %g, but lbfgs (the certified elastic net) does not take sequence weights yet: "+
				"train with l2sgd, ap, pa or arow, or leave the weights out", i+1, w)
		}
	}
	return nil
}

// checkFolds refuses a cross-validation (path.folds) without a path, with
// a holdout, of fewer than 2 folds or of more folds than sequences (n).
func checkFolds(p params, n, nhold int) error {
	K := p.ints["path.folds"]
	switch {
	case K == 0:
		return nil
	case K < 2:
		return fmt.Errorf("parameter path.folds = %d: want 0 (no cross-validation) or at least 2 folds", K)
	case p.ints["path"] < 2:
		return fmt.Errorf("parameter path.folds = %d selects a penalty of the path: set path to at least 2 penalties (path = %d)", K, p.ints["path"])
	case nhold > 0:
		return fmt.Errorf("parameter path.folds = %d selects by cross-validation: give holdout sequences or path.folds, not both", K)
	case n < K:
		return fmt.Errorf("parameter path.folds = %d needs at least %d training sequences, have %d", K, K, n)
	}
	return nil
}

// checkKinds refuses a mix of attribute sequences and token columns, and
// a template with attributes or columns without one.
func checkKinds(p params, exs []dataset.Example) error {
	if len(exs) == 0 {
		return nil
	}
	cols := exs[0].Tokens != nil
	for i := range exs {
		if (exs[i].Tokens != nil) != cols {
			return fmt.Errorf("sequence %d is of the other kind: append attribute items or token columns (append_columns), not both", i+1)
		}
	}
	switch tmpl := p.strings["template"]; {
	case cols && strings.TrimSpace(tmpl) == "":
		return fmt.Errorf("sequences of token columns need a CRF++ template: set the parameter template")
	case !cols && tmpl != "":
		return fmt.Errorf("the parameter template applies to token columns (append_columns), not to attribute items")
	case cols:
		if _, err := features.Compile(tmpl); err != nil {
			return fmt.Errorf("parameter template: %w", err)
		}
	}
	return nil
}

// printf logs a message for Python.
func (j *job) printf(format string, args ...any) {
	j.mu.Lock()
	fmt.Fprintf(&j.log, format, args...)
	j.log.WriteByte(0x1e) // messages end with ASCII RS (the text is one C string)
	j.mu.Unlock()
	select {
	case j.notify <- struct{}{}:
	default:
	}
}

// wait returns the lines logged so far, after a line, the end of the run
// or timeoutMs, whichever comes first, and whether the run has ended.
func (j *job) wait(timeoutMs int) (string, bool) {
	t := time.NewTimer(time.Duration(max(timeoutMs, 0)) * time.Millisecond)
	defer t.Stop()
	fin := false
	select {
	case <-j.done:
		fin = true
	case <-j.notify:
	case <-t.C:
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	s := j.log.String()
	j.log.Reset()
	if !fin {
		select {
		case <-j.done:
			// Every line was logged before done closed, under the lock
			// held here: all of them are in s.
			fin = true
		default:
		}
	}
	return s, fin
}

func (j *job) interrupt() { j.once.Do(func() { close(j.intr) }) }
