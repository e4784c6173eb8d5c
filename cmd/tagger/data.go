package main

import (
	"io"

	"github.com/sparsetag/sparsetag/cmd/tagger/internal/flagcheck"
	"github.com/sparsetag/sparsetag/dataset"
)

// dataFlags are the input options shared by train, tag, eval and path.
type dataFlags struct {
	format string
	folds  string
}

// check refuses a --format outside formats and a --folds that does not
// parse.
func (df dataFlags) check(formats []dataset.Format) error {
	return flagcheck.First(flagcheck.OneOf("format", dataset.Format(df.format), formats),
		flagcheck.Parses("folds", df.folds, dataset.ParseFolds))
}

// readOptions returns the dataset options of df.
func (df dataFlags) readOptions(labeled bool) (dataset.Options, error) {
	folds, err := dataset.ParseFolds(df.folds)
	return dataset.Options{Format: dataset.Format(df.format), Labeled: labeled, Folds: folds}, err
}

// readExamples reads all sequences of path (a file, "-" or "embedded:NAME")
// in the format and folds of df.
func readExamples(path string, df dataFlags, labeled bool, stdin io.Reader) ([]dataset.Example, error) {
	opts, err := df.readOptions(labeled)
	if err != nil {
		return nil, err
	}
	return dataset.ReadFile(path, stdin, opts)
}

// openExamples opens path for reading one sequence at a time in the format
// and folds of df (dataset.OpenReader); the caller closes the Closer.
// Reading stops with e.ctx's error at an interrupt: the streaming commands
// then flush what is complete.
func openExamples(e *env, path string, df dataFlags, labeled bool) (*dataset.Reader, io.Closer, error) {
	opts, err := df.readOptions(labeled)
	if err != nil {
		return nil, nil, err
	}
	return dataset.OpenReader(e.ctx, path, e.stdin, opts)
}
