package online_test

import (
	"context"
	"os"
	"strconv"
	"syscall"
	"testing"

	"github.com/sparsetag/sparsetag/dataset"
	"github.com/sparsetag/sparsetag/train/online"
)

// BenchmarkFile trains each algorithm for SPARSETAG_BENCH_EPOCHS epochs
// (default 10, at least 2) on the CRFsuite attribute file named by
// SPARSETAG_BENCH_CRFSUITE (skipped without it), read once outside the
// timing, in the default order. It reports the process's CPU seconds
// (user + system, getrusage: what a shared machine inflates least) per
// epoch from the end of the first epoch to the end of the last (what
// CRFsuite's log gives per iteration: no reading, feature generation or
// l2sgd calibration), besides the wall time per run. E.g.
//
//	SPARSETAG_BENCH_CRFSUITE=train.crfsuite go test -run NONE -bench File/l2sgd -benchtime 1x ./train/online
func BenchmarkFile(b *testing.B) {
	path := os.Getenv("SPARSETAG_BENCH_CRFSUITE")
	if path == "" {
		b.Skip("SPARSETAG_BENCH_CRFSUITE names no CRFsuite attribute file")
	}
	epochs := 10
	if v := os.Getenv("SPARSETAG_BENCH_EPOCHS"); v != "" {
		var err error
		if epochs, err = strconv.Atoi(v); err != nil || epochs < 2 {
			b.Fatalf("SPARSETAG_BENCH_EPOCHS=%q: want a count", v)
		}
	}
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	enc, err := dataset.NewEncoder(dataset.CRFsuite, nil)
	if err != nil {
		b.Fatal(err)
	}
	rd, err := dataset.NewReader(path, f, dataset.Options{Format: dataset.CRFsuite, Labeled: true})
	if err != nil {
		b.Fatal(err)
	}
	m, c, wts, err := dataset.ReadTrainingModel(rd, enc)
	if err != nil {
		b.Fatal(err)
	}
	for _, a := range online.Algorithms {
		b.Run(string(a), func(b *testing.B) {
			p, err := online.NewParams(a)
			if err != nil {
				b.Fatal(err)
			}
			p.MaxIterations = epochs
			var cpu, first float64
			st := online.Settings{Progress: func(e online.Epoch) {
				switch e.Epoch {
				case 1:
					first = cpuSeconds(b)
				case epochs:
					cpu += cpuSeconds(b) - first
				}
			}}
			for b.Loop() {
				if _, err := online.Train(context.Background(), online.Problem{Model: m, Corpus: c, Weights: wts}, p, st); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(cpu/float64(b.N*(epochs-1)), "cpu-s/epoch")
		})
	}
}

// cpuSeconds returns the CPU seconds (user + system) of the process so far.
func cpuSeconds(b *testing.B) float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
