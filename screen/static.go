package screen

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/sparsetag/sparsetag/sparse"
)

// The static range rule: a bound on |M_j| that holds at every dual point, so
// it needs no duality gap, no iterate and no forward-backward pass (see the
// "Static range rule" section of the package documentation and
// docs/static-rule.md).
//
// Derivation. In the sum form, M_j(theta) = obs_j - sum_i E_{theta_i}[F_j(x_i,
// Y)], where obs_j = sum_i F_j(x_i, y_i) and theta_i is any distribution over
// the label sequences Y_i of sequence i. With lo_ij = min_y F_j(x_i, y) and
// hi_ij = max_y F_j(x_i, y), every expectation lies in [lo_ij, hi_ij], and
// the gold value F_j(x_i, y_i) lies there too. Hence, with Lo_j = sum_i lo_ij
// and Hi_j = sum_i hi_ij,
//
//	Lo_j <= sum_i E_{theta_i}[F_j] <= Hi_j,   Lo_j <= obs_j <= Hi_j,
//	|M_j(theta)| <= B_j := max(obs_j - Lo_j, Hi_j - obs_j)      (both terms >= 0).
//
// The bound is attained: the one-hot dual point that puts each theta_i on an
// argmin (or each on an argmax) of F_j(x_i, .) gives M_j = obs_j - Lo_j (or
// obs_j - Hi_j). So B_j is the exact maximum of |M_j| over the dual feasible
// set and cannot be improved without information about w.
//
// The ranges (L >= 2 labels, no forbidden transitions; x_{t,a} is the sum of
// the values of attribute a in row t, pos(v) = max(v, 0), neg(v) = max(-v,
// 0)):
//
//	state (a,l)        F = sum_t x_{t,a} [y_t = l]. Labels of different
//	                   positions are free, so Hi = sum_t pos(x_{t,a}) and
//	                   Lo = -sum_t neg(x_{t,a}) (per sequence, then summed).
//	                   Substituting, B = max(A, C) with the non-negative sums
//	                     A = sum_{t: y_t = l} pos(x_t) + sum_{t: y_t != l} neg(x_t),
//	                     C = sum_{t: y_t = l} neg(x_t) + sum_{t: y_t != l} pos(x_t).
//	                   Binary (or non-negative) data: B = max(obs, c_a - obs)
//	                   with c_a = sum_t x_{t,a}.
//	transition (l,l')  F = #{t >= 1 : y_{t-1} = l, y_t = l'}. Lo = 0 and
//	                   Hi = sum_i (T_i - 1) for l = l' (constant path l),
//	                   Hi = sum_i floor(T_i/2) for l != l' (alternating path;
//	                   two l -> l' bigrams cannot share a position). Bounding
//	                   by the number of edges would be valid but 2x loose.
//	start/end l        F = [y_0 = l] (or [y_{T-1} = l]): Lo = 0, Hi = number
//	                   of non-empty sequences.
//	pair (a,l,l')      F = sum_{t>=1} x_{t,a} [y_{t-1} = l, y_t = l'] (row 0
//	                   of each sequence has no incoming edge and is ignored).
//	                   For non-negative values Lo = 0 and Hi is the number
//	                   (sum of values) of edges for l = l'. In general (mixed
//	                   signs, and l != l' where neighbouring edges conflict)
//	                   hi_ij and lo_ij are the max-sum and min-sum of the
//	                   same O(nnz) DP as PairRnorm (pairDP).
//
// Floating point. For an integer-valued attribute (binary, or valued with
// every value an integer, with S_a below 2^52) every sum above is computed
// exactly, so B_j is exact and the test B_j <= lam1 is exact; this is
// decided attribute by attribute, since each sum involves one attribute's
// values only (binary template attributes keep exact bounds beside real
// word-vector attributes). Otherwise B_j is rounded up by an explicit margin: every quantity
// above is a sum of at most K = nnz + 2n + 4 terms whose absolute values add
// up to at most S_a = sum of |v| over the entries of attribute a, so its
// rounding error is below K u S_a (u = 2^-53, first order), and B_j (a max of
// two such sums, or of a sum minus another) is off by less than 2 K u S_a. We
// add 4 K u S_a, which also covers the rounding of S_a and of the final
// addition.

