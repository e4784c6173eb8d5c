package dataset

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/corpora"
	"github.com/sparsetag/sparsetag/features"
	"github.com/sparsetag/sparsetag/train"
)

const toyCoNLL = `He PRP B-NP
reckons VBZ B-VP
the DT B-NP
deficit NN I-NP
. . O

The DT B-NP
dog NN I-NP
barks VBZ B-VP
`

func readString(t *testing.T, format Format, labeled bool, src string) []Example {
	t.Helper()
	exs, err := Read("in.txt", strings.NewReader(src), Options{Format: format, Labeled: labeled})
	require.NoError(t, err)
	return exs
}

func TestReadFormats(t *testing.T) {
	for _, tc := range []struct {
		format  Format
		labeled bool
		src     string
		text    [][]string
		labels  [][]string
	}{
		{CoNLL, true, toyCoNLL, [][]string{{"He", "reckons", "the", "deficit", "."}, {"The", "dog", "barks"}},
			[][]string{{"B-NP", "B-VP", "B-NP", "I-NP", "O"}, {"B-NP", "I-NP", "B-VP"}}},
		{CoNLL, false, "He PRP\nsees VBZ\n", [][]string{{"He", "sees"}}, [][]string{nil}},
		{CRFsuite, true, "B-NP\tw=He\tpos=PRP\nB-VP\tw=sees:2\n\nO\t\n", [][]string{{"w=He", "w=sees"}, {"_"}},
			[][]string{{"B-NP", "B-VP"}, {"O"}}},
		{Text, false, "The dog barks.\nA cat.\n", [][]string{{"The", "dog", "barks", "."}, {"A", "cat", "."}}, [][]string{nil, nil}},
		{CoNLLU, true, "1\tThe\tthe\tDET\tDT\t_\t2\tdet\t_\t_\n2\tdog\tdog\tNOUN\tNN\t_\t0\troot\t_\t_\n",
			[][]string{{"The", "dog"}}, [][]string{{"DET", "NOUN"}}},
	} {
		t.Run(fmt.Sprintf("%s/labeled=%v", tc.format, tc.labeled), func(t *testing.T) {
			exs := readString(t, tc.format, tc.labeled, tc.src)
			require.Len(t, exs, len(tc.text))
			for i, ex := range exs {
				assert.Equal(t, tc.text[i], ex.Text, "sequence %d", i)
				assert.Equal(t, tc.labels[i], ex.Labels, "sequence %d", i)
				assert.Equal(t, len(tc.text[i]), ex.Len())
				assert.Equal(t, "in.txt", ex.File)
			}
		})
	}
}

func TestReadCRFsuiteValues(t *testing.T) {
	exs := readString(t, CRFsuite, true, "B-NP\tw=He\tpos=PRP\nB-VP\tw=sees:2\n")
	require.Len(t, exs, 1)
	assert.Equal(t, [][]string{{"w=He", "pos=PRP"}, {"w=sees"}}, exs[0].Names)
	assert.Equal(t, [][]float64{{1, 1}, {2}}, exs[0].Values)
}

func TestReadOCRFolds(t *testing.T) {
	exs, err := readEmbeddedExamples(t, "ocr/letter.data.gz", Options{Format: OCR, Labeled: true, Folds: []int{0}})
	require.NoError(t, err)
	require.NotEmpty(t, exs)
	for _, ex := range exs[:5] {
		require.NotEmpty(t, ex.Pixels)
		assert.Len(t, ex.Pixels[0], corpora.OCRPixels)
		assert.Equal(t, ex.Labels, ex.Text)
	}
}

// TestReadErrors: malformed input is a *corpora.ParseError naming file and
// line; other failures name the input too.
func TestReadErrors(t *testing.T) {
	_, err := Read("bad.txt", strings.NewReader("a B-NP\nb c I-NP\n"), Options{Format: CoNLL, Labeled: true})
	var pe *corpora.ParseError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, "bad.txt", pe.File)
	assert.Equal(t, 2, pe.Line)
	assert.True(t, strings.HasPrefix(err.Error(), "bad.txt:2:"), err.Error())

	_, err = Read("empty.txt", strings.NewReader("\n\n"), Options{Format: CoNLL, Labeled: true})
	assert.ErrorContains(t, err, "empty.txt:")
	assert.ErrorContains(t, err, "no sequences")

	_, err = Read("x", strings.NewReader("a"), Options{Format: "xml"})
	assert.ErrorContains(t, err, `unknown format "xml"`)

	_, err = Read("x", strings.NewReader("a"), Options{Format: Text, Labeled: true})
	assert.ErrorContains(t, err, "format text is unlabeled")

	_, err = ReadFile(filepath.Join(t.TempDir(), "missing.txt"), Options{Format: CoNLL})
	assert.ErrorIs(t, err, os.ErrNotExist)
}

