package tagging

import (
	"runtime"

	"github.com/sparsetag/sparsetag/dataset"
	"github.com/sparsetag/sparsetag/eval"
)

// Evaluate tags the labeled examples of r with m (its Viterbi labels) on
// threads goroutines (<= 0: GOMAXPROCS) and compares them with their
// labels: token accuracy and, for chunk labels, conlleval-style chunk
// scores. The input is streamed: memory is bounded by a batch of
// sequences.
func Evaluate(r *dataset.Reader, m Tagger, threads int) (*eval.Evaluation, error) {
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	paths := make([][]int, threads)
	labels := m.Labels()
	return dataset.EvaluateStream(r, threads, dataset.DefaultBatch, func(w int, dst []string, ex *dataset.Example) ([]string, error) {
		var err error
		if paths[w], err = m.Tag(paths[w], ex); err != nil {
			return dst, err
		}
		for _, y := range paths[w] {
			dst = append(dst, labels[y])
		}
		return dst, nil
	})
}