// RangeBounds writes into dst[j], for every feature j of the layout, the
// static range bound B_j on the sum-form residual:
//
//	|M_j(theta)| = |sum_i (F_j(x_i, y_i) - E_{theta_i}[F_j(x_i, Y)])| <= B_j
//
// for every dual point theta (any distributions over label sequences), and so
// in particular for the optimum of every penalty. It returns dst[:Dim()]
// (reallocated when too short). The cost is O(nnz + n + Dim()) time and
// O(Dim()/L + NumPair) extra memory (O(Dim()) more when unary values are
// signed). The bounds are exact (attained by a one-hot dual point) for L >= 2
// and no forbidden transitions, and rounded up for non-integer data (see the
// floating-point policy above). With L < 2 or no sequences every bound is 0:
// each feature is then constant over the label sequences.
//
// Divide by n for the average form: |m_j(theta)| <= B_j / n. Feed the result
// to RangeScreen. It returns an error if the corpus has no labels or does not
// fit the layout.
func RangeBounds(dst []float64, lay sparse.Layout, c *sparse.Corpus) ([]float64, error) {
	return WeightedRangeBounds(dst, lay, c, nil)
}

// WeightedRangeBounds is RangeBounds with sequence weights s (one per
// sequence, finite and above 0; nil: unit weights, exactly RangeBounds):
// the bound on the weighted sum-form residual M_s,j(theta) = sum_i s_i
// (F_j(x_i, y_i) - E_{theta_i}[F_j(x_i, Y)]). The derivation above holds
// with every per-sequence term scaled by s_i (each of obs_ij - lo_ij and
// hi_ij - obs_ij is non-negative, so B_s,j = max(sum_i s_i (obs_ij -
// lo_ij), sum_i s_i (hi_ij - obs_ij)) is again attained); with weights the
// sums are not exact and every bound, transitions included, is rounded up
// by the margin of non-integer data. Divide by n for the average form of
// (1/n) sum_i s_i NLL_i.
func WeightedRangeBounds(dst []float64, lay sparse.Layout, c *sparse.Corpus, s []float64) ([]float64, error) {
	return weightedRangeBounds(dst, lay, c, s, 1, rangeOwnBlock)
}

// WeightedRangeBoundsThreads is WeightedRangeBounds with the state block
// (the unary attributes' sums, nearly all of the work) computed by up to
// threads goroutines: the attributes are dealt out in blocks of 4096 ids,
// block b to goroutine b mod threads, and each goroutine scans every row
// and sums, in row order, the entries of its own attributes. Every sum is
// thus formed by one goroutine with the serial loop's additions in the
// serial loop's order, so the bounds are WeightedRangeBounds's bit for bit
// whatever threads (and an error is the serial one: a failing part is run
// again serially). The price is that every goroutine reads the whole
// matrix. The transition and pair blocks are computed serially.
func WeightedRangeBoundsThreads(dst []float64, lay sparse.Layout, c *sparse.Corpus, s []float64, threads int) ([]float64, error) {
	return weightedRangeBounds(dst, lay, c, s, threads, rangeOwnBlock)
}

// rangeOwnBlock is the number of consecutive attribute ids one goroutine
// of WeightedRangeBoundsThreads owns at a time.
const rangeOwnBlock = 4096

// weightedRangeBounds is WeightedRangeBoundsThreads with blocks of block
// attribute ids (tests use small ones).
func weightedRangeBounds(dst []float64, lay sparse.Layout, c *sparse.Corpus, s []float64, threads, block int) ([]float64, error) {
	if err := checkLayout(lay, c); err != nil {
		return dst, err
	}
	if err := checkWeights(s, c); err != nil {
		return dst, err
	}
	U, L, P, d := lay.NumUnary, lay.L, lay.NumPair, lay.Dim()
	to, po := lay.TransOffset(), lay.PairOffset()

	if c.Labels == nil && c.Positions() > 0 {
		return dst, errors.New("screen: RangeBounds needs gold labels")
	}
	dst = resizeZero(dst, d)
	if L < 2 || c.Len() == 0 {
		return dst, nil
	}
	K := c.Unary.NNZ() + c.Pair.NNZ() + 2*c.Len() + 4
	tol := 4 * float64(K) * 0x1p-53
	if err := rangeState(dst[:U*L], U, L, c, tol, s, statePartsOf(U, threads, block)); err != nil {
		return dst, err
	}
	rangeTrans(dst[to:to+L*L], L, c, s)
	if P > 0 && c.Pair.Rows() > 0 {
		if err := rangePair(dst[po:po+P*L*L], P, L, c, tol, s); err != nil {
			return dst, err
		}
	}
	return dst, nil
}

