package chain

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sparsetag/sparsetag/features"
	"github.com/sparsetag/sparsetag/sparse"
)

// TestTaggerLoad tags from 64 goroutines for a bounded time against one
// shared Tagger and checks every result against serial tagging (run it with
// -race): a Tagger of NewTagger, and the tag-only Tagger of the same model
// file.
func TestTaggerLoad(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	c := randomCorpus(rng, 200, 20, 12, 1, 6, true)
	tg, serial := randomTagger(rng, c, 6)
	data, err := tg.Model().MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	lite, err := ReadTagger(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	d := time.Second
	if testing.Short() {
		d = 100 * time.Millisecond
	}
	for _, tc := range []struct {
		name string
		tg   *Tagger
	}{{"full", tg}, {"tag-only", lite}} {
		t.Run(tc.name, func(t *testing.T) { loadTest(t, tc.tg, c, serial, d) })
	}
}

// loadTest tags the sequences of c with tg from 64 goroutines for d and
// compares every path with serial.
func loadTest(t *testing.T, tg *Tagger, c *sparse.Corpus, serial [][]int, d time.Duration) {
	deadline := time.Now().Add(d)
	var wg sync.WaitGroup
	var bad, done atomic.Int64
	for g := 0; g < 64; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			var path []int
			for k := g; time.Now().Before(deadline); k++ {
				i := k % c.Len()
				path, _ = tg.Tag(path, Encoded{Corpus: c, Seq: i})
				if !slices.Equal(path, serial[i]) {
					bad.Add(1)
					return
				}
				done.Add(1)
			}
		}(g)
	}
	wg.Wait()
	if bad.Load() != 0 {
		t.Fatalf("%d concurrent results differ from serial tagging", bad.Load())
	}
	if done.Load() == 0 {
		t.Fatal("no sequence tagged")
	}
}

// BenchmarkTagThroughput measures tagging throughput of raw token columns
// (template expansion, dictionary lookup, scoring and Viterbi) on all
// GOMAXPROCS goroutines; run with -cpu 1,2. It reports tokens/s.
func BenchmarkTagThroughput(b *testing.B) {
	m := toyModel(b)
	tg := NewTagger(m)
	sent := features.Columns{{"The", "DT"}, {"cat", "NN"}, {"sees", "VBZ"}, {"a", "DT"}, {"dog", "NN"}, {"He", "PRP"}, {"reckons", "VBZ"}}
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		var dst []int
		for pb.Next() {
			dst, _ = tg.Tag(dst, sent)
		}
	})
	b.ReportMetric(float64(b.N*len(sent))/b.Elapsed().Seconds(), "tokens/s")
}
