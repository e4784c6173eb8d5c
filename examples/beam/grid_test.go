package beamtag

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"
	"github.com/stretchr/testify/require"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/dataset"
)

const gridTemplate = "U00:%x[-1,0]\nU01:%x[0,0]\nU02:%x[1,0]\nU03:%x[0,1]\nU04:%x[-1,1]/%x[0,1]\nB\n"

// TestGridPipeline runs the training grid on the local runner, with a dev
// file and with 2 folds, and checks the report (one line per element and
// the choice), that the choice has the best mean score, and that the
// written model is byte for byte the model trained directly at the chosen
// penalties (training is deterministic).
func TestGridPipeline(t *testing.T) {
	dir := t.TempDir()
	train := writeShards(t, dir, "train", 80, 1)[0]
	devDir := filepath.Join(dir, "dev")
	require.NoError(t, os.MkdirAll(devDir, 0o755))
	dev := writeShards(t, devDir, "test", 30, 1)[0]
	for _, folds := range []int{0, 2} {
		cfg := GridConfig{Train: train, Format: "conll", Template: gridTemplate, C1s: []float64{0.1, 1, 10},
			C2s: []float64{1}, MaxIter: 60, Folds: folds,
			Model: filepath.Join(dir, "best"+strconv.Itoa(folds)+".model"), Report: filepath.Join(dir, "report"+strconv.Itoa(folds)+".txt")}
		if folds == 0 {
			cfg.Dev = dev
		}
		p, s := beam.NewPipelineWithRoot()
		Grid(s, cfg)
		require.NoError(t, ptest.Run(p))

		rep, err := os.ReadFile(cfg.Report)
		require.NoError(t, err)
		lines := strings.Split(strings.TrimSpace(string(rep)), "\n")
		require.Len(t, lines, 3*max(folds, 1)+1, string(rep))
		mean := map[string]float64{}
		var best string
		re := regexp.MustCompile(`^c1 (\S+)\tc2 1\tfold -?\d+\tscore (\S+)\t`)
		for _, l := range lines {
			if strings.HasPrefix(l, "best: ") {
				best = l
				continue
			}
			m := re.FindStringSubmatch(l)
			require.NotNil(t, m, l)
			v, _ := strconv.ParseFloat(m[2], 64)
			mean[m[1]] += v / float64(max(folds, 1))
		}
		bestC1 := ""
		for _, c1 := range []string{"0.1", "1", "10"} { // the pipeline's order: ties go to the smaller c1
			if bestC1 == "" || mean[c1] > mean[bestC1] {
				bestC1 = c1
			}
		}
		require.Contains(t, best, "best: c1 "+bestC1+"\t", string(rep))

		c1, _ := strconv.ParseFloat(bestC1, 64)
		exs, err := dataset.ReadFile(train, dataset.Options{Format: dataset.CoNLL, Labeled: true})
		require.NoError(t, err)
		tf := &trainFn{Format: "conll", Template: gridTemplate, MaxIter: 60}
		_, m, err := tf.fit(context.Background(), exs, GridPoint{C1: c1, C2: 1, Fold: -1})
		require.NoError(t, err)
		var want bytes.Buffer
		_, err = m.WriteTo(&want)
		require.NoError(t, err)
		got, err := os.ReadFile(cfg.Model)
		require.NoError(t, err)
		require.True(t, bytes.Equal(want.Bytes(), got), "folds %d: written model differs from a direct training at c1 %g", folds, c1)
		_, err = chain.ReadModel(bytes.NewReader(got))
		require.NoError(t, err)
	}
}