// stateParts says how the state block's attributes are dealt out: n
// goroutines, block consecutive ids at a time (n = 1: serially).
type stateParts struct{ n, block int }

// statePartsOf returns the parts of U attributes for threads goroutines:
// no more parts than blocks.
func statePartsOf(U, threads, block int) stateParts {
	return stateParts{n: max(1, min(threads, (U+block-1)/block)), block: block}
}

// owns reports whether part g owns attribute a.
func (p stateParts) owns(g int, a int32) bool { return p.n == 1 || int(a)/p.block%p.n == g }

// stateSums are the per-attribute sums of the state block: P_a, S_a, and
// when some value is negative N_a and Nl(a,l) (rangeState); rowAcc and
// inRow are the scratch of one row (each attribute's entry of a row
// summed first). Every entry belongs to one attribute, written by the
// goroutine that owns it.
type stateSums struct {
	pos, abs, negTot, neg, rowAcc []float64
	inRow                         []bool
}

// rangeState fills the state block (U*L, row-major a*L+l), each row's
// values scaled by the weight of its sequence (s nil: unit), with the
// attributes dealt out to parts.
func rangeState(blk []float64, U, L int, c *sparse.Corpus, tol float64, s []float64, parts stateParts) error {
	x := &c.Unary
	inexact := nonIntegerAttrs(x, U)
	rw := rowWeights(c, s)
	// blk row a holds Pl(a,l) = sum_{t: y_t = l} pos(x_t); neg[a*L+l] holds
	// Nl(a,l) = sum_{t: y_t = l} neg(x_t) (allocated only when some value is
	// negative; with none allocated the formulas below give the same bits).
	st := &stateSums{pos: make([]float64, U), abs: make([]float64, U), rowAcc: make([]float64, U), inRow: make([]bool, U)}
	if slices.ContainsFunc(x.Val, func(v float64) bool { return v < 0 }) {
		st.neg, st.negTot = make([]float64, U*L), make([]float64, U)
	}
	errs := make([]error, parts.n)
	var wg sync.WaitGroup
	for g := 1; g < parts.n; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[g] = st.scan(blk, L, c, rw, parts, g)
		}()
	}
	errs[0] = st.scan(blk, L, c, rw, parts, 0)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		if parts.n > 1 {
			clear(blk)
			return rangeState(blk, U, L, c, tol, s, stateParts{n: 1, block: parts.block}) // the serial error
		}
		return err
	}
	for a := 0; a < U; a++ {
		if math.IsInf(st.abs[a], 0) || math.IsNaN(st.abs[a]) {
			return fmt.Errorf("screen: RangeBounds: unary attribute %d has non-finite values", a)
		}
		margin := 0.0
		if s != nil || (inexact != nil && inexact[a]) || st.abs[a] >= exactBelow {
			margin = tol * st.abs[a]
		}
		st.bound(blk[a*L:(a+1)*L], a, margin)
	}
	return nil
}

// scan adds the rows' values of the attributes part g owns into the sums
// and into blk (Pl), in row order.
func (st *stateSums) scan(blk []float64, L int, c *sparse.Corpus, rw []float64, parts stateParts, g int) error {
	x := &c.Unary
	touched := make([]int32, 0, 16)
	for r := 0; r < x.Rows(); r++ {
		cols, vals := x.Row(r)
		y := int(c.Labels[r])
		if increasing(cols) {
			if err := st.scanRow(blk, L, r, y, cols, vals, rw, parts, g); err != nil {
				return err
			}
			continue
		}
		for k, a := range cols {
			if !parts.owns(g, a) {
				continue
			}
			v := 1.0
			if vals != nil {
				v = vals[k]
			}
			if rw != nil {
				v *= rw[r]
			}
			if !st.inRow[a] {
				st.inRow[a] = true
				touched = append(touched, a)
			}
			st.rowAcc[a] += v
			st.abs[a] += math.Abs(v)
		}
		for _, a := range touched {
			v := st.rowAcc[a]
			st.rowAcc[a], st.inRow[a] = 0, false
			if err := st.addRow(blk, L, a, y, r, v); err != nil {
				return err
			}
		}
		touched = touched[:0]
	}
	return nil
}

