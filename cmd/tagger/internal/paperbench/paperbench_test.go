package paperbench

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/sparsetag/sparsetag/internal/numtest"
	"github.com/sparsetag/sparsetag/train"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestScreeningRatios(t *testing.T) {
	// d = 10 features, 2 non-zero at the end, so d* = 8.
	res := &train.Result{Dimension: 10, NonZero: 2, Iterations: []train.Iteration{
		{Iter: 0, Screened: 0}, {Iter: 1, Screened: 4}, {Iter: 2, Screened: 8},
	}}
	x, rej, resv := screeningRatios(res)
	require.Len(t, x, 3)
	require.Len(t, rej, 3)
	require.Len(t, resv, 3)
	assert.Equal(t, []float64{0, 1, 2}, x)
	numtest.Slices(t, []float64{0, 0.5, 1}, rej, 1e-15, 0)
	numtest.Slices(t, []float64{1, 0.6, 0.2}, resv, 1e-15, 0)
	// No zero in the solution: no rejection ratio.
	_, rej, _ = screeningRatios(&train.Result{Dimension: 3, NonZero: 3, Iterations: []train.Iteration{{}}})
	assert.Nil(t, rej, "rejection with d* = 0")
}

func TestMeanRejection(t *testing.T) {
	two := []train.Iteration{{Pass: true}, {Iter: 1, Pass: true}}
	res := []*train.Result{
		{Dimension: 10, NonZero: 0, Screened: 0, Iterations: two[:1]}, // beta_max: no iteration, skipped
		{Dimension: 10, NonZero: 2, Screened: 8, Iterations: two},     // 1
		{Dimension: 10, NonZero: 6, Screened: 2, Iterations: two},     // 0.5
		{Dimension: 10, NonZero: 10, Iterations: two},                 // d* = 0, skipped
	}
	got, ok := meanRejection(res)
	require.True(t, ok)
	numtest.Close(t, 0.75, got, 1e-15, 0)
	_, ok = meanRejection(res[:1])
	assert.False(t, ok, "no eligible beta, but a mean")
}

func TestCompareSolutions(t *testing.T) {
	// alpha beta = 0.5; gaps 1e-4 and 4e-4: bound = sqrt(4e-4) + sqrt(16e-4) = 0.02 + 0.04.
	r0 := &train.Result{Alpha: 1, Beta: 0.5, Gap: 1e-4, Epsilon: 1e-6}
	r1 := &train.Result{Alpha: 1, Beta: 0.5, Gap: 4e-4, Epsilon: 1e-6}
	base := &ruleOutcome{ws: [][]float64{{0, 0}, {1, 2}}, results: []*train.Result{r0, r0}}
	o := &ruleOutcome{ws: [][]float64{{0, 0}, {1.03, 1.96}}, results: []*train.Result{r1, r1}}
	maxDiff, tol, ratio := compareSolutions(base, o)
	// ||dw||_2 = 0.05, max |dw| = 0.04, tolerance sqrt(2e-6/0.5) = 2e-3.
	numtest.Close(t, 0.04, maxDiff, 1e-12, 0)
	numtest.Close(t, 2e-3, tol, 1e-15, 0)
	numtest.Close(t, 0.05/0.06, ratio, 1e-12, 0)
	// Different betas never compare as equal.
	o.results = []*train.Result{r1, {Alpha: 1, Beta: 0.4, Gap: 4e-4}}
	_, _, ratio = compareSolutions(base, o)
	assert.Greater(t, ratio, 1.0, "mismatched betas")
}

func TestNearestBetas(t *testing.T) {
	// Ratios of a 10-value path from 1 to 0.1: 0.1^(k/9).
	ratios := make([]float64, 10)
	for k := range ratios {
		ratios[k] = math.Pow(0.1, float64(k)/9)
	}
	// 0.2 = 0.1^(0.699) -> k = 6.29 -> 6; 0.5 -> k = 2.71 -> 3; 0.9 -> 0.41,
	// but beta_max (k = 0) is excluded -> 1.
	assert.Equal(t, []int{9, 6, 3, 1}, nearestBetas(ratios, []float64{0.1, 0.2, 0.5, 0.9}))
	assert.Equal(t, []int{0}, nearestBetas([]float64{1}, []float64{0.1}), "single beta")
}

func TestFigurePrefix(t *testing.T) {
	for in, want := range map[string]string{
		"syn1":                            "syn1",
		"embedded:conll2000/train.txt.gz": "train",
		"/a/b/my data.conll":              "my_data",
	} {
		assert.Equal(t, want, FigurePrefix(in), in)
	}
}

func TestWriteJSON(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.json")
	res := &train.Result{Alpha: 1, Beta: 0.25, BetaMax: 1, Dimension: 4, Screen: train.ScreenPinsker, Solver: train.SolverWorkingSet, SolverReason: "requested", ScreenedStatic: 2, StopReason: "gap", Converged: true}
	require.NoError(t, WriteJSON(p, NewTrainReport("syn1", res, 0.5)))
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	assert.JSONEq(t, `{"data":"syn1","alpha":1,"beta":0.25,"beta_max":1,"beta_ratio":0.25,"features":4,"screen":"pinsker","solver":"working-set","solver_reason":"requested","screened_static":2,
		"epsilon":0,"rel_epsilon":0,"gamma":0.5,"iterations":[],"nonzero_final":0,"screened_final":0,"gap_final":0,"seconds_total":0,
		"seconds_screening":0,"stop_reason":"gap","converged":true}`, string(b))
	// A report that cannot be written is an error, not a silent success.
	assert.Error(t, WriteJSON(filepath.Join(dir, "no", "such", "dir.json"), 1))
}

func TestLoadBuiltin(t *testing.T) {
	d, err := LoadBuiltin("syn1", 0.01, 1)
	require.NoError(t, err)
	assert.Equal(t, "syn1", d.Name)
	assert.Equal(t, 1, d.Corpus.MaxLen())
	m, err := d.NewModel()
	require.NoError(t, err)
	assert.Len(t, m.Labels, len(d.Labels))

	d, err = LoadBuiltin("ocr-letters", 0.01, 1)
	require.NoError(t, err)
	assert.Equal(t, 1, d.Corpus.MaxLen())
	assert.False(t, d.Transitions)
	d, err = LoadBuiltin("ocr", 0.01, 1)
	require.NoError(t, err)
	assert.True(t, d.Transitions)
	assert.Greater(t, d.Corpus.MaxLen(), 1)

	_, err = LoadBuiltin("syn9", 0.5, 1)
	assert.ErrorContains(t, err, `unknown data set "syn9"`)
	_, err = LoadBuiltin("syn1", 2, 1)
	assert.Error(t, err)
	_, err = LoadBenchData("nope", 1)
	assert.ErrorContains(t, err, "or conll")
}
