package main

import (
	"errors"
	"sync/atomic"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/dataset"
	"github.com/sparsetag/sparsetag/features"
	"github.com/sparsetag/sparsetag/sparse"
)

// preEncoder encodes a trainer's sequences of group 0 on a goroutine of
// its own while Python appends the next ones (feature generation off the
// critical path of fit: docs/python.md, "Benchmark"). It is a guess of
// the run to come: lbfgs keeping every attribute (feature.minfreq <= 1),
// on attribute items, with the sequences of group 0 for training. When
// train starts as guessed, generate takes its model and corpus instead of
// encoding again; otherwise they are dropped. It is
// dataset.NewTrainingModel(features.NewAttributeEncoder(), exs, 0), one
// sequence at a time (TestPreEncoder checks that both give the same).
type preEncoder struct {
	queue chan dataset.Example // closed by finish
	done  chan struct{}        // closed when the goroutine has ended

	// Owned by the goroutine until done is closed.
	enc    *features.Encoder
	c      *sparse.Corpus
	labels dataset.Labels
	n      int // sequences queued (the trainer's side, under its lock)
	err    error
	// stop: the guess was dropped, the goroutine drains the queue.
	stop atomic.Bool
}

var errNotGuessed = errors.New("not the sequences guessed")

func newPreEncoder() *preEncoder {
	pe := &preEncoder{queue: make(chan dataset.Example, 256), done: make(chan struct{}),
		enc: features.NewAttributeEncoder(), c: &sparse.Corpus{}}
	go pe.run()
	return pe
}

func (pe *preEncoder) run() {
	defer close(pe.done)
	for ex := range pe.queue {
		if pe.err != nil || pe.stop.Load() {
			continue // drained: the guess is dropped
		}
		if ex.Labels == nil || ex.Tokens != nil {
			pe.err = errNotGuessed
			continue
		}
		ids := pe.labels.AppendIDs(make([]int32, 0, len(ex.Labels)), ex.Labels)
		pe.err = dataset.Encode(pe.enc, pe.c, &ex, ids, true)
	}
}

// add queues ex (the caller holds the trainer's lock).
func (pe *preEncoder) add(ex dataset.Example) {
	pe.n++
	pe.queue <- ex
}

// finish ends the queue (the caller holds the trainer's lock; nothing is
// added after it).
func (pe *preEncoder) finish() { close(pe.queue) }

// model waits for the goroutine and returns the model and corpus of the
// sequences encoded, or nil ones when the encoding failed (the run then
// encodes as usual and reports the error itself).
func (pe *preEncoder) model() (*chain.Model, *sparse.Corpus) {
	<-pe.done
	if pe.err != nil || pe.n == 0 {
		return nil, nil
	}
	pe.enc.Freeze(0)
	m, err := chain.NewModel(pe.labels.Names(), pe.enc.Unary().Len(), pe.enc.Pair().Len(), pe.enc.HasTransitions(), pe.enc)
	if err != nil {
		return nil, nil
	}
	return m, pe.c
}

// drop ends a guess that the run did not confirm; its memory goes with
// the goroutine.
func (pe *preEncoder) drop() {
	pe.stop.Store(true)
	pe.finish()
}