// scanRow is scan's loop for row r (label y) when no attribute repeats in
// it (increasing): each entry is the attribute's value in the row, added
// at once instead of staged in rowAcc (every sum gets the same additions
// in the same order; a NaN gives the same error).
func (st *stateSums) scanRow(blk []float64, L, r, y int, cols []int32, vals, rw []float64, parts stateParts, g int) error {
	for k, a := range cols {
		if !parts.owns(g, a) {
			continue
		}
		v := 1.0
		if vals != nil {
			v = vals[k]
		}
		if rw != nil {
			v *= rw[r]
		}
		st.abs[a] += math.Abs(v)
		if err := st.addRow(blk, L, a, y, r, v); err != nil {
			return err
		}
	}
	return nil
}

// addRow adds v, attribute a's value in row r (label y), to the positive
// or the negative sums and to blk (Pl); a NaN is an error.
func (st *stateSums) addRow(blk []float64, L int, a int32, y, r int, v float64) error {
	switch {
	case v > 0:
		st.pos[a] += v
		blk[int(a)*L+y] += v
	case v < 0:
		st.negTot[a] -= v
		st.neg[int(a)*L+y] -= v
	case math.IsNaN(v):
		return fmt.Errorf("screen: RangeBounds: NaN value of unary attribute %d at position %d", a, r)
	}
	return nil
}

// bound turns row (Pl(a, .)) into the bounds of attribute a's features:
// B = max(A, C) + margin.
func (st *stateSums) bound(row []float64, a int, margin float64) {
	L := len(row)
	for l, pl := range row {
		var A, C float64
		if st.neg == nil {
			A, C = pl, st.pos[a]-pl // obs and c_a - obs
		} else {
			nl := st.neg[a*L+l]
			A, C = pl+(st.negTot[a]-nl), nl+(st.pos[a]-pl)
		}
		row[l] = max(A, C) + margin
	}
}

// rangeTrans fills the transition block: gold bigram counts against [0,
// Hi], each sequence's scaled by its weight (s nil: unit, exact integers;
// with weights every bound, a sum of at most Positions() + Len() terms of
// total size at most sum_i s_i T_i, is rounded up by the margin of the
// floating-point policy above for that many terms).
func rangeTrans(blk []float64, L int, c *sparse.Corpus, s []float64) {
	var diag, off, total float64 // Hi for l == l' and l != l', sum_i s_i T_i
	for i := 0; i < c.Len(); i++ {
		lo, T := c.Span(i)
		if T < 1 {
			continue
		}
		sw := weightOf(s, i)
		diag += sw * float64(T-1)
		off += sw * float64(T/2)
		total += sw * float64(T)
		for t := lo + 1; t < lo+T; t++ {
			blk[int(c.Labels[t-1])*L+int(c.Labels[t])] += sw
		}
	}
	margin := 0.0
	if s != nil {
		margin = 4 * float64(c.Positions()+c.Len()+4) * 0x1p-53 * total
	}
	for p := 0; p < L; p++ {
		for q := 0; q < L; q++ {
			hi := off
			if p == q {
				hi = diag
			}
			obs := blk[p*L+q]
			blk[p*L+q] = max(obs, hi-obs) + margin
		}
	}
}

// rangePair fills the pair block (P*L*L): gold values against the sums over
// sequences of the exact per-sequence ranges of the pairDP, every value
// scaled by its sequence's weight (s nil: unit; the DP's ranges scale with
// a positive factor).
func rangePair(blk []float64, P, L int, c *sparse.Corpus, tol float64, s []float64) error {
	x := &c.Pair
	inexact := nonIntegerAttrs(x, P)
	// Per attribute: sums over sequences of dMax, dMin, oMax, oMin, and S_a.
	rg := make([]float64, 4*P)
	abs := make([]float64, P)
	st := make([]pairDP, P)
	for a := range st {
		st[a].lastT = -2
		st[a].pendT = -2
	}
	touched := make([]int32, 0, 64)
	third := L >= 3
	for i := 0; i < c.Len(); i++ {
		lo, T := c.Span(i)
		for r := lo + 1; r < lo+T; r++ {
			t := r - lo
			cols, vals := x.Row(r)
			k0 := int(c.Labels[r-1])*L + int(c.Labels[r])
			for k, a := range cols {
				v := 1.0
				if vals != nil {
					v = vals[k]
				}
				if s != nil {
					v *= s[i]
				}
				blk[int(a)*L*L+k0] += v
				abs[a] += math.Abs(v)
				s := &st[a]
				if s.pendT == t {
					s.pendV += v
					continue
				}
				if s.pendT < 0 {
					touched = append(touched, a)
					s.reset()
				} else {
					s.step(third)
				}
				s.pendT, s.pendV = t, v
			}
		}
		for _, a := range touched {
			s := &st[a]
			s.step(third)
			dMax, dMin, oMax, oMin := s.result(third)
			rg[4*a] += dMax
			rg[4*a+1] += dMin
			rg[4*a+2] += oMax
			rg[4*a+3] += oMin
			s.lastT, s.pendT = -2, -2
		}
		touched = touched[:0]
	}
	for a := 0; a < P; a++ {
		if math.IsInf(abs[a], 0) || math.IsNaN(abs[a]) {
			return fmt.Errorf("screen: RangeBounds: pair attribute %d has non-finite values", a)
		}
		margin := 0.0
		if s != nil || (inexact != nil && inexact[a]) || abs[a] >= exactBelow {
			margin = tol * abs[a]
		}
		sub := blk[a*L*L : (a+1)*L*L]
		for p := 0; p < L; p++ {
			for q := 0; q < L; q++ {
				hi, lo := rg[4*a+2], rg[4*a+3]
				if p == q {
					hi, lo = rg[4*a], rg[4*a+1]
				}
				obs := sub[p*L+q]
				sub[p*L+q] = max(obs-lo, hi-obs) + margin
			}
		}
	}
	return nil
}