// TestSequenceLengthLimit: a file without blank lines between sentences
// becomes one huge sequence; it is refused with file and line.
func TestSequenceLengthLimit(t *testing.T) {
	var b strings.Builder
	b.WriteString("\n\n")
	for i := 0; i <= MaxSequenceLen; i++ {
		b.WriteString("w N O\n")
	}
	_, err := Read("long.txt", strings.NewReader(b.String()), Options{Format: CoNLL, Labeled: true})
	assert.ErrorContains(t, err, "long.txt:3: sequence of 100001 positions")
}

func TestParseFolds(t *testing.T) {
	for in, want := range map[string][]int{"": nil, "0": {0}, "1-3": {1, 2, 3}, "0,2,4": {0, 2, 4}, "1-2,5": {1, 2, 5}} {
		got, err := ParseFolds(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	for _, in := range []string{"x", "3-1", "-1", "0-9223372036854775807", "1000", "1.5"} {
		_, err := ParseFolds(in)
		assert.Error(t, err, in)
	}
}

func TestLabels(t *testing.T) {
	var l Labels
	assert.Equal(t, []int32{0, 1, 0, 2}, l.AppendIDs(nil, []string{"B", "I", "B", "O"}))
	assert.Equal(t, []string{"B", "I", "O"}, l.Names())
	assert.Equal(t, 3, l.Len())
	id, ok := l.Lookup("O")
	assert.True(t, ok)
	assert.Equal(t, int32(2), id)
	_, ok = l.Lookup("X")
	assert.False(t, ok)
	assert.Equal(t, []string{"x", "y"}, NewLabels([]string{"x", "y", "x"}).Names())
}

func TestFormatKind(t *testing.T) {
	for f, want := range map[Format]features.Kind{CoNLL: features.KindTemplate, CoNLLU: features.KindTemplate,
		Text: features.KindTemplate, CRFsuite: features.KindAttributes, OCR: features.KindPixels} {
		k, ok := f.Kind()
		assert.True(t, ok)
		assert.Equal(t, want, k, string(f))
	}
	_, ok := Format("xml").Kind()
	assert.False(t, ok)
}

// TestEncodeTrainingAndFrozen: training grows the dictionaries and interns
// labels in order of first appearance; a frozen encoder skips unseen
// attributes and gives the same rows for seen input.
func TestEncodeTrainingAndFrozen(t *testing.T) {
	exs := readString(t, CoNLL, true, toyCoNLL)
	enc, err := NewEncoder(CoNLL, nil)
	require.NoError(t, err)
	c, labels, err := EncodeTraining(enc, exs, 1)
	require.NoError(t, err)
	assert.Equal(t, []string{"B-NP", "B-VP", "I-NP", "O"}, labels)
	assert.Equal(t, 2, c.Len())
	assert.Equal(t, 8, c.Positions())
	assert.Equal(t, []int32{0, 1, 0, 2, 3, 0, 2, 1}, c.Labels)
	n := enc.Unary().Len()

	frozen, err := EncodeFrozen(enc, exs)
	require.NoError(t, err)
	assert.Equal(t, c.Unary, frozen.Unary)
	assert.Nil(t, frozen.Labels)

	unseen := readString(t, CoNLL, false, "Zebras NNS\n")
	_, err = EncodeFrozen(enc, unseen)
	require.NoError(t, err)
	assert.Equal(t, n, enc.Unary().Len(), "a frozen encoder does not grow")

	_, _, err = EncodeTraining(enc, readString(t, CoNLL, false, "a b\n"), 1)
	assert.EqualError(t, err, "in.txt:1: sequence 1 has no labels: training reads labeled examples (dataset.Options{Labeled: true})")
}

// TestEncodeMinFreq: with minFreq 2 only attributes seen twice are kept.
func TestEncodeMinFreq(t *testing.T) {
	exs := readString(t, CoNLL, true, "a X\nb Y\n\na X\nc Y\n")
	enc := features.NewTemplateEncoder(features.MustCompile("U00:%x[0,0]\n"))
	c, _, err := EncodeTraining(enc, exs, 2)
	require.NoError(t, err)
	require.Equal(t, 1, enc.Unary().Len())
	assert.Equal(t, "U00:a", enc.Unary().Name(0))
	assert.Equal(t, 4, c.Positions())
}

func TestNewEncoder(t *testing.T) {
	enc, err := NewEncoder(CoNLL, features.MustCompile("U00:%x[0,1]\n"))
	require.NoError(t, err)
	assert.Equal(t, 2, enc.Template().Columns())

	_, err = NewEncoder(CRFsuite, features.MustCompile("U00:%x[0,1]\n"))
	assert.ErrorContains(t, err, "a template applies to column formats")
	_, err = NewEncoder(CoNLL, features.MustCompile("# nothing\n"))
	assert.ErrorContains(t, err, "no feature rule")
	_, err = NewEncoder(OCR, nil)
	assert.NoError(t, err)
	_, err = NewEncoder("embedded:conll2000/chunking.template", nil)
	assert.Error(t, err)
}

// readEmbedded returns the contents of an embedded corpus file.
func readEmbedded(name string) ([]byte, error) {
	rc, err := corpora.OpenEmbedded(name)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return io.ReadAll(rc)
}

// readEmbeddedExamples reads the examples of an embedded corpus file.
func readEmbeddedExamples(t *testing.T, name string, opts Options) ([]Example, error) {
	t.Helper()
	rc, err := corpora.OpenEmbedded(name)
	require.NoError(t, err)
	defer rc.Close()
	return Read(name, rc, opts)
}

func TestFixedLabels(t *testing.T) {
	exs := readString(t, CoNLL, true, "He B-NP\nsees _\nit ?\n")
	fixed, err := FixedLabels([]string{"B-NP", "B-VP"}, exs, "in.txt")
	require.NoError(t, err)
	assert.Equal(t, [][]int{{0, -1, -1}}, fixed)
	exs[0].Labels[1] = "B-XX"
	_, err = FixedLabels([]string{"B-NP", "B-VP"}, exs, "in.txt")
	assert.EqualError(t, err, `in.txt: sequence 1, token 2 (sees): label "B-XX" is not a label of the model (want one of B-NP B-VP, or _ or ? for a free token)`)
}

// trainToy trains a tagger on toyCoNLL.
func trainToy(t *testing.T) (*chain.Tagger, []Example) {
	t.Helper()
	exs := readString(t, CoNLL, true, toyCoNLL)
	enc, err := NewEncoder(CoNLL, nil)
	require.NoError(t, err)
	c, labels, err := EncodeTraining(enc, exs, 1)
	require.NoError(t, err)
	m, err := chain.NewModel(labels, enc.Unary().Len(), enc.Pair().Len(), enc.HasTransitions(), enc)
	require.NoError(t, err)
	_, err = train.Train(context.Background(), m, c, train.Options{Problem: train.Problem{BetaRatio: 0.01}})
	require.NoError(t, err)
	return chain.NewTagger(m), exs
}

// TestTagAllOrder: batch tagging on several goroutines gives, in input
// order, what tagging one sequence at a time gives.
func TestTagAllOrder(t *testing.T) {
	tg, exs := trainToy(t)
	var many []Example
	for i := range 50 {
		many = append(many, exs[i%len(exs)])
	}
	for _, workers := range []int{0, 1, 3, 100} {
		pred, err := TagAll(tg, many, workers)
		require.NoError(t, err)
		require.Len(t, pred, len(many))
		for i := range many {
			path, err := tg.Tag(nil, many[i].Input())
			require.NoError(t, err)
			assert.Equal(t, tg.AppendLabels(nil, path), pred[i], "workers %d, sequence %d", workers, i)
		}
	}
	ev, err := EvaluateAll(tg, exs, 2)
	require.NoError(t, err)
	assert.Equal(t, 8, ev.Tokens)
	assert.Equal(t, 1.0, ev.Accuracy())
}

func TestTagAllErrors(t *testing.T) {
	// A model without encoder cannot read examples.
	m, err := chain.NewModel([]string{"a"}, 1, 0, false, nil)
	require.NoError(t, err)
	_, err = TagAll(chain.NewTagger(m), []Example{{}}, 1)
	assert.ErrorIs(t, err, chain.ErrNoEncoder)
}

// TestTagKindMismatch: attribute input for a template model is a
// *features.KindError, not a panic or an empty tagging.
func TestTagKindMismatch(t *testing.T) {
	tg, _ := trainToy(t)
	exs := readString(t, CRFsuite, false, "a b:1\n")
	_, err := TagAll(tg, exs, 1)
	var ke *features.KindError
	require.ErrorAs(t, err, &ke)
	assert.Equal(t, features.KindAttributes, ke.Input)
	assert.ErrorContains(t, err, "sequence 1:")
}

// TestUnlabeledMistake: examples read without Options.Labeled are refused
// by training and evaluation with an error that names the option.
func TestUnlabeledMistake(t *testing.T) {
	tg, _ := trainToy(t)
	exs := readString(t, CoNLL, false, toyCoNLL)
	_, err := EvaluateAll(tg, exs, 1)
	assert.EqualError(t, err, "in.txt:1: sequence 1 has no labels: evaluation reads labeled examples (dataset.Options{Labeled: true})")
	_, _, err = NewTrainingModel(mustEncoder(t), exs, 1)
	assert.EqualError(t, err, "in.txt:1: sequence 1 has no labels: training reads labeled examples (dataset.Options{Labeled: true})")
}
