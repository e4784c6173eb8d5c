package chain

import (
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/sparsetag/sparsetag/internal/numtest"
	"github.com/sparsetag/sparsetag/sparse"
)

func TestTaggerConcurrentMatchesSerial(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	c := randomCorpus(rng, 300, 12, 10, 2, 5, false)
	tg, serial := randomTagger(rng, c, 5)
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			var path []int
			for rep := 0; rep < 3; rep++ {
				for k := 0; k < c.Len(); k++ {
					i := (k + g*37) % c.Len()
					path, _ = tg.Tag(path, Encoded{Corpus: c, Seq: i})
					for t := range path {
						if path[t] != serial[i][t] {
							errs <- "concurrent tagging differs from serial"
							return
						}
					}
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
}

// TestTaggerBruteForce checks Viterbi paths, sequence probabilities and
// marginals of Decode (DecodeOptions.Posterior) against enumeration of all
// label sequences.
func TestTaggerBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	c := randomCorpus(rng, 20, 5, 4, 1, 3, true)
	m, _ := NewModel(labelNames(3), 4, 1, true, nil)
	for j := range m.W {
		m.W[j] = 2 * rng.NormFloat64()
	}
	tg := NewTagger(m)
	var d Decoding
	for i := 0; i < c.Len(); i++ {
		start, T := c.Span(i)
		// Enumerate: best path (first in lexicographic order among ties,
		// never hit with random real weights), log Z and marginals.
		L := 3
		y := make([]int, T)
		best, bestScore := []int(nil), math.Inf(-1)
		var logZ float64 = math.Inf(-1)
		marg := make([]float64, T*L)
		for {
			s := seqScore(m, c, start, y)
			if s > bestScore {
				bestScore, best = s, append([]int(nil), y...)
			}
			logZ = logAdd(logZ, s)
			if !nextPath(y, L) {
				break
			}
		}
		for k := range y {
			y[k] = 0
		}
		for {
			pr := math.Exp(seqScore(m, c, start, y) - logZ)
			for t := 0; t < T; t++ {
				marg[t*L+y[t]] += pr
			}
			if !nextPath(y, L) {
				break
			}
		}
		if err := tg.Decode(&d, Encoded{Corpus: c, Seq: i}, DecodeOptions{Posterior: true}); err != nil {
			t.Fatal(err)
		}
		p := struct {
			Path       []int
			LogZ, Prob float64
			Marginal   []float64
		}{d.Best(), d.LogZ, d.Probs[0], d.Marginal}
		for k := range best {
			if p.Path[k] != best[k] {
				t.Fatalf("sequence %d: path %v, want %v", i, p.Path, best)
			}
		}
		numtest.RequireClose(t, logZ, p.LogZ, 1e-10, 1e-10, "logZ")
		numtest.RequireClose(t, math.Exp(bestScore-logZ), p.Prob, 1e-10, 1e-9, "prob")
		numtest.RequireSlices(t, marg, p.Marginal, 1e-10, 1e-9, "marginals")
	}
}

func seqScore(m *Model, cc *sparse.Corpus, start int, y []int) float64 {
	L := m.NumLabels()
	s := 0.0
	for t := range y {
		cols, vals := cc.Unary.Row(start + t)
		for k, a := range cols {
			v := 1.0
			if vals != nil {
				v = vals[k]
			}
			s += v * m.State[int(a)*L+y[t]]
		}
		if t > 0 {
			s += m.Trans[y[t-1]*L+y[t]]
			pc, pv := cc.Pair.Row(start + t)
			for k, a := range pc {
				v := 1.0
				if pv != nil {
					v = pv[k]
				}
				s += v * m.PairW[int(a)*L*L+y[t-1]*L+y[t]]
			}
		}
	}
	return s
}

func logAdd(a, b float64) float64 {
	if math.IsInf(a, -1) {
		return b
	}
	if a < b {
		a, b = b, a
	}
	return a + math.Log1p(math.Exp(b-a))
}