// rowWeights returns the weight of every row of c (its sequence's), or nil
// for unit weights (s nil).
func rowWeights(c *sparse.Corpus, s []float64) []float64 {
	if s == nil {
		return nil
	}
	rw := make([]float64, c.Positions())
	for i := 0; i < c.Len(); i++ {
		lo, T := c.Span(i)
		for r := lo; r < lo+T; r++ {
			rw[r] = s[i]
		}
	}
	return rw
}

// nonIntegerAttrs returns, for each of the n attributes (columns) of x,
// whether one of its values is not an integer; nil when every value is an
// integer (a binary matrix among them). Every sum RangeBounds forms for
// attribute a involves the values of a alone: for an attribute whose values
// are all integers it is a sum of integers whose partial sums are bounded in
// magnitude by 2 S_a, hence exact in float64 when S_a < 2^52 (exactBelow),
// whatever the other attributes hold (binary attributes beside word vectors).
func nonIntegerAttrs(x *sparse.Matrix, n int) []bool {
	var out []bool
	for k, v := range x.Val {
		if v != math.Trunc(v) {
			if out == nil {
				out = make([]bool, n)
			}
			out[x.Col[k]] = true
		}
	}
	return out
}

// exactBelow is the bound on S_a below which integer data is summed exactly.
const exactBelow = 0x1p52

// RangeScreen applies the static range rule: it marks screened[j] = true for
// every j with bound[j] <= lam1 and returns how many entries it newly marked
// (marks are never removed). bound is RangeBounds's output and lam1 the
// sum-form L1 penalty c1 (= n*beta in the average form). The rule is safe for
// lam1 and every larger L1 penalty, whatever the L2 penalty, and needs no
// training at all; apply it once before training (and again, with the same
// bounds, at each larger penalty of a path).
//
// Why "<=" and no margin is safe. For finite w every label sequence has
// probability p_w(y|x_i) > 0, so E_{p_w}[F_j(x_i, .)] lies strictly inside
// [lo_ij, hi_ij] whenever F_j(x_i, .) is not constant, and then |M_j(w*)| <
// B_j strictly (the optimum w* is finite: the objective is coercive for lam1
// > 0). If F_j(x_i, .) is constant for every i, M_j = 0 = B_j identically.
// Either way B_j <= lam1 gives |M_j(w*)| < lam1, while w*_j != 0 needs
// |M_j(w*)| = lam1 + 2 c2 |w*_j| >= lam1. So w*_j = 0; a feature with B_j = 1
// is removed at c1 = 1. The bounds themselves are exact for integer data and
// rounded up otherwise (RangeBounds), so the comparison needs no tau. It is
// stated for the problem with penalty lam1 as given: when an average-form beta
// is converted, pass a lam1 that does not exceed n*beta (for example
// math.Nextafter(float64(n)*beta, 0)).
//
// lam1 <= 0, NaN or +Inf screens nothing, and a NaN bound screens nothing. It
// panics if the lengths differ.
func RangeScreen(screened []bool, bound []float64, lam1 float64) int {
	if len(screened) != len(bound) {
		panic("screen: RangeScreen: len(screened) != len(bound)")
	}
	if !(lam1 > 0) || math.IsInf(lam1, 1) {
		return 0
	}
	count := 0
	for j, b := range bound {
		if !screened[j] && b <= lam1 {
			screened[j] = true
			count++
		}
	}
	return count
}
