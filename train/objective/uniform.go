package objective

import (
	"math"

	"github.com/sparsetag/sparsetag/sparse"
)

// beta_max from counts. At w = 0 every score is zero, so (with no prior
// offset and no partial labels, the two things that put scores or
// constraints into the lattice besides w) the model distribution of every
// sequence is uniform over its L^T label sequences: a position's label is
// y with probability 1/L, an edge's pair of labels (l, l') with 1/L^2. The
// expected counts of m(0) = (observed - expected) / n are then
//
//	state (a, y)       (sum over positions of s_i x_{t,a}) / L, for every y
//	                   (the dense blocks' values x_{t,d} count for Attrs[d]);
//	transition (l, l') (sum over sequences of s_i (T_i - 1)) / L^2;
//	pair (a, l, l')    (sum over positions t >= 1 of s_i x_{t,a}) / L^2,
//
// with s_i the weight of sequence i (1 without weights), so beta_max =
// ||m(0)||_inf needs one scan of the corpus and the observed counts, not a
// forward-backward pass. The layout has no start or end features. The sums
// are not the pass's (which adds v mu_y, mu_y the forward-backward's
// rounded 1/L, position by position): the two agree to rounding, not bit
// for bit.

// uniformCounts are the expected counts at w = 0 (see above): per unary
// attribute, the transitions' single value, per pair attribute.
type uniformCounts struct {
	state []float64
	trans float64
	pair  []float64
}

// uniformCountsOf returns the expected counts at w = 0 of corpus c with
// the layout lay and the sequence weights s (nil: unit).
func uniformCountsOf(c *sparse.Corpus, lay sparse.Layout, s []float64) uniformCounts {
	L := float64(lay.L)
	u := uniformCounts{state: make([]float64, lay.NumUnary), pair: make([]float64, lay.NumPair)}
	pairs := lay.NumPair > 0 && c.Pair.Rows() > 0
	for i := 0; i < c.Len(); i++ {
		start, T := c.Span(i)
		sw := 1.0
		if s != nil {
			sw = s[i]
		}
		for p := start; p < start+T; p++ {
			addRow(u.state, &c.Unary, p, sw)
			for k := range c.Dense {
				addBlockRow(u.state, &c.Dense[k], p, sw)
			}
			if pairs && p > start {
				addRow(u.pair, &c.Pair, p, sw)
			}
		}
		if T > 1 {
			u.trans += sw * float64(T-1)
		}
	}
	for a := range u.state {
		u.state[a] /= L
	}
	u.trans /= L * L
	for a := range u.pair {
		u.pair[a] /= L * L
	}
	return u
}

// addRow adds row p of x, scaled by sw, into sum (by column).
func addRow(sum []float64, x *sparse.Matrix, p int, sw float64) {
	cols, vals := x.Row(p)
	for k, a := range cols {
		v := 1.0
		if vals != nil {
			v = vals[k]
		}
		sum[a] += sw * v
	}
}

// addBlockRow adds the values of block b at position p, scaled by sw, into
// sum (by the dimensions' attributes).
func addBlockRow(sum []float64, b *sparse.Dense, p int, sw float64) {
	for d, v := range b.Row(p) {
		if a := b.Attrs[d]; a >= 0 {
			sum[a] += sw * v
		}
	}
}

// UniformBetaMax returns beta_max = max_j |m_j(0)| over the feature set
// from the counts alone (see above), and true; or false when the uniform
// argument does not hold (a prior or partial labels: then evaluate at w =
// 0 and take MaxAbsResidual) or the result is not finite (the pass then
// reports what is wrong). It agrees with the pass to rounding.
func (o *Objective) UniformBetaMax() (float64, bool) {
	if o.prior != nil || o.partial != nil {
		return 0, false
	}
	u := uniformCountsOf(o.c, o.m.Layout, o.weights)
	lay := o.m.Layout
	L := lay.L
	r := spanMax{in: o.fs.inSet, cur: o.obs.cursor(), inv: 1 / o.n}
	for a, e := range u.state {
		r.stateRow(a*L, L, e)
	}
	r.span(lay.TransOffset(), lay.PairOffset(), u.trans)
	for a, e := range u.pair {
		r.span(lay.PairIndex(a, 0, 0), lay.PairIndex(a+1, 0, 0), e)
	}
	if r.nan || math.IsInf(r.best, 0) {
		return 0, false
	}
	return r.best, true
}

// spanMax is UniformBetaMax's running max_j |m_j(0)| over the features of
// the set in, with the observed counts read by cur.
type spanMax struct {
	in   sparse.Bitset
	cur  countCursor
	inv  float64
	best float64
	nan  bool
}

// stateRow is span for the L state features of an attribute, [lo, lo+L):
// when all of them are in the set and the counts are sparse, every
// feature without a count has the one value |(0 - e) inv|, taken once,
// and the others are read from the counts in order: the same values, so
// the same maximum and NaN flag, without a look-up per feature.
func (r *spanMax) stateRow(lo, L int, e float64) {
	c := r.cur.c
	if c.dense != nil || !allIn(r.in, lo, L) {
		r.span(lo, lo+L, e)
		return
	}
	k, best, seen := r.cur.k, r.best, 0
	for k < len(c.stIdx) && c.stIdx[k] < int32(lo) {
		k++
	}
	take := func(v float64) {
		if v > best {
			best = v
		} else if v != v {
			r.nan = true
		}
	}
	for ; k < len(c.stIdx) && c.stIdx[k] < int32(lo+L); k++ {
		take(math.Abs((c.stVal[k] - e) * r.inv))
		seen++
	}
	if seen < L {
		take(math.Abs((0 - e) * r.inv))
	}
	r.cur.k, r.best = k, best
}

// allIn reports whether the bits [lo, lo+n) of b are all set.
func allIn(b sparse.Bitset, lo, n int) bool {
	for i := lo; i < lo+n; {
		w, bit := i>>6, uint(i&63)
		span := min(64-int(bit), lo+n-i)
		mask := (^uint64(0) >> (64 - uint(span))) << bit
		if b[w]&mask != mask {
			return false
		}
		i += span
	}
	return true
}

// span takes the features [lo, hi) of the set, whose expected count is e.
func (r *spanMax) span(lo, hi int, e float64) {
	best, cur := r.best, &r.cur
	for j := lo; j < hi; j++ {
		if !r.in.Has(j) {
			continue
		}
		v := math.Abs((cur.at(int32(j)) - e) * r.inv)
		if v > best {
			best = v
		} else if v != v {
			r.nan = true
		}
	}
	r.best = best
}
