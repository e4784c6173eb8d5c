package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/peer"
)

// InterruptedSuffix is appended to the --model path when an interrupted
// run finds a file there: an interrupt never replaces an existing model.
const interruptedSuffix = ".interrupted"

// modelDestination applies the interrupt rule, the same for every trainer
// of the command line, to the --model file:
//   - a finished run writes model;
//   - an interrupted run that finished nothing (no iteration, no solved
//     penalty) writes no model at all ("");
//   - an interrupted run never replaces an existing file: it writes
//     model + ".interrupted" when model exists, model itself otherwise.
//
// A failed run never calls it: its model is not written anywhere.
func modelDestination(model string, interrupted, progressed bool) (string, error) {
	if !interrupted {
		return model, nil
	}
	if !progressed {
		return "", nil
	}
	switch _, err := os.Lstat(model); {
	case err == nil:
		return model + interruptedSuffix, nil
	case errors.Is(err, fs.ErrNotExist):
		return model, nil
	default:
		return "", fmt.Errorf("interrupted: cannot tell whether %s exists, so no model is written: %w", model, err)
	}
}

// saveModel writes m under the interrupt rule (modelDestination) and says
// on log (nil: quiet) where it went, or why nothing was written; an
// interrupted run says so even when quiet, since the file it names is not
// the one the user asked for.
func saveModel(log io.Writer, m *chain.Model, model string, format modelFormat, interrupted, progressed bool) error {
	return saveModelWith(log, func(dest string) error { return format.save(dest, m) }, model, interrupted, progressed)
}

// saveModelWith is saveModel with the writing of the file to dest given
// as save.
func saveModelWith(log io.Writer, save func(dest string) error, model string, interrupted, progressed bool) error {
	if model == "" {
		return nil
	}
	dest, err := modelDestination(model, interrupted, progressed)
	if err != nil {
		return err
	}
	switch {
	case dest == "" && log != nil:
		fmt.Fprintf(log, "interrupted before the first iteration: no model written (%s untouched)\n", model)
	case dest == "":
	case dest != model:
		if err := save(dest); err != nil {
			return err
		}
		if log != nil {
			fmt.Fprintf(log, "interrupted: %s exists and is kept; wrote the interrupted model to %s\n", model, dest)
		}
	default:
		if err := save(dest); err != nil {
			return err
		}
		if log != nil {
			fmt.Fprintf(log, "wrote %s\n", dest)
		}
	}
	return nil
}

// modelFormat is the format of a model file this command writes
// (--model-format of train, --to of convert).
type modelFormat string

const (
	formatOurs     modelFormat = "ours"     // this toolkit's format (chain.Model.SaveFile)
	formatCRFsuite modelFormat = "crfsuite" // CRFsuite 0.12's crf1d model (peer.SaveCRFsuite)
)

// check returns a usage error for a format this command does not write.
func (f modelFormat) check(flag string) error {
	if f != formatOurs && f != formatCRFsuite {
		return usagef("%s %q: want ours or crfsuite", flag, string(f))
	}
	return nil
}

// save writes m to path in format f, atomically.
func (f modelFormat) save(path string, m *chain.Model) error {
	if f == formatCRFsuite {
		return peer.SaveCRFsuite(path, m)
	}
	return m.SaveFile(path)
}
