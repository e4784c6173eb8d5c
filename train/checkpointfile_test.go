package train

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCheckpointFile: Load before any checkpoint gives none; Save then Load
// gives a checkpoint that resumes the run; a checkpoint that cannot be
// written is a warning, not an error; Remove deletes the file and accepts
// a missing one; a damaged file is refused with its name.
func TestCheckpointFile(t *testing.T) {
	dir := t.TempDir()
	f := CheckpointFile{Path: filepath.Join(dir, "run.ckpt")}
	ck, err := f.Load()
	require.NoError(t, err)
	assert.Nil(t, ck, "a checkpoint before any was written")

	rng := rand.New(rand.NewPCG(71, 72))
	c := randomCorpus(rng, 40, 5, 8, 0, 3, false)
	op := Options{Problem: Problem{BetaRatio: 0.2}, Stopping: Stopping{Epsilon: 1e-10}, Hooks: Hooks{Checkpoint: f.Save, CheckpointEvery: 2}}
	trainTiny(t, c, 3, 8, op)
	ck, err = f.Load()
	require.NoError(t, err)
	require.NotNil(t, ck, "no checkpoint written")
	op.Checkpoint, op.Resume = nil, ck
	trainTiny(t, c, 3, 8, op)

	var warned error
	bad := CheckpointFile{Path: filepath.Join(dir, "gone", "run.ckpt"), Warn: func(err error) { warned = err }}
	assert.NoError(t, bad.Save(ck))
	assert.Error(t, warned, "the failed write was not passed to Warn")

	require.NoError(t, os.WriteFile(filepath.Join(dir, "bad.ckpt"), []byte("not a checkpoint"), 0o644))
	_, err = CheckpointFile{Path: filepath.Join(dir, "bad.ckpt")}.Load()
	assert.ErrorContains(t, err, "bad.ckpt: ")

	require.NoError(t, f.Remove())
	_, err = os.Stat(f.Path)
	assert.True(t, os.IsNotExist(err), "Remove left the file")
	assert.NoError(t, f.Remove(), "removing a missing checkpoint")
}
