package inference_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/sparsetag/sparsetag/inference"
	"github.com/sparsetag/sparsetag/inference/inferencetest"
)

// benchSizes are a CoNLL-like sentence with a large tag set (T=25, L=23),
// an OCR-like word (T=8, L=26) and the CoNLL-2000 chunking shape (mean
// sentence length 24, 22 labels).
var benchSizes = [][2]int{{25, 23}, {8, 26}, {24, 22}}

// BenchmarkForwardBackward: "cached" reuses the same Trans (exp(Trans) is
// cached, as for all sequences of one training evaluation), "newTrans"
// changes Trans before each call, "transAt" adds a TransAt, "log" forces
// the log-space path.
func BenchmarkForwardBackward(b *testing.B) {
	for _, sz := range benchSizes {
		T, L := sz[0], sz[1]
		for _, mode := range []string{"cached", "newTrans", "transAt", "log"} {
			b.Run(fmt.Sprintf("T=%d/L=%d/%s", T, L, mode), func(b *testing.B) {
				rng := rand.New(rand.NewPCG(1, 1))
				lat := inferencetest.RandomLattice(rng, T, L, 2, mode == "transAt", true)
				ws := inference.NewWorkspace(T, L)
				inference.SetForceLogSpace(ws, mode == "log")
				inference.ForwardBackward(ws, lat)
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if mode == "newTrans" {
						lat.Trans[i%len(lat.Trans)] += 1e-3
					}
					inference.ForwardBackward(ws, lat)
				}
			})
		}
	}
}

func BenchmarkViterbi(b *testing.B) {
	for _, sz := range benchSizes {
		T, L := sz[0], sz[1]
		b.Run(fmt.Sprintf("T=%d/L=%d", T, L), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 1))
			lat := inferencetest.RandomLattice(rng, T, L, 2, false, true)
			ws := inference.NewWorkspace(T, L)
			path := make([]int, T)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				inference.Viterbi(ws, lat, path)
			}
		})
	}
}
