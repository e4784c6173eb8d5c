package main

import (
	"flag"
	"io"

	"github.com/sparsetag/sparsetag/cmd/tagger/internal/clifile"
	"github.com/sparsetag/sparsetag/cmd/tagger/internal/flagcheck"
	"github.com/sparsetag/sparsetag/dataset"
)

// dataFlags are the input options shared by train, tag, eval and path.
type dataFlags struct {
	format      string
	folds       string
	labelColumn int // the label column of labeled conll input (--label-column; 0 means the last)
}

// labelColumnFlag adds --label-column to fs (tag and eval, which read
// gold labels from column formats).
func (df *dataFlags) labelColumnFlag(fs *flag.FlagSet) {
	fs.IntVar(&df.labelColumn, "label-column", -1, "the label's `column` in conll input: 1-based, negative from the end (-1: the last)")
}

// checkLabelColumn refuses a --label-column of 0 or with a format other
// than conll, and reports whether it was set.
func (df dataFlags) checkLabelColumn(fs *flag.FlagSet) (bool, error) {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == "label-column" })
	switch {
	case !set:
		return false, nil
	case df.labelColumn == 0:
		return true, usagef("--label-column counts from 1 (the first column) or from -1 (the last), not 0")
	case df.format != string(dataset.CoNLL):
		return true, usagef("--label-column names a column of --format conll input, not of %s input", df.format)
	}
	return true, nil
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
	return dataset.Options{Format: dataset.Format(df.format), Labeled: labeled, Folds: folds, LabelColumn: df.labelColumn}, err
}

// readExamples reads all sequences of path (a file, "-" or "embedded:NAME")
// in the format and folds of df.
func readExamples(path string, df dataFlags, labeled bool, stdin io.Reader) ([]dataset.Example, error) {
	opts, err := df.readOptions(labeled)
	if err != nil {
		return nil, err
	}
	return clifile.ReadExamples(path, stdin, opts)
}

// openExamples opens path for reading one sequence at a time in the format
// and folds of df (clifile.OpenReader); the caller closes the Closer.
// Reading stops with e.ctx's error at an interrupt: the streaming commands
// then flush what is complete.
func openExamples(e *env, path string, df dataFlags, labeled bool) (*dataset.Reader, io.Closer, error) {
	opts, err := df.readOptions(labeled)
	if err != nil {
		return nil, nil, err
	}
	return clifile.OpenReader(e.ctx, path, e.stdin, opts)
}
