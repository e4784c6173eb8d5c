package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sparsetag/sparsetag/corpora"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	enPOS   = "embedded:models/en-pos.model"
	enChunk = "embedded:models/en-chunk.model"
)

// runStdin runs the command line in-process with stdin and returns its
// streams and exit status.
func runStdin(t *testing.T, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), args, strings.NewReader(stdin), &out, &errb)
	return out.String(), errb.String(), code
}

// TestTagEnglishPipeline tags plain English with the embedded POS tagger
// and chunker, as the README does, and checks that the pipeline is the
// two models run one after the other: the POS tagger's conll output (word,
// POS) tagged by the chunker alone.
func TestTagEnglishPipeline(t *testing.T) {
	const text = "He reckons the current account deficit will narrow to only # 1.8 billion in September.\nThe pound fell.\n"
	out, errs, code := runStdin(t, text, "tag", "--format", "text", "--model", enPOS, "--model", enChunk)
	require.Equal(t, 0, code, errs)
	sentences := strings.Split(strings.TrimSuffix(out, "\n\n"), "\n\n")
	require.Len(t, sentences, 2, "one block per line:\n%s", out)
	first := strings.Split(sentences[0], "\n")
	require.Len(t, first, 16, "%s", sentences[0])
	for _, line := range first {
		require.Len(t, strings.Fields(line), 3, "word, POS, chunk: %q", line)
	}
	// The first words of the CoNLL-2000 training data, whose tags the
	// models learnt.
	assert.Equal(t, "He PRP B-NP", first[0])
	assert.Equal(t, "reckons VBZ B-VP", first[1])
	assert.Equal(t, "the DT B-NP", first[2])
	assert.Equal(t, "1.8 CD I-NP", first[11], "the tokenizer keeps 1.8 whole")
	assert.Equal(t, ". . O", first[15])

	pos, errs, code := runStdin(t, text, "tag", "--format", "text", "--model", enPOS)
	require.Equal(t, 0, code, errs)
	chunks, errs, code := runStdin(t, pos, "tag", "--format", "conll", "--model", enChunk)
	require.Equal(t, 0, code, errs)
	assert.Equal(t, chunks, out, "the pipeline is the chunker run on the POS tagger's output")

	// The last model's options apply: n-best lists and --bio over chunks.
	out, errs, code = runStdin(t, "The pound fell.\n", "tag", "--format", "text", "--model", enPOS, "--model", enChunk, "--bio", "--nbest", "2", "--output", "json")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, `"tokens":["The","pound","fell","."],"labels":["B-NP","I-NP","B-VP","O"]`)
	assert.Contains(t, out, `"nbest":[{"labels":["B-NP","I-NP","B-VP","O"]`)
}

// TestPipelineErrors: a model that needs columns its input does not have is
// refused with the fix in the message, before any input is read when the
// format fixes the columns (text), else at the line that lacks them.
func TestPipelineErrors(t *testing.T) {
	_, errs, code := runStdin(t, "He reckons.\n", "tag", "--format", "text", "--model", enChunk)
	assert.Equal(t, 2, code, errs)
	assert.Contains(t, errs, "model embedded:models/en-chunk.model reads 2 token columns (word, POS), but gets the words of --format text.")
	assert.Contains(t, errs, "e.g. for English chunks of plain text: --format text --model embedded:models/en-pos.model --model embedded:models/en-chunk.model")

	// The chunker before the POS tagger: the chunker gets the words alone.
	_, errs, code = runStdin(t, "He reckons.\n", "tag", "--format", "text", "--model", enChunk, "--model", enPOS)
	assert.Equal(t, 2, code, errs)
	assert.Contains(t, errs, "model embedded:models/en-chunk.model reads 2 token columns")

	_, errs, code = runStdin(t, "He\nreckons\n\n", "tag", "--format", "conll", "--model", enChunk)
	assert.Equal(t, 1, code, errs)
	assert.Contains(t, errs, "stdin:1: sequence 1: model embedded:models/en-chunk.model reads 2 token columns (word, POS), but gets the input's 1. Give CoNLL input")

	// Plain text read as CoNLL: the "expected 19 columns, got 13".
	_, errs, code = runStdin(t, "He reckons the deficit will narrow .\nThe pound fell .\n", "tag", "--format", "conll", "--model", enPOS)
	assert.Equal(t, 1, code, errs)
	assert.Contains(t, errs, "stdin:2:17: expected 7 columns, got 4 (--format conll reads one token per line")
	assert.Contains(t, errs, "for plain text, one sentence per line, give --format text)")

	_, errs, code = runStdin(t, "", "tag", "--format", "text", "--model", "embedded:models/nope.model")
	assert.Equal(t, 1, code, errs)
	assert.Contains(t, errs, `no embedded model "nope.model" (have en-chunk.model, en-chunk.template, en-pos.model, en-pos.template)`)
}

