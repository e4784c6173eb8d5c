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
	if runtime.GOOS != "windows" {
		fi, err := os.Stat(p)
		require.NoError(t, err)
		assert.Equal(t, Mode, fi.Mode().Perm())
	}
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
