package lattice

import "gonum.org/v1/gonum/floats"

// PairView is the sparse counterpart of the pair block of a weight vector:
// the non-zero weights of pair attribute a are at prev*L+cur = Idx[q] for
// q in [Off[a], Off[a+1]), with weights Val[q], in index order.
type PairView struct {
	Off []int32
	Idx []uint32
	Val []float64
}

// Row writes the L×L block of pair attribute a into dst (zeros included).
func (p *PairView) Row(dst []float64, a int) {
	clear(dst)
	lo, hi := p.Off[a], p.Off[a+1]
	for q := lo; q < hi; q++ {
		dst[p.Idx[q]] = p.Val[q]
	}
}

// Pairs reads the pair weights of one attribute at a time: from a dense
// vector laid out as a weight vector's pair block, or from a PairView.
type Pairs struct {
	Dense []float64
	View  *PairView
}

// addTo adds v times the L×L pair weights of attribute a to blk. The
// sparse path skips the zero weights and rounds each product before adding
// it, as floats.AddScaled does (on amd64, MULPD then ADDPD), so the sums
// are the same bit for bit.
func (p Pairs) addTo(blk []float64, a int32, v float64) {
	if p.View == nil {
		LL := len(blk)
		floats.AddScaled(blk, v, p.Dense[int(a)*LL:int(a)*LL+LL])
		return
	}
	lo, hi := p.View.Off[a], p.View.Off[a+1]
	idx, val := p.View.Idx[lo:hi], p.View.Val[lo:hi]
	for q, k := range idx {
		blk[k] += float64(v * val[q])
	}
}
