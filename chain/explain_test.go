package chain

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/sparsetag/sparsetag/features"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sparsetag/sparsetag/internal/numtest"
	"github.com/sparsetag/sparsetag/sparse"
)

// TestExplainSumsToScore: on random models with real-valued unary and pair
// attributes, every token's contributions add up to its state score, the
// state scores match seqScore's computation label by label, and state,
// transition and pair parts add up to the Viterbi score of Decode.
func TestExplainSumsToScore(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for _, tc := range []struct {
		name          string
		numPair       int
		real, noTrans bool
	}{{"binary", 0, false, false}, {"real+pairs", 2, true, false}, {"no-transitions", 0, true, true}} {
		t.Run(tc.name, func(t *testing.T) {
			const L, numAttr = 3, 5
			c := randomCorpus(rng, 6, 5, numAttr, tc.numPair, L, tc.real)
			m := randomModel(rng, L, numAttr, tc.numPair, !tc.noTrans)
			tg := NewTagger(m)
			for i := range c.Len() {
				var d Decoding
				require.NoError(t, tg.Decode(&d, Encoded{Corpus: c, Seq: i}, DecodeOptions{}))
				path, score := d.Best(), d.Scores[0]
				ex, err := m.Explain(c, i, path)
				require.NoError(t, err)
				require.Len(t, ex, len(path))
				start, _ := c.Span(i)
				total := 0.0
				for tt, e := range ex {
					assert.Equal(t, path[tt], e.Label)
					require.Len(t, e.State, L)
					for y := range L {
						one := []int{y}
						numtest.Close(t, seqScore(m, c, start+tt, one), e.State[y], 1e-12, 0, "state of label %d", y)
					}
					sum := 0.0
					for k, a := range e.Attrs {
						sum += a.Value
						assert.NotZero(t, a.Value)
						assert.Equal(t, "#"+strconv.Itoa(int(a.Attr)), a.Name, "no encoder: names are ids")
						if k > 0 {
							assert.GreaterOrEqual(t, math.Abs(e.Attrs[k-1].Value), math.Abs(a.Value), "sorted by |value|")
						}
					}
					numtest.Close(t, e.State[e.Label], sum, 1e-12, 0)
					total += e.State[e.Label] + e.Trans
					for _, p := range e.Pairs {
						total += p.Value
					}
					if tt == 0 {
						assert.Equal(t, -1, e.Prev)
						assert.Zero(t, e.Trans)
						assert.Empty(t, e.Pairs)
					} else {
						assert.Equal(t, path[tt-1], e.Prev)
					}
					if r := e.RunnerUp; assert.NotEqual(t, e.Label, r) && assert.GreaterOrEqual(t, r, 0) {
						for y := range L {
							if y != e.Label {
								assert.GreaterOrEqual(t, e.State[r], e.State[y])
							}
						}
					}
				}
				numtest.Close(t, score, total, 1e-9, 0, "sequence %d", i)
			}
		})
	}
}

// TestExplainNames: with an encoder, contributions carry attribute names.
func TestExplainNames(t *testing.T) {
	m := toyModel(t)
	c := &sparse.Corpus{}
	cols := [][]string{{"The", "DT"}, {"dog", "NN"}}
	require.NoError(t, m.Encoder.Encode(c, features.Columns(cols), nil, false))
	path, err := NewTagger(m).Tag(nil, Encoded{Corpus: c, Seq: 0})
	require.NoError(t, err)
	ex, err := m.Explain(c, 0, path)
	require.NoError(t, err)
	require.Len(t, ex, 2)
	var names []string
	for _, a := range ex[0].Attrs {
		names = append(names, a.Name)
	}
	assert.Contains(t, names, "U01:DT")
	for _, p := range ex[1].Pairs {
		assert.True(t, strings.HasPrefix(p.Name, "B01:"), p.Name)
	}
}

func TestExplainErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	c := randomCorpus(rng, 2, 3, 4, 0, 2, false)
	m := randomModel(rng, 2, 4, 0, true)
	_, T := c.Span(0)
	_, err := m.Explain(c, 2, nil)
	assert.ErrorContains(t, err, "sequence 2 out of range")
	_, err = m.Explain(c, 0, make([]int, T+1))
	assert.ErrorContains(t, err, "path of")
	bad := make([]int, T)
	bad[0] = 5
	_, err = m.Explain(c, 0, bad)
	assert.ErrorContains(t, err, "label 5 out of range")
}

func TestRunnerUp(t *testing.T) {
	assert.Equal(t, 1, runnerUp([]float64{3, 2, 2}, 0), "lowest index among ties")
	assert.Equal(t, 0, runnerUp([]float64{3, 2, 5}, 2))
	assert.Equal(t, -1, runnerUp([]float64{1}, 0))
}
