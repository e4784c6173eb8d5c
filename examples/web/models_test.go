package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"flag"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/sparsetag/sparsetag/chain"
)

var update = flag.Bool("update", false, "rewrite the embedded models under models/ (TestModelsCurrent)")

// TestModelsCurrent retrains every embedded model by its recipe and checks
// that the committed file holds exactly that model (training is
// deterministic, whatever the number of threads), so that the files under
// models/ are reproducible from the corpora and the code. With -update it
// rewrites them instead.
func TestModelsCurrent(t *testing.T) {
	if testing.Short() && !*update {
		t.Skip("retrains the embedded models (about a minute on 2 cores)")
	}
	for _, r := range recipes {
		t.Run(r.File, func(t *testing.T) {
			m, res, err := r.train(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: %d labels, %d non-zero weights, %s after %d iterations, %.1fs", r.File, len(m.Labels), res.NonZero, res.StopReason, res.NumIterations(), res.Seconds)
			want, err := m.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("models", r.File)
			if *update {
				b, err := m.MarshalGzip()
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, b, 0o644); err != nil {
					t.Fatal(err)
				}
				t.Logf("wrote %s (%d bytes; %d uncompressed)", path, len(b), len(want))
				return
			}
			zb, err := modelFiles.ReadFile("models/" + r.File)
			if err != nil {
				t.Fatal(err)
			}
			zr, err := gzip.NewReader(bytes.NewReader(zb))
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(zr)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("%s is not the model its recipe trains (%d bytes, retrained %d): run go test ./examples/web -run TestModelsCurrent -update", path, len(got), len(want))
			}
			if _, err := chain.ReadModel(bytes.NewReader(got)); err != nil {
				t.Fatal(err)
			}
		})
	}
}
