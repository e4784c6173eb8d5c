package peer

import (
	"fmt"
	"math"
	"testing"

	"github.com/sparsetag/sparsetag/corpora"
)

// TestExplain: for the first sequences of the test set and each fixture
// model, the explanation of the tagger's path adds up to the path score of
// the tool's own decoder, every contribution is a weight listed by Weights
// (checked against the model files in weights_test.go) times the
// attribute's value, and contributions add up to the state score.
func TestExplain(t *testing.T) {
	for _, c := range []struct {
		name string
		tol  float64 // CRF++ sums in float32
	}{
		{"conll.crfsuite.gz", 1e-9},
		{"conll.crfpp.gz", 1e-3},
		{"conll.crfpp.txt.gz", 1e-3},
		{"conll.wapiti.gz", 1e-9},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := openModel(t, c.name)
			labels := m.Labels()
			weights := map[string]float64{}
			if err := m.Weights(func(w Weight) error {
				k := fmt.Sprintf("%s %s %d %d", w.Kind, w.Feature, w.Prev, w.Label)
				weights[k] += w.Value
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			seqs := columnInput(t)
			if m.Format() == FormatCRFsuite {
				seqs = attrInput(t)
			}
			contribs := 0
			for i, seq := range seqs[:40] {
				paths, err := m.NBest(seq, 1)
				if err != nil {
					t.Fatal(err)
				}
				path := paths[0].Labels
				exp, err := m.Explain(seq, path)
				if err != nil {
					t.Fatal(err)
				}
				if len(exp) != len(path) {
					t.Fatalf("sequence %d: %d explanations for %d positions", i, len(exp), len(path))
				}
				score := 0.0
				for tt, e := range exp {
					if e.Label != path[tt] || len(e.State) != len(labels) {
						t.Fatalf("sequence %d position %d: label %d, %d state scores", i, tt, e.Label, len(e.State))
					}
					sum := 0.0
					for k, a := range e.Attrs {
						sum += a.Value
						value := 1.0
						if seq.Attrs != nil {
							for _, at := range seq.Attrs[tt] {
								if at.Name == a.Name {
									value = at.Value
								}
							}
						}
						if w := weights[fmt.Sprintf("state %s -1 %d", a.Name, e.Label)]; w*value != a.Value {
							t.Fatalf("sequence %d position %d: %s contributes %v, weight %v × %v", i, tt, a.Name, a.Value, w, value)
						}
						if k > 0 && math.Abs(a.Value) > math.Abs(e.Attrs[k-1].Value) {
							t.Fatalf("sequence %d position %d: contributions not by decreasing |value|", i, tt)
						}
						contribs++
					}
					if math.Abs(sum-e.State[e.Label]) > c.tol {
						t.Fatalf("sequence %d position %d: contributions sum to %v, state score %v", i, tt, sum, e.State[e.Label])
					}
					if r := e.RunnerUp; r == e.Label || (r >= 0 && e.State[r] < maxOther(e.State, e.Label)) {
						t.Fatalf("sequence %d position %d: runner-up %d", i, tt, r)
					}
					score += e.State[e.Label]
					if tt == 0 {
						if e.Prev != -1 || e.Trans != 0 || e.Pairs != nil {
							t.Fatalf("sequence %d: transition at position 0", i)
						}
						continue
					}
					if e.Prev != path[tt-1] {
						t.Fatalf("sequence %d position %d: prev %d", i, tt, e.Prev)
					}
					if w := weights[fmt.Sprintf("trans %s %d %d", transName(m), e.Prev, e.Label)]; w != e.Trans {
						t.Fatalf("sequence %d position %d: trans %v, Weights says %v", i, tt, e.Trans, w)
					}
					score += e.Trans
					for _, p := range e.Pairs {
						score += p.Value
					}
				}
				if math.Abs(score-paths[0].Score) > c.tol*float64(len(path)) {
					t.Fatalf("sequence %d: explanation adds up to %v, path score %v", i, score, paths[0].Score)
				}
			}
			if contribs < 1000 {
				t.Fatalf("only %d contributions", contribs)
			}
		})
	}
	// A path that does not fit is an input error.
	m := openModel(t, "conll.wapiti.gz")
	seq := corpora.Sequence{Tokens: [][]string{{"a", "DT"}, {"b", "NN"}}}
	if _, err := m.Explain(seq, []int{0}); err == nil {
		t.Error("explained a path of the wrong length")
	}
	if _, err := m.Explain(seq, []int{0, 99}); err == nil {
		t.Error("explained a label out of range")
	}
}

func maxOther(s []float64, y int) float64 {
	best := math.Inf(-1)
	for l, v := range s {
		if l != y {
			best = max(best, v)
		}
	}
	return best
}

// transName is the feature name of a model's transition weights: none in
// CRFsuite, the "B" template of CRF++ and the "b" pattern of Wapiti in the
// fixtures.
func transName(m Model) string {
	switch m.Format() {
	case FormatCRFsuite:
		return ""
	case FormatWapiti:
		return "b"
	}
	return "B"
}
