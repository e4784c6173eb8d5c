// Package atomicfile writes files so that readers never see a partial file
// and a failed write never damages an existing one: the data goes to a
// temporary file in the target's directory, which is synced, closed,
// optionally checked, and only then renamed over the target.
//
// # File mode
//
// A file that replaces an existing one keeps that file's permissions (a
// model that a server running as another user reads stays readable after a
// retrain); a new file gets 0666 less the process's umask (0644 with the
// usual umask 022), as os.Create would give it.
//
// # Leftovers
//
// A process killed during a write leaves its temporary file behind (the
// target is intact). Temporary files are named after the target and the
// writing process ("."+base+".tmp-PID-*"); every later write to the same
// target removes those whose process no longer runs.
//
// The model for this package is cmd/go/internal/modfetch (temp file in the
// same directory, write, validate, close, rename, deferred cleanup).
package atomicfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Write writes path through fill. fill writes the contents into w (a
// temporary file in the directory of path); the file is then synced and
// closed. If check is not nil it is called with the temporary file's name
// and may read it back and validate it. Only when fill, the sync, the close
// and check all succeed is the temporary file renamed over path. On any
// error path is left as it was and the temporary file is removed.
//
// Errors from fill and check are returned wrapped with the path, so that
// errors.Is and errors.As see them.
func Write(path string, fill func(w io.Writer) error, check func(tmp string) error) (err error) {
	dir, base := split(path)
	removeStale(dir, base)
	f, err := createTemp(dir, base)
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
	if st, serr := os.Stat(path); serr == nil && st.Mode().IsRegular() {
		// Keep the permissions of the file this one replaces.
		if err = f.Chmod(st.Mode().Perm()); err != nil {
			return err
		}
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

// CheckWritable reports, before any work is done, whether Write could
// create path: the directory exists and a temporary file can be created
// (and is removed) there, and path is not a directory. It does not touch
// path itself.
func CheckWritable(path string) error {
	if path == "" {
		return errors.New("empty file name")
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return fmt.Errorf("%s is a directory", path)
	}
	dir, base := split(path)
	f, err := createTemp(dir, base)
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	f.Close()
	return os.Remove(f.Name())
}

// CheckWritableDir reports, before any work is done, whether files can be
// written into dir: it is a directory in which a temporary file can be
// created (and is removed), or it does not exist yet and its parent could
// take it (CheckWritable). It creates no directory.
func CheckWritableDir(dir string) error {
	st, err := os.Stat(dir)
	switch {
	case err != nil:
		return CheckWritable(dir)
	case !st.IsDir():
		return fmt.Errorf("%s is not a directory", dir)
	}
	return CheckWritable(filepath.Join(dir, ".probe"))
}

func split(path string) (dir, base string) {
	dir, base = filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	return dir, base
}

// tempPrefix is the name prefix of the temporary files of target base.
func tempPrefix(base string) string { return "." + base + ".tmp-" }

// createTemp creates a new temporary file for target base in dir, mode
// 0666 less the umask, named tempPrefix(base)+PID+"-"+random.
func createTemp(dir, base string) (*os.File, error) {
	for range 100 {
		name := filepath.Join(dir, tempPrefix(base)+strconv.Itoa(os.Getpid())+"-"+strconv.FormatUint(rand.Uint64(), 36))
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if !errors.Is(err, fs.ErrExist) {
			return f, err
		}
	}
	return nil, fmt.Errorf("cannot create a temporary file for %s in %s", base, dir)
}

// removeStale removes the temporary files of target base in dir left by
// processes that no longer run. Errors are ignored: cleaning is a courtesy.
func removeStale(dir, base string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	prefix := tempPrefix(base)
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), prefix)
		if !ok || !e.Type().IsRegular() {
			continue
		}
		pidText, _, ok := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if !ok || err != nil || pid == os.Getpid() || processRunning(pid) {
			continue
		}
		os.Remove(filepath.Join(dir, e.Name()))
	}
}
