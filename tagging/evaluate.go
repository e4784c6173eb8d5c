package tagging

import (
	"errors"
	"fmt"
	"runtime"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/dataset"
	"github.com/sparsetag/sparsetag/eval"
)

// Evaluate tags the labeled examples of r with m (its Tag labels) on
// threads goroutines (<= 0: GOMAXPROCS) and compares them with their
// labels: token accuracy and, for chunk labels, conlleval-style chunk
// scores. The input is streamed in order, as by Stream: memory is bounded
// by DefaultBatch sequences, whatever the input's size
// (dataset.EvaluateAll evaluates examples held in memory with a
// chain.Tagger).
func Evaluate(m Tagger, r *dataset.Reader, threads int) (*eval.Evaluation, error) {
	return EvaluateDecode(m, r, threads, chain.DecodeOptions{})
}

// EvaluateDecode is Evaluate with the labels of Decode under opt (its best
// path): constraints of a label scheme, posterior decoding. The zero opt
// evaluates Tag's labels.
func EvaluateDecode(m Tagger, r *dataset.Reader, threads int, opt chain.DecodeOptions) (*eval.Evaluation, error) {
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	if opt.N > 1 {
		return nil, fmt.Errorf("tagging: evaluation scores one label sequence, not %d", opt.N)
	}
	decode := opt.Constraints != nil || opt.MaxMarginal || opt.Fixed != nil || opt.Spans != nil
	decs := make([]chain.Decoding, threads)
	paths := make([][]int, threads)
	pred := make([][]string, DefaultBatch)
	labels := m.Labels()
	ev := eval.NewEvaluation()
	err := inOrder(r, threads, DefaultBatch, func(w, i, seq int, ex *dataset.Example) error {
		var err error
		if decode {
			err = m.Decode(&decs[w], ex, opt)
			if err == nil {
				paths[w] = decs[w].Best()
			}
		} else {
			paths[w], err = m.Tag(paths[w], ex)
		}
		if err != nil {
			return seqError(ex, seq, err)
		}
		pred[i] = pred[i][:0]
		for _, y := range paths[w] {
			pred[i] = append(pred[i], labels[y])
		}
		return nil
	}, func(i, seq int, ex *dataset.Example) error {
		if ex.Labels == nil {
			return seqError(ex, seq, errors.New("no labels: evaluation reads labeled examples (dataset.Options{Labeled: true})"))
		}
		if err := ev.Add(ex.Labels, pred[i]); err != nil {
			return seqError(ex, seq, err)
		}
		return nil
	}, nil)
	if err != nil {
		return nil, err
	}
	return ev, nil
}

// seqError is err met on ex, sequence seq (0-based) of its input, prefixed
// with where ex starts (file:line) when its reader knows it.
func seqError(ex *dataset.Example, seq int, err error) error {
	if ex.File == "" {
		return fmt.Errorf("sequence %d: %w", seq+1, err)
	}
	return fmt.Errorf("%s:%d: sequence %d: %w", ex.File, ex.Line, seq+1, err)
}
