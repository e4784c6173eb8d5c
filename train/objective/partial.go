package objective

import (
	"errors"
	"fmt"
	"math"
	"math/bits"

	"gonum.org/v1/gonum/floats"

	"github.com/sparsetag/sparsetag/inference"
)

// LabelSets holds the allowed labels of every position of a corpus
// (partial labels): a fully labeled position allows its label alone, an
// unknown one every label. It is a bit set of L bits per position.
type LabelSets struct {
	l, words int
	bits     []uint64
}

// NewLabelSets returns the sets of n positions over L labels, all empty.
func NewLabelSets(n, L int) *LabelSets {
	w := (L + 63) / 64
	return &LabelSets{l: L, words: w, bits: make([]uint64, n*w)}
}

// Positions returns the number of positions.
func (s *LabelSets) Positions() int { return len(s.bits) / max(s.words, 1) }

// NumLabels returns L.
func (s *LabelSets) NumLabels() int { return s.l }

// Allow adds label y to the set of position p.
func (s *LabelSets) Allow(p, y int) { s.bits[p*s.words+y/64] |= 1 << (y % 64) }

// AllowAll allows every label at position p.
func (s *LabelSets) AllowAll(p int) {
	for y := range s.l {
		s.Allow(p, y)
	}
}

// Has reports whether position p allows label y.
func (s *LabelSets) Has(p, y int) bool { return s.bits[p*s.words+y/64]&(1<<(y%64)) != 0 }

// Count returns the number of labels position p allows.
func (s *LabelSets) Count(p int) int {
	n := 0
	for _, w := range s.bits[p*s.words : (p+1)*s.words] {
		n += bits.OnesCount64(w)
	}
	return n
}

// ErrNoPath is the error of an evaluation in which a sequence's label
// sets admit no label sequence of finite score.
var ErrNoPath = errors.New("train: the allowed labels of a sequence admit no label sequence")

// SetPartial makes the objective the negative log-likelihood of the label
// sequences the sets allow (partial labels): per sequence, log Z minus the
// log-partition of the lattice restricted to the allowed labels (a
// constrained forward-backward), and m = E_constrained F - E_model F. It
// is not convex in the weights. The corpus's own labels are then ignored.
// Pair attributes are not supported. Call it before the first evaluation.
func (o *Objective) SetPartial(s *LabelSets) error {
	m := o.m
	switch {
	case s == nil:
		return errors.New("train: nil label sets")
	case s.Positions() != o.c.Positions() || s.NumLabels() != m.NumLabels():
		return fmt.Errorf("train: label sets of %d positions over %d labels, corpus has %d positions, model %d labels",
			s.Positions(), s.NumLabels(), o.c.Positions(), m.NumLabels())
	case m.Layout.NumPair > 0:
		return errors.New("train: partial labels do not support pair attributes (templates with B lines with macros)")
	}
	for p := range s.Positions() {
		if s.Count(p) == 0 {
			return fmt.Errorf("train: position %d allows no label", p)
		}
	}
	o.partial = s
	// The observed counts are replaced by the constrained expectations,
	// which forwardOne subtracts from the node marginals and edge sums.
	o.obs = counts{stateLen: m.Layout.StateLen(), tail: make([]float64, len(m.W)-m.Layout.StateLen())}
	return nil
}

// constrained runs forward-backward on the lattice restricted to the
// labels s allows at sequence positions [start, start+T), leaves its node
// marginals in sh.cNode, subtracts its edge expectations from sh.edge and
// returns its log-partition (an error when it is -Inf).
func (s *LabelSets) constrained(sh *shardState, lat *inference.Lattice, start, T int) (float64, error) {
	L := lat.L
	n := T * L
	if cap(sh.cUnary) < n {
		sh.cUnary = make([]float64, n)
		sh.cNode = make([]float64, n)
	}
	u := sh.cUnary[:n]
	copy(u, lat.Unary[:n])
	for t := range T {
		for y := range L {
			if !s.Has(start+t, y) {
				u[t*L+y] = math.Inf(-1)
			}
		}
	}
	c := *lat
	c.Unary = u
	logZ := inference.ForwardBackwardTo(sh.ws, &c, sh.cNode[:n])
	if math.IsInf(logZ, -1) || math.IsNaN(logZ) {
		return logZ, ErrNoPath
	}
	if T > 1 {
		floats.AddScaled(sh.edge, -1, sh.ws.EdgeSum())
	}
	return logZ, nil
}