// conllTest writes the first n sentences of the CoNLL-2000 test split
// (word, POS, chunk) to a file and returns its path.
func conllTest(t *testing.T, n int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "test.txt")
	writeCoNLLHead(t, path, "test", n)
	return path
}

func TestLabelColumn(t *testing.T) {
	test := conllTest(t, 30)
	// The POS tags are column 2 (of word, POS, chunk), or -2.
	evalPOS := func(col string) string {
		out, errs, code := runTagger(t, "eval", "--format", "conll", "--model", enPOS, "--label-column", col, test)
		require.Equal(t, 0, code, errs)
		return out
	}
	out := evalPOS("2")
	assert.Regexp(t, `(?m)^accuracy: 0\.9[5-9]\d\d$`, out)
	assert.Contains(t, out, "NNP: precision:", "the POS tags are scored")
	assert.Equal(t, out, evalPOS("-2"))

	// Without --label-column the chunk tags (the last column) are scored.
	out, errs, code := runTagger(t, "eval", "--format", "conll", "--model", enChunk, test)
	require.Equal(t, 0, code, errs)
	assert.Regexp(t, `(?m)^f1: 0\.9\d\d\d$`, out)

	// The pipeline on words and chunk tags scores chunks over predicted
	// POS tags.
	seqs, err := corpora.EmbeddedCoNLL2000("test")
	require.NoError(t, err)
	var b bytes.Buffer
	for _, s := range seqs[:30] {
		for i := range s.Tokens {
			s.Tokens[i] = s.Tokens[i][:1]
		}
		require.NoError(t, corpora.WriteCoNLL(&b, s))
	}
	words := filepath.Join(t.TempDir(), "words.txt")
	require.NoError(t, os.WriteFile(words, b.Bytes(), 0o644))
	out, errs, code = runTagger(t, "eval", "--format", "conll", "--model", enPOS, "--model", enChunk, words)
	require.Equal(t, 0, code, errs)
	assert.Regexp(t, `(?m)^f1: 0\.9\d\d\d$`, out)

	// tag leaves an explicit label column out of the token columns, and
	// --forced fixes its labels.
	in := "He PRP\nreckons VBZ\nnarrow VB\n\n"
	out, errs, code = runStdin(t, in, "tag", "--format", "conll", "--model", enPOS, "--label-column", "2")
	require.Equal(t, 0, code, errs)
	assert.Equal(t, "He PRP\nreckons VBZ\nnarrow JJ\n\n", out)
	out, errs, code = runStdin(t, in, "tag", "--format", "conll", "--model", enPOS, "--label-column", "2", "--forced")
	require.Equal(t, 0, code, errs)
	assert.Equal(t, "He PRP\nreckons VBZ\nnarrow VB\n\n", out)

	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"--label-column", "0"}, 2, "--label-column counts from 1"},
		{[]string{"--label-column", "2", "--format", "text"}, 2, "--label-column names a column of --format conll input, not of text input"},
		{[]string{"--label-column", "4", "--format", "conll"}, 1, "stdin:1:12: no label column 4: the line has 3 columns"},
		{[]string{"--label-column", "-4", "--format", "conll"}, 1, "no label column -4: the line has 3 columns"},
	} {
		for _, cmd := range []string{"tag", "eval"} {
			if cmd == "eval" && tc.args[len(tc.args)-1] == "text" {
				continue // eval reads no text
			}
			args := append([]string{cmd, "--model", enPOS}, tc.args...)
			_, errs, code := runStdin(t, "He PRP B-NP\n", args...)
			assert.Equal(t, tc.code, code, "%v: %s", args, errs)
			assert.Contains(t, errs, tc.msg, "%v", args)
		}
	}
}

// TestTrainLabelColumn: train --label-column 2 learns the POS tags of
// CoNLL-2000 (word, POS, chunk): the model's labels are POS tags, and eval
// with the same column scores it.
func TestTrainLabelColumn(t *testing.T) {
	test := conllTest(t, 30)
	model := filepath.Join(t.TempDir(), "pos.model")
	mustRun(t, "train", "--quiet", "--format", "conll", "--label-column", "2", "--max-iter", "30", "--model", model, test)
	out := mustRun(t, "eval", "--format", "conll", "--label-column", "2", "--model", model, test)
	assert.Contains(t, out, "NNP: precision:", "the model's labels are the POS tags")
	_, errs, code := runTagger(t, "train", "--format", "ocr", "--label-column", "2", "--model", model, "embedded:ocr/letter.data.gz")
	assert.Equal(t, 2, code, errs)
	assert.Contains(t, errs, "--label-column names a column of --format conll input")
}
