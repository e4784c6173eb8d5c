// Package atomicfile writes files so that readers never see a partial file
// and a failed write never damages an existing one: the data goes to a
// temporary file in the target's directory, which is synced, closed,
// optionally checked, and only then renamed over the target.
//
// # File mode
//
// A file written by this package has mode [Mode] (0600, owner read and
// write), whatever the umask and whatever the mode of the file it replaces.
// That is the mode chain.(*Model).SaveFile has always given model files (the
// mode of os.CreateTemp); reports, checkpoints and figures of cmd/tagger get
// the same one, so that every file the toolkit writes follows one policy.
// Callers that want to share a file widen its mode themselves.
//
// The model for this package is cmd/go/internal/modfetch (temp file in the
// same directory, write, validate, close, rename, deferred cleanup).
package atomicfile

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Mode is the permission of every file written by Write and WriteFile.
const Mode os.FileMode = 0o600

// Write writes path through fill. fill writes the contents into w (a
// temporary file "."+base(path)+".tmp*" in the directory of path); the file
// is then synced and closed. If check is not nil it is called with the
// temporary file's name and may read it back and validate it. Only when
// fill, the sync, the close and check all succeed is the temporary file
// renamed over path. On any error path is left as it was and the temporary
// file is removed.
//
// Errors from fill and check are returned wrapped with the path, so that
// errors.Is and errors.As see them.
func Write(path string, fill func(w io.Writer) error, check func(tmp string) error) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	closed := false
	defer func() {
		if err != nil {
			if !closed {
				f.Close()
			}
			os.Remove(tmp)
		}
	}()
	if err = f.Chmod(Mode); err != nil {
		return err
	}
	if err = fill(f); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err = f.Sync(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	closed = true
	if err = f.Close(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if check != nil {
		if err = check(tmp); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	return os.Rename(tmp, path)
}

// WriteFile writes data to path atomically (Write without a check).
func WriteFile(path string, data []byte) error {
	return Write(path, func(w io.Writer) error {
		_, err := io.Copy(w, bytes.NewReader(data))
		return err
	}, nil)
}
