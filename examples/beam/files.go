package beamtag

import (
	"context"
	"fmt"
	"io"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
)

// outFile is a file being written on a Beam filesystem. Where the
// filesystem can rename (local files among others), it is written under a
// temporary name and renamed into place by commit, so that a failed or
// retried bundle never leaves a half-written output; elsewhere (object
// stores) the object appears only when the write is closed.
type outFile struct {
	io.WriteCloser
	fs        filesystem.Interface
	path, tmp string
}

// createFile opens path for writing (overwriting).
func createFile(ctx context.Context, path string) (*outFile, error) {
	fs, err := filesystem.New(ctx, path)
	if err != nil {
		return nil, err
	}
	f := &outFile{fs: fs, path: path, tmp: path}
	if _, ok := fs.(filesystem.Renamer); ok {
		f.tmp = path + ".tmp"
	}
	if f.WriteCloser, err = fs.OpenWrite(ctx, f.tmp); err != nil {
		fs.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}

// commit closes the file and moves it into place.
func (f *outFile) commit(ctx context.Context) error {
	defer f.fs.Close()
	if err := f.Close(); err != nil {
		return fmt.Errorf("%s: %w", f.path, err)
	}
	if f.tmp != f.path {
		if err := f.fs.(filesystem.Renamer).Rename(ctx, f.tmp, f.path); err != nil {
			return fmt.Errorf("%s: %w", f.path, err)
		}
	}
	return nil
}

// abort closes the file and removes the temporary file where it can.
func (f *outFile) abort() {
	f.Close()
	if rm, ok := f.fs.(filesystem.Remover); ok && f.tmp != f.path {
		rm.Remove(context.Background(), f.tmp)
	}
	f.fs.Close()
}
