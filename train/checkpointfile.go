package train

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/sparsetag/sparsetag/internal/atomicfile"
)

// CheckpointFile is the checkpoint file of a run: Save writes every
// checkpoint to Path atomically (Options.Checkpoint), Load reads it back to
// resume (Options.Resume), and Remove deletes it once the run has
// finished.
type CheckpointFile struct {
	Path string
	// Warn, when not nil, gets the error of a checkpoint that could not be
	// written; training goes on and the previous checkpoint file, if any,
	// is intact.
	Warn func(error)
}

// Save writes ck to f.Path atomically (internal/atomicfile); use it as
// Options.Checkpoint. A failed write is passed to Warn and Save returns
// nil: a checkpoint that cannot be written must not end training.
func (f CheckpointFile) Save(ck *Checkpoint) error {
	err := atomicfile.Write(f.Path, func(w io.Writer) error {
		_, err := ck.WriteTo(w)
		return err
	}, nil)
	if err != nil && f.Warn != nil {
		f.Warn(err)
	}
	return nil
}

// Load reads the checkpoint of f.Path to resume from (Options.Resume). It
// returns nil and no error when the file does not exist yet: a run asked
// to resume then starts from the beginning.
func (f CheckpointFile) Load() (*Checkpoint, error) {
	r, err := os.Open(f.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer r.Close()
	ck, err := ReadCheckpoint(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.Path, err)
	}
	return ck, nil
}

// Remove deletes the checkpoint file of a finished run; a file that does
// not exist is no error.
func (f CheckpointFile) Remove() error {
	if err := os.Remove(f.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}
