package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/sparsetag/sparsetag/corpora"
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

// checkColumns reports, before any input is read, a template that reads
// more token columns than input of the given format has: raw text gives
// only the words, CoNLL-U four columns (FORM, LEMMA, the other POS tag,
// FEATS). The README's chunking model, whose template reads POS tags,
// cannot tag raw text; the template error would only say that a macro
// names a column the token lacks.
func checkColumns(format string, t *features.Template) error {
	var have int
	var gives string
	switch dataset.Format(format) {
	case dataset.Text:
		have, gives = 1, "only the words (column 1)"
	case dataset.CoNLLU:
		have, gives = 4, "4 token columns (FORM, LEMMA, the other POS tag, FEATS)"
	default:
		return nil
	}
	if t == nil || t.Columns() <= have {
		return nil
	}
	need := t.Columns()
	return usagef("the model's template reads token column %d (%%x[row,%d]; the words are column 1) but --format %s gives %s: "+
		"tag CoNLL input (--format conll) with the columns the model was trained on", need, need-1, format, gives)
}

// emptyInput reports whether err says that the input holds no sequence at
// all (an empty file or standard input).
func emptyInput(err error) bool { return errors.Is(err, corpora.ErrEmpty) }

// tagInputError is tag's error for err, an error met while reading and
// tagging input of the given format. Empty input is no error: it gives
// empty output, as every peer tagger does. A token with fewer columns than
// the model's template reads gets the reason in plain words.
func tagInputError(err error, format string) error {
	var te *features.TemplateError
	switch {
	case emptyInput(err):
		return nil
	case errors.As(err, &te):
		return fmt.Errorf("%w: the input has fewer token columns than the model's template reads: "+
			"tag --format %s input with the columns the model was trained on", err, format)
	}
	return err
}

// evalInputError is eval's error for err, an error met while reading and
// evaluating input. Input without any sequence is an error that says so:
// accuracy and F1 are 0/0 without tokens, and a success would let a
// pipeline whose test set came out empty pass as evaluated.
func evalInputError(err error, input string) error {
	if !emptyInput(err) {
		return err
	}
	return fmt.Errorf("%s: nothing to evaluate: the input holds no labeled sequence, and accuracy and F1 are undefined without tokens",
		dataset.InputName(input))
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
