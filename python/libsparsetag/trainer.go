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
)

// trainer holds the training data of a Python Trainer: the sequences as
// Go copies (rule 2), names interned.
type trainer struct {
	mu     sync.Mutex
	exs    []dataset.Example
	groups []int
	intern map[string]string
}

func newTrainer() *trainer { return &trainer{intern: map[string]string{}} }

func (tr *trainer) append(buf *C.char, blen C.int64_t, counts *C.int32_t, T C.int64_t, values *C.double, labels *C.char, llen C.int64_t, group int) error {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	ex, err := readSeq(seqAttributes, buf, blen, counts, T, values, tr.intern)
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
	ex.Line = len(tr.exs) + 1
	tr.exs = append(tr.exs, ex)
	tr.groups = append(tr.groups, group)
	return nil
}

func (tr *trainer) clear() {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tr.exs, tr.groups, tr.intern = nil, nil, map[string]string{}
}

// job is one training run in its goroutine; Python polls it (rule 5).
type job struct {
	mu     sync.Mutex
	log    strings.Builder // lines not yet handed to Python
	notify chan struct{}   // a line was logged (capacity 1)
	done   chan struct{}   // closed when the run has ended
	intr   chan struct{}   // closed by interrupt
	once   sync.Once

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
	j := &job{notify: make(chan struct{}, 1), done: make(chan struct{}), intr: make(chan struct{}), info: map[string]any{}}
	go func() {
		defer close(j.done)
		defer func() {
			if r := recover(); r != nil {
				j.err = runtimeErr("sparsetag: internal error in training: %v", r)
			}
		}()
		j.err = j.fit(alg, p, trainSet, hold, modelPath)
	}()
	return j, nil
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
