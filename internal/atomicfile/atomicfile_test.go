package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.txt")
	require.NoError(t, WriteFile(p, []byte("one")))
	require.NoError(t, WriteFile(p, []byte("two"))) // replaces
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	assert.Equal(t, "two", string(b))
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, ents, 1, "no temporary file left behind")
}

// TestWriteFailure: a failing fill or check leaves the existing file and no
// temporary file behind, and the error names the path and wraps the cause.
func TestWriteFailure(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.txt")
	require.NoError(t, WriteFile(p, []byte("keep")))
	boom := errors.New("boom")
	for name, tc := range map[string]struct {
		fill  func(io.Writer) error
		check func(string) error
	}{
		"fill": {fill: func(w io.Writer) error { io.WriteString(w, "partial"); return boom }},
		"check": {
			fill: func(w io.Writer) error { _, err := io.WriteString(w, "bad"); return err },
			check: func(tmp string) error {
				b, err := os.ReadFile(tmp)
				if err != nil || string(b) != "bad" {
					return errors.New("check did not see the written data")
				}
				return boom
			},
		},
	} {
		t.Run(name, func(t *testing.T) {
			err := Write(p, tc.fill, tc.check)
			require.Error(t, err)
			assert.ErrorIs(t, err, boom)
			assert.Contains(t, err.Error(), p)
			b, err := os.ReadFile(p)
			require.NoError(t, err)
			assert.Equal(t, "keep", string(b))
			ents, err := os.ReadDir(dir)
			require.NoError(t, err)
			assert.Len(t, ents, 1)
		})
	}
}

func TestWriteMissingDir(t *testing.T) {
	assert.Error(t, WriteFile(filepath.Join(t.TempDir(), "no", "such", "f"), nil))
}

func TestWriteRelative(t *testing.T) {
	t.Chdir(t.TempDir())
	require.NoError(t, WriteFile("rel.txt", []byte("x")))
	b, err := os.ReadFile("rel.txt")
	require.NoError(t, err)
	assert.Equal(t, "x", string(b))
}

// TestModes: a new file gets 0666 less the umask; a file that replaces
// another keeps its permissions (0644 stays 0644, 0640 stays 0640), so a
// server reading a model as another user can still read it after a retrain.
func TestModes(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no Unix permissions")
	}
	dir := t.TempDir()
	fresh := filepath.Join(dir, "new")
	require.NoError(t, WriteFile(fresh, []byte("x")))
	// The umask's effect, measured with os.Create (the reference for new files).
	ref := filepath.Join(dir, "ref")
	f, err := os.Create(ref)
	require.NoError(t, err)
	f.Close()
	want, got := stat(t, ref), stat(t, fresh)
	assert.Equal(t, want, got, "a new file gets os.Create's mode")
	for _, mode := range []os.FileMode{0o644, 0o640, 0o600} {
		p := filepath.Join(dir, "old")
		require.NoError(t, os.WriteFile(p, []byte("old"), 0o600))
		require.NoError(t, os.Chmod(p, mode))
		require.NoError(t, WriteFile(p, []byte("new")))
		assert.Equal(t, mode, stat(t, p), "replacing a %o file", mode)
	}
}

func stat(t *testing.T, p string) os.FileMode {
	t.Helper()
	fi, err := os.Stat(p)
	require.NoError(t, err)
	return fi.Mode().Perm()
}

// TestCheckWritable: a writable directory passes and keeps no file behind;
// a missing directory, a directory as the target and an unwritable
// directory fail before any work.
func TestCheckWritable(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, CheckWritable(filepath.Join(dir, "m.model")))
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, ents, "the probe left a file")
	assert.Error(t, CheckWritable(filepath.Join(dir, "missing", "m.model")))
	assert.Error(t, CheckWritable(dir))
	assert.Error(t, CheckWritable(""))
	if runtime.GOOS != "windows" && os.Geteuid() != 0 {
		ro := filepath.Join(dir, "ro")
		require.NoError(t, os.Mkdir(ro, 0o500))
		assert.Error(t, CheckWritable(filepath.Join(ro, "m.model")))
	}
}

// TestCheckWritableDir: an existing directory takes files (and keeps no
// probe), a directory that does not exist yet may be created in an
// existing parent; a regular file or a missing parent is refused.
func TestCheckWritableDir(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, CheckWritableDir(dir))
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, ents, "the probe left a file")
	require.NoError(t, CheckWritableDir(filepath.Join(dir, "figures")))
	assert.Error(t, CheckWritableDir(filepath.Join(dir, "missing", "figures")))
	file := filepath.Join(dir, "f.txt")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	assert.EqualError(t, CheckWritableDir(file), file+" is not a directory")
}

// TestStaleTempRemoved: a temporary file of a process that no longer runs
// (a writer killed by kill -9) is removed by the next write to the same
// target; one of a running process and other files stay.
func TestStaleTempRemoved(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no process table check")
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "m.model")
	// PIDs above the kernel's limit (at most 2^22 on Linux) never run.
	stale := filepath.Join(dir, ".m.model.tmp-99999999-abc")
	live := filepath.Join(dir, ".m.model.tmp-1-abc") // init always runs
	other := filepath.Join(dir, ".other.tmp-99999999-abc")
	for _, f := range []string{stale, live, other} {
		require.NoError(t, os.WriteFile(f, []byte("partial"), 0o600))
	}
	require.NoError(t, WriteFile(p, []byte("x")))
	assert.NoFileExists(t, stale)
	assert.FileExists(t, live)
	assert.FileExists(t, other)
}
