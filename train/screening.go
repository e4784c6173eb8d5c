package train

import (
	"math"

	"github.com/sparsetag/sparsetag/screen"
	"github.com/sparsetag/sparsetag/sparse"
)

// screenScratch holds the buffers of one screening test.
type screenScratch struct {
	drop  []bool
	rn    []float64 // Rnorm over the tested features
	bound []float64
}

// screenTest runs the configured safe rule on the features idx, with m over
// idx and the gap, both from the same point: it returns drop[k] = true for
// every feature proven zero at the optimum, and how many. The Pinsker test
// is screen.Pinsker itself; the paper's rule (T = 1, the full policy: idx
// is the active set and x the weights over it) bounds state features with
// screen.EuclideanT1, alone (ScreenPaper) or as the minimum with the
// Pinsker bound (ScreenBoth).
func (tr *trainer) screenTest(sc *screenScratch, idx []int32, m []float64, gap float64, x []float64) ([]bool, int, error) {
	n := tr.c.Len()
	sc.drop = resizeBools(sc.drop, len(idx))
	clear(sc.drop)
	if tr.op.Screen == ScreenPinsker && math.Sqrt(2*gap/float64(n))*tr.rnormMin >= tr.pen.l1*(1-tr.op.Tau) {
		// No feature can pass the Pinsker test at this gap: skip the O(d)
		// pass.
		return sc.drop, 0, nil
	}
	sc.rn = resizeFloats(sc.rn, len(idx))
	for k, j := range idx {
		sc.rn[k] = tr.rnorm.at(j)
	}
	if tr.op.Screen == ScreenPinsker {
		return sc.drop, screen.Pinsker(sc.drop, m, sc.rn, gap, n, tr.pen.l1, tr.op.Tau), nil
	}
	paper, err := tr.paperBounds(gap, x, m)
	if err != nil {
		return nil, 0, err
	}
	sc.bound = screen.PinskerBounds(sc.bound, m, sc.rn, gap, n)
	U := tr.m.NumUnary * tr.m.NumLabels()
	for k, j := range idx {
		if int(j) >= U {
			continue
		}
		switch {
		case tr.op.Screen == ScreenBoth:
			sc.bound[k] = math.Min(sc.bound[k], paper[j])
		case tr.rnorm.at(j) > 0:
			// The paper's rule alone on state features; features with
			// Rnorm 0 (identically zero) are still dropped.
			sc.bound[k] = paper[j]
		}
	}
	return sc.drop, screen.ScreenBounds(sc.drop, sc.bound, tr.pen.l1, tr.op.Tau), nil
}

func resizeBools(s []bool, n int) []bool {
	if cap(s) < n {
		return make([]bool, n)
	}
	return s[:n]
}

// paperBounds evaluates the paper's Euclidean rule (T = 1 only) at the
// point x over the active set, where m is -∇L: an upper bound on
// |m_j(theta*)| for every state feature.
func (tr *trainer) paperBounds(gap float64, xa, ma []float64) ([]float64, error) {
	obj, fs := tr.obj, tr.fs
	m := tr.m
	U := m.NumUnary * m.NumLabels()
	if len(tr.wBuf) < len(m.W) {
		tr.wBuf = make([]float64, len(m.W))
		tr.mBuf = make([]float64, len(m.W))
	}
	w, mf := tr.wBuf[:U], tr.mBuf[:U]
	clear(w)
	clear(mf)
	for k, j := range fs.Active() {
		if int(j) < U {
			w[j] = xa[k]
			mf[j] = ma[k]
		}
	}
	delta := screen.DualResidual(tr.dBuf[:0], w, mf, tr.pen.l2/tr.pen.l1, tr.pen.l1)
	tr.dBuf = delta
	// Features outside the reduced problem contribute 0 to delta.
	live := sparse.NewBitset(U)
	for _, j := range fs.Active() {
		if int(j) < U {
			live.Set(int(j))
		}
	}
	for j := range delta {
		if !live.Has(j) {
			delta[j] = 0
		}
	}
	in := &screen.T1Input{Corpus: tr.c, L: m.NumLabels(), P: obj.Marginals(), Delta: delta, M: mf, Gap: gap}
	b, err := screen.EuclideanT1(tr.pBuf[:0], in, screen.T1Options{})
	tr.pBuf = b
	return b, err
}
