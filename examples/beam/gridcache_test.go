package beamtag

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"
	"github.com/stretchr/testify/require"

	"github.com/sparsetag/sparsetag/dataset"
	"github.com/sparsetag/sparsetag/dataset/corpuscache"
)

// writeCache writes, as tagger train --cache does, the encoded corpus of
// the file src under the key of the file keyFor (the training file the
// grid is given): keyFor = src is a true cache; another src makes a cache
// whose corpus is not the grid's text, which only a grid that reads the
// cache trains on.
func writeCache(t *testing.T, path, src, keyFor, template string) {
	t.Helper()
	exs, err := dataset.ReadFile(src, dataset.Options{Format: dataset.CoNLL, Labeled: true})
	require.NoError(t, err)
	enc, err := newEncoder("conll", template)
	require.NoError(t, err)
	m, c, err := dataset.NewTrainingModel(enc, exs, 1)
	require.NoError(t, err)
	data, err := os.ReadFile(keyFor)
	require.NoError(t, err)
	key := corpuscache.TrainKey("conll", "", -1, 1, []byte(template), data)
	require.NoError(t, corpuscache.Write(path, key, corpuscache.NewEntry(m, c, dataset.SequenceWeights(exs))))
}

// runGrid runs the grid of cfg and returns the written model, or the
// pipeline's error.
func runGrid(cfg GridConfig) ([]byte, error) {
	p, s := beam.NewPipelineWithRoot()
	Grid(s, cfg)
	if err := ptest.Run(p); err != nil {
		return nil, err
	}
	return os.ReadFile(cfg.Model)
}

// TestGridCache: with the cache of tagger train --cache, the grid writes
// the model of the text path byte for byte (dev mode, and the refit of
// the folds); a cache holding another corpus under the right key changes
// the model (so the cache is what is read), to the model of that corpus;
// a cache of other data (stale) or a corrupt one fails the pipeline.
func TestGridCache(t *testing.T) {
	dir := t.TempDir()
	trainPath := writeShards(t, dir, "train", 80, 1)[0]
	otherDir := filepath.Join(dir, "other")
	require.NoError(t, os.MkdirAll(otherDir, 0o755))
	other := writeShards(t, otherDir, "train", 50, 1)[0]
	devDir := filepath.Join(dir, "dev")
	require.NoError(t, os.MkdirAll(devDir, 0o755))
	dev := writeShards(t, devDir, "test", 30, 1)[0]
	cache := filepath.Join(dir, "train.cache")
	writeCache(t, cache, trainPath, trainPath, gridTemplate)

	for _, folds := range []int{0, 2} {
		n := 0
		cfg := func(train, cachePath string) GridConfig {
			n++
			c := GridConfig{Train: train, Format: "conll", Template: gridTemplate, C1s: []float64{0.3, 3}, C2s: []float64{1},
				MaxIter: 40, Folds: folds, Cache: cachePath,
				Model: filepath.Join(dir, "m"+strconv.Itoa(n)+".model"), Report: filepath.Join(dir, "r"+strconv.Itoa(n)+".txt")}
			if folds == 0 {
				c.Dev = dev
			}
			return c
		}
		text, err := runGrid(cfg(trainPath, ""))
		require.NoError(t, err)
		cached, err := runGrid(cfg(trainPath, cache))
		require.NoError(t, err)
		require.True(t, bytes.Equal(text, cached), "folds %d: the model from the cache differs from the text's", folds)

		if folds == 0 {
			swapped := filepath.Join(dir, "swapped.cache")
			writeCache(t, swapped, other, trainPath, gridTemplate)
			got, err := runGrid(cfg(trainPath, swapped))
			require.NoError(t, err)
			require.False(t, bytes.Equal(text, got), "a cache of other sentences under the training file's key changed nothing: the cache was not read")
			want, err := runGrid(cfg(other, ""))
			require.NoError(t, err)
			require.True(t, bytes.Equal(want, got), "the model from the swapped cache is not the model of its sentences")
		}

		stale := filepath.Join(dir, "stale.cache")
		writeCache(t, stale, other, other, gridTemplate)
		_, err = runGrid(cfg(trainPath, stale))
		require.ErrorContains(t, err, "stale", "folds %d: a cache of other data was used", folds)

		b, err := os.ReadFile(cache)
		require.NoError(t, err)
		b[len(b)/2] ^= 1
		corrupt := filepath.Join(dir, "corrupt.cache")
		require.NoError(t, os.WriteFile(corrupt, b, 0o644))
		_, err = runGrid(cfg(trainPath, corrupt))
		require.ErrorContains(t, err, "corrupt", "folds %d: a corrupt cache was used", folds)
	}
}
