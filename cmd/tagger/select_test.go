package main

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sparsetag/sparsetag/corpora"
	"github.com/sparsetag/sparsetag/internal/numtest"
)

// TestSelectOnDev: tagger train --select solves the path, marks the row
// with the best dev score, and saves that model: evaluating it on the dev
// file gives the chosen row's score.
func TestSelectOnDev(t *testing.T) {
	dir := t.TempDir()
	model, report := filepath.Join(dir, "sel.model"), filepath.Join(dir, "sel.json")
	out := mustRun(t, "train", "--format", "ocr", "--folds", "1", "--select", "embedded:ocr/letter.data.gz", "--valid-folds", "2",
		"--c1", "1", "--c2", "1", "--betas", "8", "--select-floor", "0.002", "--patience", "2", "--quiet",
		"--model", model, "--report", report, "embedded:ocr/letter.data.gz")
	rep := readJSONMap(t, report)
	requireKeys(t, "report", rep, "path", "chosen", "beta_max", "alpha", "metric", "seconds_total")
	path := rep["path"].([]any)
	require.NotEmpty(t, path)
	chosen := int(num(t, rep, "chosen"))
	best := -1.0
	for i, r := range path {
		row := r.(map[string]any)
		requireKeys(t, "row", row, "beta_over_beta_max", "c1", "c2", "passes", "iterations", "nonzero", "screened", "gap", "dev_score", "seconds", "chosen")
		s := num(t, row, "dev_score")
		best = max(best, s)
		assert.Equal(t, i == chosen, row["chosen"].(bool), "row %d", i)
	}
	score := num(t, path[chosen].(map[string]any), "dev_score")
	assert.Equal(t, best, score, "the chosen row has the best dev score")
	assert.Equal(t, 1, strings.Count(out, "\n*"), "one marked row:\n%s", out)
	assert.Contains(t, out, fmt.Sprintf("token accuracy %.4f", score))
	ev := mustRun(t, "eval", "--format", "ocr", "--folds", "2", "--model", model, "embedded:ocr/letter.data.gz")
	assert.Contains(t, ev, fmt.Sprintf("\naccuracy: %.4f\n", score), "the saved model is the chosen one")
}

// TestSelectByFolds: cross-validation averages the fold scores of each
// beta, picks the best mean, and refits on all the training data.
func TestSelectByFolds(t *testing.T) {
	dir := t.TempDir()
	report := filepath.Join(dir, "cv.json")
	out := mustRun(t, "train", "--format", "ocr", "--folds", "1", "--select-folds", "3",
		"--c1", "1", "--c2", "1", "--betas", "6", "--select-floor", "0.005", "--patience", "2", "--quiet",
		"--model", filepath.Join(dir, "cv.model"), "--report", report, "embedded:ocr/letter.data.gz")
	assert.Contains(t, out, "refit on all ")
	rep := readJSONMap(t, report)
	requireKeys(t, "report", rep, "refit", "folds")
	chosen := int(num(t, rep, "chosen"))
	best := -1.0
	for _, r := range rep["path"].([]any) {
		row := r.(map[string]any)
		fs := row["fold_scores"].([]any)
		require.Len(t, fs, 3)
		mean := 0.0
		for _, v := range fs {
			mean += v.(float64) / 3
		}
		numtest.Close(t, mean, num(t, row, "dev_score"), 1e-12, 0)
		best = max(best, mean)
	}
	numtest.Close(t, best, num(t, rep["path"].([]any)[chosen].(map[string]any), "dev_score"), 1e-12, 0)
	refit := rep["refit"].(map[string]any)
	numtest.Close(t, num(t, rep["path"].([]any)[chosen].(map[string]any), "beta_over_beta_max"), num(t, refit, "beta_over_beta_max"), 1e-9, 0)

	for _, bad := range [][]string{
		{"--select", "x", "--select-folds", "3"},
		{"--select-folds", "1"},
		{"--select-folds", "3", "--c1", "0", "--c2", "1"},
	} {
		args := append([]string{"train", "--format", "ocr", "--folds", "1"}, bad...)
		_, errs, code := runTagger(t, append(args, "embedded:ocr/letter.data.gz")...)
		assert.Equal(t, 2, code, "%v: %s", bad, errs)
	}
}

// writeDominantCoNLL writes the first n sentences of a CoNLL-2000 split to
// a file in dir with every chunk tag but those of type keep mapped to O:
// O dominates, as in named-entity data.
func writeDominantCoNLL(t *testing.T, dir, split string, n int, keep string) string {
	t.Helper()
	seqs, err := corpora.EmbeddedCoNLL2000(split)
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(seqs), n)
	var b bytes.Buffer
	for _, s := range seqs[:n] {
		for j, l := range s.Labels {
			if !strings.HasSuffix(l, "-"+keep) {
				s.Labels[j] = "O"
			}
		}
		require.NoError(t, corpora.WriteCoNLL(&b, s))
	}
	path := filepath.Join(dir, split+"-"+keep+".txt")
	require.NoError(t, os.WriteFile(path, b.Bytes(), 0o644))
	return path
}

