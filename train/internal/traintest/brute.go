package traintest

import (
	"gonum.org/v1/gonum/floats"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/internal/chaintest"
	"github.com/sparsetag/sparsetag/sparse"
)

// NLL computes the average negative log-likelihood of c under w by
// enumerating every label sequence, straight from the feature definitions
// (independent of internal/lattice and of package inference).
func NLL(m *chain.Model, w []float64, c *sparse.Corpus) float64 {
	total := 0.0
	for i := 0; i < c.Len(); i++ {
		start, T := c.Span(i)
		gold := make([]int, T)
		for t := range gold {
			gold[t] = int(c.Labels[start+t])
		}
		total += floats.LogSumExp(Scores(m, w, c, i)) - Score(m, w, c, i, gold)
	}
	return total / float64(c.Len())
}

// Scores returns the score of every label sequence of sequence i, in
// the order of chaintest.NextPath.
func Scores(m *chain.Model, w []float64, c *sparse.Corpus, i int) []float64 {
	_, T := c.Span(i)
	var all []float64
	y := make([]int, T)
	for {
		all = append(all, Score(m, w, c, i, y))
		if !chaintest.NextPath(y, m.NumLabels()) {
			return all
		}
	}
}

// Score returns the score w . F(x_i, y) of label sequence y.
func Score(m *chain.Model, w []float64, c *sparse.Corpus, i int, y []int) float64 {
	L := m.NumLabels()
	LL := L * L
	start, T := c.Span(i)
	s := 0.0
	for t := 0; t < T; t++ {
		cols, vals := c.Unary.Row(start + t)
		for k, a := range cols {
			v := 1.0
			if vals != nil {
				v = vals[k]
			}
			s += v * w[int(a)*L+y[t]]
		}
		if t == 0 {
			continue
		}
		if m.Layout.Transitions {
			s += w[m.Layout.TransOffset()+y[t-1]*L+y[t]]
		}
		if m.Layout.NumPair > 0 {
			pc, pv := c.Pair.Row(start + t)
			for k, a := range pc {
				v := 1.0
				if pv != nil {
					v = pv[k]
				}
				s += v * w[m.Layout.PairOffset()+int(a)*LL+y[t-1]*L+y[t]]
			}
		}
	}
	return s
}
