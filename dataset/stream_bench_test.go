package dataset

import (
	"os"
	"testing"
)

// BenchmarkReadTrainingModel reads and encodes the CRFsuite attribute file
// named by SPARSETAG_BENCH_CRFSUITE (skipped without it) with
// ReadTrainingModel, the streamed training's reading (cmd/tagger sets its
// own GC percentage around it; this runs at the process's). E.g.
//
//	SPARSETAG_BENCH_CRFSUITE=train.crfsuite go test -run NONE -bench ReadTrainingModel -benchtime 5x ./dataset
func BenchmarkReadTrainingModel(b *testing.B) {
	path := os.Getenv("SPARSETAG_BENCH_CRFSUITE")
	if path == "" {
		b.Skip("SPARSETAG_BENCH_CRFSUITE names no CRFsuite attribute file")
	}
	for b.Loop() {
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		enc, err := NewEncoder(CRFsuite, nil)
		if err != nil {
			b.Fatal(err)
		}
		r, err := NewReader(path, f, Options{Format: CRFsuite, Labeled: true})
		if err != nil {
			b.Fatal(err)
		}
		if _, _, _, err := ReadTrainingModel(r, enc); err != nil {
			b.Fatal(err)
		}
		f.Close()
	}
}