// TestSelectDominantLabel: with only PP chunks (everything else O) the
// models at the top of the path tag everything O, so the dev F1 stays at
// its value at beta_max for more betas than --patience; --select must go
// on until it rises and save a model with a clearly positive F1, not the
// empty model at beta_max.
func TestSelectDominantLabel(t *testing.T) {
	dir := t.TempDir()
	trainFile, dev := writeDominantCoNLL(t, dir, "train", 300, "PP"), writeDominantCoNLL(t, dir, "test", 200, "PP")
	model, report := filepath.Join(dir, "pp.model"), filepath.Join(dir, "pp.json")
	const patience = 3
	mustRun(t, "train", "--format", "conll", "--select", dev, "--c1", "1", "--c2", "1", "--betas", "10", "--select-floor", "1e-3",
		"--patience", fmt.Sprint(patience), "--quiet", "--model", model, "--report", report, trainFile)
	rep := readJSONMap(t, report)
	assert.Equal(t, "chunk f1", rep["metric"])
	assert.Equal(t, 300.0, num(t, rep, "train_sequences"))
	path := rep["path"].([]any)
	require.Greater(t, len(path), patience)
	first := num(t, path[0].(map[string]any), "dev_score")
	for k := 1; k <= patience; k++ {
		require.LessOrEqual(t, num(t, path[k].(map[string]any), "dev_score"), first,
			"premise: the first %d betas score no better than beta_max", patience+1)
	}
	chosen := path[int(num(t, rep, "chosen"))].(map[string]any)
	f1 := num(t, chosen, "dev_score")
	assert.Greater(t, f1, 0.5, "the selected model has a clearly positive F1")
	assert.Positive(t, num(t, chosen, "nonzero"))
	ev := mustRun(t, "eval", "--format", "conll", "--model", model, dev)
	assert.Contains(t, ev, fmt.Sprintf("\nf1: %.4f\n", f1), "the saved model is the chosen one")
}

// TestSelectExtends: with a floor where the dev score is still rising
// (beta_max/3 on the OCR letters), --select goes on below it, on the same
// grid, until the score has peaked (--patience) or the hard floor; the
// table and the report say so. --select-hard-floor 0 ends at the floor.
func TestSelectExtends(t *testing.T) {
	dir := t.TempDir()
	report := filepath.Join(dir, "ext.json")
	args := []string{"train", "--format", "ocr", "--folds", "1", "--select", "embedded:ocr/letter.data.gz", "--valid-folds", "2",
		"--c1", "1", "--c2", "1", "--betas", "3", "--select-floor", "0.3", "--patience", "1", "--quiet",
		"--model", filepath.Join(dir, "ext.model"), "--report", report}
	out := mustRun(t, append(args, "--select-hard-floor", "1e-4", "embedded:ocr/letter.data.gz")...)
	rep := readJSONMap(t, report)
	path := rep["path"].([]any)
	ext := int(num(t, rep, "extended"))
	require.Positive(t, ext, "extended:\n%s", out)
	require.Len(t, path, 3+ext)
	chosen := int(num(t, rep, "chosen"))
	assert.GreaterOrEqual(t, chosen, 3, "the best model lies below the floor")
	assert.Equal(t, len(path)-2, chosen, "stopped one beta (--patience 1) after the peak")
	last := path[len(path)-1].(map[string]any)
	assert.GreaterOrEqual(t, num(t, last, "beta_over_beta_max"), 1e-4)
	numtest.Close(t, math.Pow(0.3, float64(len(path)-1)/2), num(t, last, "beta_over_beta_max"), 1e-9, 0)
	assert.Contains(t, out, "-- below --select-floor 0.3: the score was still rising there --")
	assert.Contains(t, out, "so the path went on below it")
	assert.Contains(t, out, "where it had peaked")

	// A hard floor reached while the score still rises.
	out = mustRun(t, append(args, "--select-hard-floor", "0.05", "embedded:ocr/letter.data.gz")...)
	rep = readJSONMap(t, report)
	assert.Len(t, rep["path"].([]any), 5, "0.3^(k/2) >= 0.05 for k <= 4")
	assert.Contains(t, out, "the hard floor (--select-hard-floor 0.05), still rising")

	// No extension.
	out = mustRun(t, append(args, "--select-hard-floor", "0", "embedded:ocr/letter.data.gz")...)
	rep = readJSONMap(t, report)
	assert.Len(t, rep["path"].([]any), 3)
	assert.NotContains(t, rep, "extended")
	assert.Contains(t, out, "a smaller --select-floor (now 0.3) may select a better model")
}
