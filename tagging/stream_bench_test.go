package tagging

import (
	"bytes"
	"io"
	"os"
	"strconv"
	"testing"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/dataset"
)

// BenchmarkTagStream measures the streaming pipeline of tagger tag with a
// loaded model (reading, feature extraction, scoring, Viterbi, writing CoNLL
// output to io.Discard) on the CoNLL-2000 test set, with 1 and 2 threads, and reports tokens/s. It needs
// a chunking model, given by TAGGER_BENCH_MODEL, e.g.
//
//	tagger train --format conll --template embedded:conll2000/chunking.template \
//	    --c1 1 --c2 1 --max-iter 30 --solver full --model /tmp/m.model embedded:conll2000/train.txt.gz
//	TAGGER_BENCH_MODEL=/tmp/m.model go test -run NONE -bench TagStream ./tagging
func BenchmarkTagStream(b *testing.B) {
	model := os.Getenv("TAGGER_BENCH_MODEL")
	if model == "" {
		b.Skip("set TAGGER_BENCH_MODEL to a chunking model file")
	}
	input, err := readFixture("embedded:conll2000/test.txt.gz")
	if err != nil {
		b.Fatal(err)
	}
	m, err := Load(model)
	if err != nil {
		b.Fatal(err)
	}
	const tokens = 47377 // non-blank lines of the test set
	for _, threads := range []int{1, 2} {
		b.Run("threads="+strconv.Itoa(threads), func(b *testing.B) {
			o := StreamOptions{Output: CoNLL, Decode: chain.DecodeOptions{N: 1}, Threads: threads}
			b.ResetTimer()
			for range b.N {
				r, err := dataset.NewReader("test", bytes.NewReader(input), dataset.Options{Format: dataset.CoNLL})
				if err != nil {
					b.Fatal(err)
				}
				if err := Stream(io.Discard, m, r, o); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*tokens)/b.Elapsed().Seconds(), "tokens/s")
		})
	}
}
