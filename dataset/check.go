package dataset

import (
	"errors"
	"fmt"

	"github.com/sparsetag/sparsetag/corpora"
	"github.com/sparsetag/sparsetag/features"
)

// The checks and explanations below are for the commands that feed input
// to a model (tagger tag, eval and explain): their messages name the
// commands' --format flag.

// CheckKind reports, before any input is read, that input of format f
// cannot feed a model whose encoder is of kind k (e.g. CRFsuite attributes
// for a template model), instead of letting it be tagged as empty
// sequences.
func (f Format) CheckKind(k features.Kind) error {
	if w, ok := f.Kind(); ok && w != k {
		return fmt.Errorf("--format %s does not fit this model, which reads %v input", f, k)
	}
	return nil
}

// CheckColumns reports, before any input is read, a template that reads
// more token columns than input of format f has: raw text gives only the
// words, CoNLL-U four columns (FORM, LEMMA, the other POS tag, FEATS). The
// README's chunking model, whose template reads POS tags, cannot tag raw
// text; the template error would only say that a macro names a column the
// token lacks.
func (f Format) CheckColumns(t *features.Template) error {
	var have int
	var gives string
	switch f {
	case Text:
		have, gives = 1, "only the words (column 1)"
	case CoNLLU:
		have, gives = 4, "4 token columns (FORM, LEMMA, the other POS tag, FEATS)"
	default:
		return nil
	}
	if t == nil || t.Columns() <= have {
		return nil
	}
	need := t.Columns()
	return fmt.Errorf("the model's template reads token column %d (%%x[row,%d]; the words are column 1) but --format %s gives %s: "+
		"tag CoNLL input (--format conll) with the columns the model was trained on", need, need-1, f, gives)
}

// emptyInput reports whether err says that the input holds no sequence at
// all (an empty file or standard input).
func emptyInput(err error) bool { return errors.Is(err, corpora.ErrEmpty) }

// TagInputError is the error of tagging for err, an error met while
// reading and tagging input of format f. Empty input is no error: it gives
// empty output, as every peer tagger does. A token with fewer columns than
// the model's template reads gets the reason in plain words.
func TagInputError(err error, f Format) error {
	var te *features.TemplateError
	switch {
	case emptyInput(err):
		return nil
	case errors.As(err, &te):
		return fmt.Errorf("%w: the input has fewer token columns than the model's template reads: "+
			"tag --format %s input with the columns the model was trained on", err, f)
	case f == CoNLL && errors.Is(err, corpora.ErrFieldCount):
		// Plain text read as CoNLL: every word of a line is a column.
		return fmt.Errorf("%w (--format conll reads one token per line, its columns separated by spaces, a blank line between sentences; "+
			"for plain text, one sentence per line, give --format text)", err)
	}
	return err
}

// EvalInputError is the error of evaluation for err, an error met while
// reading and evaluating input. A token with fewer columns than the
// model's template reads gets the likely reason (a file without its label
// column, whose last token column was read as the label); name names the
// input. Input without any sequence is an error
// that says so: accuracy and F1 are 0/0 without tokens, and a success
// would let a pipeline whose test set came out empty pass as evaluated.
func EvalInputError(err error, name string) error {
	var te *features.TemplateError
	if errors.As(err, &te) {
		return fmt.Errorf("%w: eval reads the last column of every token as its gold label, so the model sees one column fewer "+
			"than the file has: give eval a file with its label column (tag an unlabeled file with tagger tag)", err)
	}
	if !emptyInput(err) {
		return err
	}
	return fmt.Errorf("%s: nothing to evaluate: the input holds no labeled sequence, and accuracy and F1 are undefined without tokens",
		name)
}
