package tagging

import (
	"bufio"
	"bytes"
	"errors"
	"github.com/sparsetag/sparsetag/models"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/dataset"
)

// TestPipelineEmbedded runs the embedded English models as a pipeline and
// checks it against the models run one after the other by hand, through
// Tag, Decode (n-best under IOB2 constraints), Explain and the Writer.
func TestPipelineEmbedded(t *testing.T) {
	pos, err := loadEmbedded("en-pos.model")
	require.NoError(t, err)
	chunk, err := loadEmbedded("en-chunk.model")
	require.NoError(t, err)
	p, err := NewPipeline([]Tagger{pos, chunk}, []string{"pos", "chunk"})
	require.NoError(t, err)
	assert.Equal(t, chunk.Labels(), p.Labels())
	assert.Equal(t, 1, p.Reads().Template.Columns(), "the pipeline reads what its first model reads")

	words := []string{"The", "pound", "fell", "sharply", "."}
	ex := dataset.Example{Tokens: make([][]string, len(words)), Text: words, File: "in", Line: 1}
	for i, w := range words {
		ex.Tokens[i] = []string{w}
	}
	tags, err := pos.Tag(nil, &ex)
	require.NoError(t, err)
	byHand := dataset.Example{Tokens: make([][]string, len(words)), Text: words}
	for i, w := range words {
		byHand.Tokens[i] = []string{w, pos.Labels()[tags[i]]}
	}
	aug, err := p.Augment(&ex)
	require.NoError(t, err)
	assert.Equal(t, byHand.Tokens, aug.Tokens)
	assert.Len(t, ex.Tokens[0], 1, "Augment leaves its argument alone")

	want, err := chunk.Tag(nil, &byHand)
	require.NoError(t, err)
	got, err := p.Tag(nil, &ex)
	require.NoError(t, err)
	assert.Equal(t, want, got)

	opt := chain.DecodeOptions{N: 3, Constraints: chain.BIOConstraints(chunk.Labels())}
	var dw, dg chain.Decoding
	require.NoError(t, chunk.Decode(&dw, &byHand, opt))
	require.NoError(t, p.Decode(&dg, &ex, opt))
	assert.Equal(t, dw.Paths, dg.Paths)
	assert.Equal(t, dw.Probs, dg.Probs)

	ew, err := chunk.Explain(&byHand, want)
	require.NoError(t, err)
	eg, err := p.Explain(&ex, got)
	require.NoError(t, err)
	assert.Equal(t, ew, eg)

	// The Writer writes the columns the last model read.
	var out bytes.Buffer
	w := bufio.NewWriter(&out)
	require.NoError(t, NewWriter(p, StreamOptions{Output: CoNLL}).Write(w, &ex, 0))
	require.NoError(t, w.Flush())
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Len(t, lines, len(words))
	for i, l := range lines {
		assert.Equal(t, strings.Join(append(slices.Clone(byHand.Tokens[i]), chunk.Labels()[want[i]]), " "), l)
	}
	assert.Len(t, ex.Tokens[0], 1, "Write leaves the example alone")
}

func TestPipelineColumnsError(t *testing.T) {
	pos, err := loadEmbedded("en-pos.model")
	require.NoError(t, err)
	chunk, err := loadEmbedded("en-chunk.model")
	require.NoError(t, err)
	wrong, err := NewPipeline([]Tagger{chunk, pos}, []string{"chunk.model", "pos.model"})
	require.NoError(t, err)
	ex := dataset.Example{Tokens: [][]string{{"The"}, {"pound"}}, File: "in.txt", Line: 7}
	_, err = wrong.Tag(nil, &ex)
	var ce *ColumnsError
	require.True(t, errors.As(err, &ce), "%v", err)
	assert.Equal(t, ColumnsError{Model: "chunk.model", Reads: 2, Names: []string{"word", "POS"}, Have: 1}, *ce)
	assert.Contains(t, err.Error(), "model chunk.model reads 2 token columns (word, POS), but gets the input's 1. Give CoNLL input")
	// Labeled input has lost its label column: the likely mistake is a
	// file without one.
	ex.Labels = []string{"B-NP", "I-NP"}
	_, err = wrong.Tag(nil, &ex)
	require.True(t, errors.As(err, &ce), "%v", err)
	assert.True(t, ce.Labeled)
	assert.Contains(t, err.Error(), "model chunk.model reads 2 token columns (word, POS), but gets the input's 1: the input was read as labeled")
	assert.Contains(t, err.Error(), "give eval a file with its label column")

	err = CheckPipelineColumns([]Tagger{pos, pos, chunk}, []string{"a", "b", "c"}, dataset.Text)
	assert.NoError(t, err, "c gets the words and the labels of a and b")
	err = CheckPipelineColumns([]Tagger{chunk}, []string{"c"}, dataset.Text)
	require.True(t, errors.As(err, &ce), "%v", err)
	assert.EqualError(t, err, "model c reads 2 token columns (word, POS), but gets the words of --format text. Give CoNLL input (--format conll, one token per line) "+
		"with the columns the model was trained on, or put before it --model flags whose models predict the missing columns (each model's labels "+
		"become the next one's extra column), e.g. for English chunks of plain text: --format text --model embedded:models/en-pos.model --model embedded:models/en-chunk.model")
	assert.NoError(t, CheckPipelineColumns([]Tagger{chunk}, []string{"c"}, dataset.CoNLL), "conll input has the columns it has")

	_, err = NewPipeline(nil, nil)
	assert.Error(t, err)
}

// loadEmbedded loads a model built into package models.
func loadEmbedded(name string) (Tagger, error) {
	rc, err := models.Open(name)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return Read(name, rc)
}
