package train

import "github.com/sparsetag/sparsetag/train/internal/gauge"

// gaugeStep moves X along the likelihood's symmetries to the penalty's
// minimum (train/internal/gauge, docs/gauge.md) and hands the optimizer
// the new value and gradient, keeping its memory: no evaluation (the loss,
// its gradient and m do not move; the L2 term and l2 x do). It runs after
// every inner solve, before the full pass prices X, never between a
// checkpoint and the pricing a resumed run repeats, so a resumed run takes
// the same steps as the uninterrupted one. Running it also at the start of
// each inner solve, over the new working set, saved iterations on NER data
// but cost some on CoNLL-2000 (docs/gauge.md).
//
// The new value and gradient are the old ones plus the penalty's change,
// not a fresh evaluation, whose bits would differ: so a checkpoint taken
// at the pass keeps X from before the step (preGauge) and a resumed run
// evaluates there and steps again, as the uninterrupted run did.
func (r *run) gaugeStep() error {
	tr := r.tr
	x, g := r.opt.X(), r.opt.Grad()
	r.preGauge = append(r.preGauge[:0], x...)
	dL2, moved := gauge.Shift(tr.m.Layout, tr.fs.Active(), x, g, tr.pen.l1, tr.pen.l2)
	r.gauged = moved > 0
	if !r.gauged {
		return nil
	}
	return r.opt.Rebase(r.opt.F()+dL2, g)
}
