package trainselect

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/dataset"
	"github.com/sparsetag/sparsetag/features"
	"github.com/sparsetag/sparsetag/sparse"
	"github.com/sparsetag/sparsetag/train"
)

const selectCoNLL = `The DT B-NP
dog NN I-NP
barks VBZ B-VP

A DT B-NP
cat NN I-NP
sleeps VBZ B-VP
.  . O

The DT B-NP
old JJ I-NP
man NN I-NP
walks VBZ B-VP

Dogs NNS B-NP
bark VBP B-VP

A DT B-NP
bird NN I-NP
sings VBZ B-VP

The DT B-NP
cats NNS I-NP
run VBP B-VP
`

// selectData reads selectCoNLL and encodes it for training.
func selectData(t *testing.T) ([]dataset.Example, *chain.Model, *sparse.Corpus) {
	t.Helper()
	exs, err := dataset.Read("sel.txt", strings.NewReader(selectCoNLL), dataset.Options{Format: dataset.CoNLL, Labeled: true})
	require.NoError(t, err)
	enc, err := dataset.NewEncoder(dataset.CoNLL, nil)
	require.NoError(t, err)
	m, c, err := dataset.NewTrainingModel(enc, exs, 1)
	require.NoError(t, err)
	return exs, m, c
}

func TestMetricName(t *testing.T) {
	assert.Equal(t, "chunk f1", MetricName([]string{"B-NP", "I-NP", "O"}))
	assert.Equal(t, "token accuracy", MetricName([]string{"DT", "NN"}))
}

// TestSelectOnDev: the path is scored on the dev set and on the eval
// scorer, every beta is logged, the report marks the chosen row and names
// the metric; an eval scorer's error names its file.
func TestSelectOnDev(t *testing.T) {
	exs, m, c := selectData(t)
	score, err := F1Scorer(m, exs)
	require.NoError(t, err)
	var log bytes.Buffer
	cfg := SelectConfig{Betas: 4, Floor: 0.01, Patience: 2, Score: score, Eval: score, EvalName: "eval.txt", Log: &log}
	op := train.Options{Problem: train.Problem{SumForm: true, C1: 0.1, C2: 0.1}, Resources: train.Resources{Threads: 1}}
	rep := &SelectReport{Train: "sel.txt", Dev: "sel.txt", Betas: 4, Floor: 0.01, Sequences: c.Len()}
	require.NoError(t, SelectOnDev(context.Background(), m, c, op, cfg, rep))
	require.NotEmpty(t, rep.Path)
	assert.Equal(t, "chunk f1", rep.Metric)
	assert.True(t, rep.Path[rep.Chosen].Chosen)
	for k, row := range rep.Path {
		require.NotNil(t, row.EvalScore, "row %d", k)
		assert.Equal(t, row.Score, *row.EvalScore, "row %d: the same scorer twice", k)
	}
	assert.Contains(t, log.String(), "path beta 1/4: beta/beta_max 1, 0 non-zero")
	assert.Contains(t, log.String(), "path beta 1: eval ")

	cfg.Eval = func([]float64) (float64, error) { return 0, errors.New("boom") }
	cfg.Log = nil
	assert.EqualError(t, SelectOnDev(context.Background(), m, c, op, cfg, rep), "eval.txt: boom")
}

// TestSelectByFolds: cross-validation logs every fold's betas and the
// refit, and the report holds the fold scores and the refit.
func TestSelectByFolds(t *testing.T) {
	exs, m, c := selectData(t)
	var log bytes.Buffer
	cfg := SelectConfig{Betas: 3, Floor: 0.01, Patience: 2, Folds: 2, MinFreq: 1, Log: &log,
		NewEncoder: func() (*features.Encoder, error) { return dataset.NewEncoder(dataset.CoNLL, nil) }}
	op := train.Options{Problem: train.Problem{SumForm: true, C1: 0.1, C2: 0.1}, Resources: train.Resources{Threads: 1}}
	rep := &SelectReport{Train: "sel.txt", Folds: 2, Betas: 3, Floor: 0.01, Sequences: c.Len()}
	require.NoError(t, SelectByFolds(context.Background(), m, c, op, exs, cfg, rep))
	require.NotNil(t, rep.Refit)
	assert.Equal(t, "chunk f1", rep.Metric)
	require.NotEmpty(t, rep.Path)
	assert.Len(t, rep.Path[0].FoldScores, 2)
	for _, want := range []string{"fold 1/2 beta 1/3: ", "fold 2/2 beta 1/3: ", "refit beta 1/3: "} {
		assert.Contains(t, log.String(), want)
	}
}
