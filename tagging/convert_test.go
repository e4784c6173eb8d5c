package tagging

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/dataset"
	"github.com/sparsetag/sparsetag/internal/numtest"
)

// TestConvertCRFsuite converts the CRFsuite fixture model and checks that
// the converted model, written and read back, tags the fixture's 200 test
// sentences exactly as the CRFsuite model does (every label crfsuite tag
// printed), with the same marginals and
// sequence probabilities to 1e-9; CRF++ and Wapiti models are refused.
func TestConvertCRFsuite(t *testing.T) {
	pw, err := LoadWeights("../peer/testdata/conll.crfsuite.gz")
	require.NoError(t, err)
	cm, err := Convert(pw)
	require.NoError(t, err)
	pm, err := Load("../peer/testdata/conll.crfsuite.gz")
	require.NoError(t, err)
	var file bytes.Buffer
	_, err = cm.WriteTo(&file)
	require.NoError(t, err)
	ours, err := Read("converted", bytes.NewReader(file.Bytes()))
	require.NoError(t, err)
	require.Equal(t, FormatOurs, ours.Format())
	require.True(t, ours.Supports(Constrained|Forced))
	require.True(t, pm.Supports(Constrained|Forced)) // on its score lattice, as ours

	input, err := readFixture("../peer/testdata/test.crfsuite.gz")
	require.NoError(t, err)
	exs, err := dataset.Read("test", bytes.NewReader(input), dataset.Options{Format: dataset.CRFsuite, Labeled: true})
	require.NoError(t, err)
	require.Len(t, exs, 200)
	tags, err := readFixture("../peer/testdata/crfsuite.tags.gz") // crfsuite tag's own output
	require.NoError(t, err)
	var printed []string
	for _, l := range strings.Split(string(tags), "\n") {
		if l != "" {
			printed = append(printed, l)
		}
	}
	opt := chain.DecodeOptions{N: 1, Posterior: true}
	var labels []string
	for i := range exs {
		var want, got chain.Decoding
		require.NoError(t, pm.Decode(&want, &exs[i], opt))
		require.NoError(t, ours.Decode(&got, &exs[i], opt))
		require.Equal(t, want.Paths[0], got.Paths[0], "sentence %d", i+1)
		numtest.RequireClose(t, want.Probs[0], got.Probs[0], 1e-9, 0)
		for k := range want.Marginal {
			require.False(t, math.Abs(want.Marginal[k]-got.Marginal[k]) > 1e-9, "sentence %d marginal %d", i+1, k)
		}
		for _, y := range got.Paths[0] {
			labels = append(labels, ours.Labels()[y])
		}
	}
	require.Equal(t, printed, labels)

	for _, path := range []string{"../peer/testdata/conll.crfpp.gz", "../peer/testdata/conll.wapiti.gz"} {
		m, err := LoadWeights(path)
		require.NoError(t, err)
		_, err = Convert(m)
		require.ErrorIs(t, err, ErrNotConvertible, path)
	}
}

// TestConvertFile: a converted CRFsuite model is written, reads back as a
// model of this toolkit and says what it was; a CRF++ model is refused
// with the file's name, and nothing is written.
func TestConvertFile(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "conll.model")
	cv, err := ConvertFile("../peer/testdata/conll.crfsuite.gz", out)
	require.NoError(t, err)
	require.Equal(t, "CRFsuite", cv.From)
	st, err := os.Stat(out)
	require.NoError(t, err)
	require.Equal(t, st.Size(), cv.Size)
	back, err := chain.LoadFile(out)
	require.NoError(t, err)
	require.Equal(t, cv.Model.Labels, back.Labels)
	require.Equal(t, cv.Model.NonZero(), back.NonZero())

	again, err := ConvertFile(out, filepath.Join(dir, "again.model"))
	require.NoError(t, err)
	require.Equal(t, "this toolkit's", again.From)

	_, err = ConvertFile("../peer/testdata/conll.crfpp.gz", filepath.Join(dir, "crfpp.model"))
	require.ErrorIs(t, err, ErrNotConvertible)
	require.ErrorContains(t, err, "../peer/testdata/conll.crfpp.gz: ")
	_, err = os.Stat(filepath.Join(dir, "crfpp.model"))
	require.True(t, os.IsNotExist(err))
}
