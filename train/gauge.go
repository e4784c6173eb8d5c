package train

import (
	"slices"

	"github.com/sparsetag/sparsetag/sparse"
	"github.com/sparsetag/sparsetag/train/internal/gauge"
	"github.com/sparsetag/sparsetag/train/internal/owlqn"
)

// gaugeState is the solve's gauge step (train/internal/gauge,
// docs/gauge.md): it moves the optimizer's X along the likelihood's
// symmetries to the penalty's minimum and hands the optimizer the new value
// and gradient, keeping its memory: no evaluation (the loss, its gradient
// and m do not move; the L2 term and l2 x do). The loop runs it after
// every inner solve, before the full pass prices X. Running it also at the
// start of each inner solve, over the new working set, saved iterations on
// NER data but cost some on CoNLL-2000 (docs/gauge.md).
//
// The new value and gradient are the old ones plus the penalty's change,
// not a fresh evaluation, whose bits would differ: so a checkpoint taken at
// the pass keeps X from before the step (snapshot) and a resumed run
// evaluates there and steps again, as the uninterrupted run did.
type gaugeState struct {
	// moved: the last step moved X, whose value and gradient are then the
	// pre-step evaluation's plus the penalty's change; pre is X before it.
	moved bool
	pre   []float64
}

// step moves opt's X (the weights of the features act of layout lay) at
// penalty pen and rebases opt.
func (g *gaugeState) step(opt *owlqn.Optimizer, lay sparse.Layout, act []int32, pen penalty) error {
	x, grad := opt.X(), opt.Grad()
	g.pre = append(g.pre[:0], x...)
	dL2, moved := gauge.Shift(lay, act, x, grad, pen.l1, pen.l2)
	g.moved = moved > 0
	if !g.moved {
		return nil
	}
	return opt.Rebase(opt.F()+dL2, grad)
}

// snapshot is opt's state for a checkpoint: after a step that moved X, at
// the point before it.
func (g *gaugeState) snapshot(opt *owlqn.Optimizer) owlqn.State {
	st := opt.Snapshot()
	if g.moved {
		st.X = slices.Clone(g.pre)
	}
	return st
}
