package main

import (
	"context"
	"io"

	"github.com/sparsetag/sparsetag/dataset"
	"github.com/sparsetag/sparsetag/features"
)

// dataFlags are the input options shared by train, tag, eval and path.
type dataFlags struct {
	format string
	folds  string
}

// readExamples reads all sequences of path (a file, "-" or "embedded:NAME")
// in the format and folds of df.
func readExamples(path string, df dataFlags, labeled bool, stdin io.Reader) ([]dataset.Example, error) {
	folds, err := dataset.ParseFolds(df.folds)
	if err != nil {
		return nil, err
	}
	return dataset.ReadFile(path, stdin, dataset.Options{Format: dataset.Format(df.format), Labeled: labeled, Folds: folds})
}

// openExamples opens path (see dataset.Open) for reading one sequence at a
// time in the format and folds of df; the caller must call closeInput.
// Reading stops with ctx's error once ctx is done (an interrupt): the
// streaming commands then flush what is complete.
func openExamples(ctx context.Context, path string, df dataFlags, labeled bool, stdin io.Reader) (r *dataset.Reader, closeInput func(), err error) {
	folds, err := dataset.ParseFolds(df.folds)
	if err != nil {
		return nil, nil, err
	}
	rc, err := dataset.Open(path, stdin)
	if err != nil {
		return nil, nil, err
	}
	r, err = dataset.NewReader(dataset.InputName(path), ctxReader{ctx, rc}, dataset.Options{Format: dataset.Format(df.format), Labeled: labeled, Folds: folds})
	if err != nil {
		rc.Close()
		return nil, nil, err
	}
	return r, func() { rc.Close() }, nil
}

// checkFormat reports a usage error when input of the given format cannot
// feed a model whose encoder is of kind k (e.g. CRFsuite attributes for a
// template model), instead of tagging it as empty sequences.
func checkFormat(format string, k features.Kind) error {
	if w, ok := dataset.Format(format).Kind(); ok && w != k {
		return usagef("--format %s does not fit this model, which reads %v input", format, k)
	}
	return nil
}

// ctxReader reads from r until ctx is done, then fails with ctx's error.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// ctxWriter writes to w until ctx is done, then fails with ctx's error.
type ctxWriter struct {
	ctx context.Context
	w   io.Writer
}

func (c ctxWriter) Write(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.w.Write(p)
}
