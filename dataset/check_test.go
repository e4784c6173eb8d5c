package dataset

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sparsetag/sparsetag/features"
)

// TestCheckKind: a format fits the encoders of its own kind only; an
// unknown format is left to the reader to refuse.
func TestCheckKind(t *testing.T) {
	assert.NoError(t, CoNLL.CheckKind(features.KindTemplate))
	assert.NoError(t, Text.CheckKind(features.KindTemplate))
	assert.NoError(t, Format("xml").CheckKind(features.KindTemplate))
	assert.EqualError(t, CRFsuite.CheckKind(features.KindTemplate),
		fmt.Sprintf("--format crfsuite does not fit this model, which reads %v input", features.KindTemplate))
}

// TestCheckColumns: raw text gives one column and CoNLL-U four; a template
// that reads more is refused for them, CoNLL input is not checked.
func TestCheckColumns(t *testing.T) {
	pos := features.MustCompile("U00:%x[0,0]/%x[0,1]\n") // words and POS tags: 2 columns
	wide := features.MustCompile("U00:%x[0,4]\n")        // 5 columns
	assert.NoError(t, CoNLL.CheckColumns(wide))
	assert.NoError(t, CoNLLU.CheckColumns(pos))
	assert.NoError(t, Text.CheckColumns(nil))
	assert.EqualError(t, Text.CheckColumns(pos), "the model's template reads token column 2 (%x[row,1]; the words are column 1) but --format text gives "+
		"only the words (column 1): tag CoNLL input (--format conll) with the columns the model was trained on")
	assert.ErrorContains(t, CoNLLU.CheckColumns(wide), "reads token column 5 (%x[row,4]; the words are column 1) but --format conllu gives 4 token columns")
}

// TestInputErrors: empty input tags to nothing but cannot be evaluated; a
// template error while tagging gets its reason; other errors pass.
func TestInputErrors(t *testing.T) {
	_, empty := Read("in.txt", strings.NewReader(""), Options{Format: CoNLL})
	require.Error(t, empty)
	other := errors.New("disk on fire")
	assert.NoError(t, TagInputError(empty, CoNLL))
	assert.Equal(t, other, TagInputError(other, CoNLL))
	te := &features.TemplateError{Line: 10, Column: 5, Msg: "macro names column 1, but token 0 has only 1 column(s)"}
	err := TagInputError(fmt.Errorf("sequence 1: %w", te), Text)
	assert.ErrorAs(t, err, &te)
	assert.ErrorContains(t, err, ": the input has fewer token columns than the model's template reads: tag --format text input with the columns the model was trained on")

	assert.EqualError(t, EvalInputError(empty, "stdin"),
		"stdin: nothing to evaluate: the input holds no labeled sequence, and accuracy and F1 are undefined without tokens")
	assert.Equal(t, other, EvalInputError(other, "-"))
}
