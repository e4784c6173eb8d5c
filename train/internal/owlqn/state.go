package owlqn

import (
	"errors"
)

// State is a snapshot of an optimizer: the point, the L-BFGS memory (oldest
// pair first, with the stored rho = 1/(s·y) values) and the iteration
// count. Together with a deterministic objective it is enough to continue
// an interrupted run exactly (Resume): the caller's evaluation at X gives the
// same F and Grad, bit for bit.
type State struct {
	L1   float64
	X    []float64
	S, Y [][]float64
	Rho  []float64
	Iter int
}

// Snapshot returns a deep copy of the optimizer's state.
func (o *Optimizer) Snapshot() State {
	st := State{L1: o.set.L1, X: append([]float64(nil), o.x...), Iter: o.iter}
	for i := 0; i < o.mem.count; i++ {
		k := o.mem.slot(i)
		st.S = append(st.S, append([]float64(nil), o.mem.s[k]...))
		st.Y = append(st.Y, append([]float64(nil), o.mem.y[k]...))
		st.Rho = append(st.Rho, o.mem.rho[k])
	}
	return st
}

// Resume returns an optimizer that continues from a snapshot: positioned
// at st.X, where the caller evaluated f(st.X) = f and ∇f(st.X) = g, with
// the snapshot's memory, l1 weight and iteration count, and otherwise the
// settings s. With a deterministic f the run continues bit for bit as the
// one that was snapshotted.
func Resume(st State, f float64, g []float64, s Settings) (*Optimizer, error) {
	if !(st.L1 >= 0) {
		return nil, errors.New("owlqn: snapshot has an invalid l1 weight")
	}
	s.L1 = st.L1
	o, err := New(st.X, f, g, s)
	if err != nil {
		return nil, err
	}
	if err := o.SetMemory(st); err != nil {
		return nil, err
	}
	o.iter = st.Iter
	return o, nil
}

// SetMemory installs the (s, y) pairs of st as the optimizer's L-BFGS
// memory, leaving the point, its evaluation and the iteration count alone.
// The pairs must have the optimizer's dimension. It lets a caller carry
// curvature over to a problem on another set of coordinates (pairs
// embedded with zeros for new coordinates keep s·y and so stay valid).
func (o *Optimizer) SetMemory(st State) error {
	n := len(o.x)
	if len(st.S) != len(st.Y) || len(st.S) != len(st.Rho) || len(st.S) > len(o.mem.s) {
		return errors.New("owlqn: memory does not fit the optimizer's settings")
	}
	for i := range st.S {
		if len(st.S[i]) != n || len(st.Y[i]) != n || !(st.Rho[i] > 0) {
			return errors.New("owlqn: malformed memory pair")
		}
	}
	o.installMemory(st)
	return nil
}

// installMemory copies the pairs of st (already checked) into the memory.
func (o *Optimizer) installMemory(st State) {
	n := len(o.x)
	o.mem.reset()
	for i := range st.S {
		o.mem.s[i] = o.mem.s[i][:n]
		o.mem.y[i] = o.mem.y[i][:n]
		copy(o.mem.s[i], st.S[i])
		copy(o.mem.y[i], st.Y[i])
		o.mem.rho[i] = st.Rho[i]
		o.mem.yy[i] = o.ops.dot(st.Y[i], st.Y[i])
	}
	o.mem.count = len(st.S)
}
