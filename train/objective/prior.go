package objective

import (
	"fmt"

	"gonum.org/v1/gonum/floats"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/sparse"
	"github.com/sparsetag/sparsetag/train/internal/densemul"
)

// prior is a fixed offset w0 of the weights (an old model as prior,
// docs/prior.md): the objective then computes L(w0 + v) and m = -∇_v L(w0
// + v) over the active weights v. Only its scores are kept, not w0: the
// unary offset of every position (positions × L, as the node marginals)
// and the weights after the state block (transitions, pairs), which
// setWeights adds to the active ones.
type prior struct {
	unary []float64 // Positions()*L: sum over the position's attributes of value × w0[a, y]
	tail  []float64 // w0 after the state block
}

// SetPrior makes w0 (full size, the layout of the objective's model; nil:
// none) a fixed offset of every evaluation: the objective becomes
// L(w0 + x) over the active weights x, a convex function of x with the
// same gradient formula (expected minus observed counts) at w0 + x. Its
// scores are computed here once (one pass over the corpus); w0 is not
// kept. Call it before the first evaluation.
func (o *Objective) SetPrior(w0 []float64) error {
	if w0 == nil {
		o.prior = nil
		clear(o.wtail)
		return nil
	}
	m := o.m
	if len(w0) != len(m.W) {
		return fmt.Errorf("train: prior weights have length %d, model needs %d", len(w0), len(m.W))
	}
	L := m.NumLabels()
	p := &prior{unary: make([]float64, o.c.Positions()*L), tail: append([]float64(nil), w0[m.Layout.StateLen():]...)}
	x := &o.c.Unary
	for pos := 0; pos < x.Rows(); pos++ {
		row := p.unary[pos*L : pos*L+L]
		for k := x.RowPtr[pos]; k < x.RowPtr[pos+1]; k++ {
			a := int(x.Col[k])
			v := 1.0
			if x.Val != nil {
				v = x.Val[k]
			}
			floats.AddScaled(row, v, w0[a*L:a*L+L])
		}
	}
	priorBlocks(p.unary, o.c, w0, L)
	o.prior = p
	copy(o.wtail, p.tail)
	return nil
}

// PriorMemory reports, through add, the memory of a prior (SetPrior) for
// the model layout m on corpus c.
func PriorMemory(m *chain.Model, c *sparse.Corpus, add func(name string, bytes int64)) {
	L := int64(m.NumLabels())
	add("prior: unary offsets (8 B x positions x labels) and weights after the state block", 8*int64(c.Positions())*L+8*int64(len(m.W)-m.Layout.StateLen()))
}

// resetTail sets dst, the weights after the state block, to the prior's
// (zero without one, p nil): the values of the inactive ones.
func (p *prior) resetTail(dst []float64) {
	if p == nil {
		clear(dst)
		return
	}
	copy(dst, p.tail)
}

// priorBlocks adds the dense blocks' scores under w0 to the unary offsets
// (positions x L): x_p W0 at every position p, W0 the block's D x L rows
// of w0.
func priorBlocks(unary []float64, c *sparse.Corpus, w0 []float64, L int) {
	for k := range c.Dense {
		b := &c.Dense[k]
		w := make([]float64, b.D*L)
		for d, a := range b.Attrs {
			if a >= 0 {
				copy(w[d*L:d*L+L], w0[int(a)*L:int(a)*L+L])
			}
		}
		for p := range c.Positions() {
			if x := b.Row(p); x != nil {
				densemul.AddMul(unary[p*L:p*L+L], x, w, L)
			}
		}
	}
}
