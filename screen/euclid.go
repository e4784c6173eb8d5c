package screen

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/sparsetag/sparsetag/sparse"
)

// ErrChain is returned by EuclideanT1 when a sequence is not of length 1.
var ErrChain = errors.New("screen: the paper's rule needs T = 1 (enumerable label space); use the Pinsker rule on chains")

// T1Input holds what the paper's Euclidean rule needs on a T = 1 (plain
// multiclass) problem with L classes: n examples, each one a sequence of
// length 1, whose state features are j = a*L + y (F_j(x_i, y') = x_{i,a} [y' =
// y]). Label-only features (a bias, start or end features) are not supported:
// no model of this toolkit has them.
type T1Input struct {
	// Corpus holds the examples: sequence i is row i of Corpus.Unary.
	// Corpus.Labels (the gold labels) is used only when M is nil.
	Corpus *sparse.Corpus
	// L is the number of classes.
	L int
	// P holds the model probabilities p_w(y | x_i) at the current point w,
	// n*L row-major.
	P []float64
	// Delta is w - wtilde on the state features (NumUnary*L), where wtilde =
	// soft(m, beta)/(alpha beta) is the dual-implied primal point (see
	// DualResidual). Use 0 for features outside the (reduced) problem.
	Delta []float64
	// M is m(w) = -grad L(w) on the state features, from the same pass as P.
	// If nil it is computed from Corpus.Labels and P.
	M []float64
	// Gap is G(w) for the gap ball ||theta* - theta_hat|| <= sqrt(2 n G); a
	// NaN, infinite or negative Gap disables that ball.
	Gap float64
}

// T1Options tunes EuclideanT1. The zero value uses the half ball and the gap
// ball, without half-spaces.
type T1Options struct {
	// PaperBall uses the paper's ball B(theta_hat - n g, n||g||) instead of
	// the half ball B(theta_hat - (n/2) g, (n/2)||g||), which lies inside it
	// (so the default is never worse). For reproducing the paper.
	PaperBall bool
	// NoGapBall disables the gap ball.
	NoGapBall bool
	// K is how many half-spaces <1, theta_k> <= 1 are tried per feature
	// (the paper's random-k relaxation): 0 uses the balls alone, K >= n uses
	// every example, otherwise K distinct examples are drawn with a PCG
	// generator seeded by Seed. The cost is O(K * NumUnary * L).
	K    int
	Seed uint64
}

// EuclideanT1 computes the paper's Euclidean screening bound (section 6 of the
// design note, with its corrections) on a T = 1 problem: for every state
// feature j = a*L + y it writes into dst[j] an upper bound s_hat_j on
// |m_j(theta*)|, so that s_hat_j < beta(1 - tau) implies w*_j = 0 (see
// ScreenBounds), and returns dst[:NumUnary*L].
//
// In reduced coordinates (label y° = L-1 eliminated per example) m_j(theta) =
// const_j + <b_j, theta>, and theta* lies in each of the balls used (half or
// paper ball, gap ball). s_hat_j is the minimum over those balls, and over the
// half-spaces <1, theta_k> <= 1 tried, of max |m_j| over ball cap half-space,
// each computed by the geometric closed form from inner products
// (minLinearBallHalfspaceDots). All of them are valid, and so is their
// minimum with the Pinsker bound (MinInto). The cost is O(nnz L + K NumUnary
// L).
//
// It returns an error wrapping ErrChain if a sequence is not of length 1, and
// an error if the inputs do not fit the corpus.
func EuclideanT1(dst []float64, in *T1Input, opt T1Options) ([]float64, error) {
	if err := in.check(); err != nil {
		return dst, err
	}
	c, L := in.Corpus, in.L
	n, d := c.Len(), c.NumUnary*in.L
	dst = resize(dst, d)
	m := dst // m(w) is built in dst, then replaced by the bounds
	if in.M != nil {
		copy(m, in.M)
	} else {
		t1Gradient(m, c, in.P, L)
	}
	if L < 2 || n == 0 {
		for j, v := range m {
			dst[j] = math.Abs(v)
		}
		return dst, nil
	}
	sm := t1Accumulate(in)
	balls := t1Balls(sm.gg, float64(n), in.Gap, opt)
	bound := t1BallBounds(m, &sm, balls, n, L)
	t1HalfSpaces(bound, m, in, &sm, balls, chooseK(n, opt.K, opt.Seed))
	copy(dst, bound)
	return dst, nil
}

// check reports whether the input fits a T = 1 problem: sequences of length
// 1 (else an error wrapping ErrChain), and slices of the corpus's sizes.
func (in *T1Input) check() error {
	c := in.Corpus
	if c == nil {
		return errors.New("screen: EuclideanT1: nil corpus")
	}
	n := c.Len()
	for i := 0; i < n; i++ {
		if T := c.SeqPtr[i+1] - c.SeqPtr[i]; T != 1 {
			return fmt.Errorf("%w (sequence %d has length %d)", ErrChain, i, T)
		}
	}
	L, A := in.L, c.NumUnary
	d := A * L
	switch {
	case L < 1:
		return fmt.Errorf("screen: EuclideanT1: L = %d", L)
	case len(in.P) != n*L:
		return fmt.Errorf("screen: EuclideanT1: len(P) = %d, want n*L = %d", len(in.P), n*L)
	case len(in.Delta) != d:
		return fmt.Errorf("screen: EuclideanT1: len(Delta) = %d, want NumUnary*L = %d", len(in.Delta), d)
	case in.M != nil && len(in.M) != d:
		return fmt.Errorf("screen: EuclideanT1: len(M) = %d, want NumUnary*L = %d", len(in.M), d)
	case in.M == nil && len(c.Labels) != n:
		return errors.New("screen: EuclideanT1: M is nil and the corpus has no labels")
	}
	if err := c.Unary.Validate(A); err != nil {
		return fmt.Errorf("screen: EuclideanT1: %w", err)
	}
	return nil
}

// t1Sums are the per-example sums of EuclideanT1 in reduced coordinates
// (label y° = L-1 eliminated): E_i = sum_y e_i(y), with e_i(y) = s_i(y) -
// s_i(y°), s_i(y) = delta . F(x_i, y) and n g_{i,y} = e_i(y); bg = n^2
// <b_j, g>; x2 = sum_i x_{ia}^2; gg = n^2 ||g||^2.
type t1Sums struct {
	E, bg, x2 []float64
	nb        []float64 // ||b_j||, set by t1BallBounds
	gg        float64
}

// t1Accumulate computes the sums of one pass over the examples of in.
func t1Accumulate(in *T1Input) t1Sums {
	c, L := in.Corpus, in.L
	n, A := c.Len(), c.NumUnary
	yo := L - 1
	sm := t1Sums{E: make([]float64, n), bg: make([]float64, A*L), x2: make([]float64, A)}
	e := make([]float64, L)
	xrow := make([]float64, A)
	touched := make([]int32, 0, 64)
	for i := 0; i < n; i++ {
		cols, vals := c.Unary.Row(i)
		clear(e)
		for k, a := range cols {
			v := val(vals, k)
			row := in.Delta[int(a)*L : int(a)*L+L]
			for y := range e {
				e[y] += v * row[y]
			}
		}
		so := e[yo]
		sum := 0.0
		for y := 0; y < yo; y++ {
			e[y] -= so
			sum += e[y]
			sm.gg += e[y] * e[y]
		}
		sm.E[i] = sum
		for k, a := range cols {
			v := val(vals, k)
			if xrow[a] == 0 {
				touched = append(touched, a)
			}
			xrow[a] += v
			row := sm.bg[int(a)*L : int(a)*L+L]
			for y := 0; y < yo; y++ {
				row[y] -= v * e[y]
			}
			row[yo] += v * sum
		}
		for _, a := range touched { // x_{ia} sums repeated entries
			sm.x2[a] += xrow[a] * xrow[a]
			xrow[a] = 0
		}
		touched = touched[:0]
	}
	return sm
}

// t1Ball is a ball that contains theta*: center theta_hat - kappa n g,
// radius r.
type t1Ball struct{ kappa, r float64 }

// t1Balls returns the balls opt asks for: the half ball (or the paper's
// ball) and, with a usable gap, the gap ball.
func t1Balls(gg, nf, gap float64, opt T1Options) []t1Ball {
	var balls []t1Ball
	ng := math.Sqrt(gg) // n ||g||
	if opt.PaperBall {
		balls = append(balls, t1Ball{1, ng})
	} else {
		balls = append(balls, t1Ball{0.5, ng / 2})
	}
	if !opt.NoGapBall && gap >= 0 && !math.IsInf(gap, 1) {
		balls = append(balls, t1Ball{0, math.Sqrt(2 * nf * gap)})
	}
	return balls
}

// t1BallBounds returns the ball-only bounds |m_j(center)| + r ||b_j||,
// the smallest over the balls, and leaves ||b_j|| in sm.nb.
func t1BallBounds(m []float64, sm *t1Sums, balls []t1Ball, n, L int) []float64 {
	nf := float64(n)
	A, yo := len(sm.x2), L-1
	inv2 := 1 / (nf * nf)
	bound := make([]float64, A*L)
	for j := range bound {
		bound[j] = math.Inf(1)
	}
	nb := make([]float64, A*L) // ||b_j||
	for a := 0; a < A; a++ {
		for y := 0; y < L; y++ {
			w := 1.0
			if y == yo {
				w = float64(L - 1)
			}
			nb[a*L+y] = math.Sqrt(sm.x2[a] * w * inv2)
		}
	}
	for _, bl := range balls {
		for j := range bound {
			mc := m[j] - bl.kappa*sm.bg[j]/nf
			bound[j] = min(bound[j], math.Abs(mc)+bl.r*nb[j])
		}
	}
	sm.nb = nb
	return bound
}

// t1HalfSpaces lowers bound by the half-spaces <1_k, theta> <= 1 of the
// examples ks, each cut with every ball.
func t1HalfSpaces(bound, m []float64, in *T1Input, sm *t1Sums, balls []t1Ball, ks []int) {
	if len(ks) == 0 {
		return
	}
	c, L := in.Corpus, in.L
	nf, A, yo := float64(c.Len()), c.NumUnary, L-1
	xk := make([]float64, A)
	pp := float64(L - 1)
	for _, k := range ks {
		cols, vals := c.Unary.Row(k)
		for q, a := range cols {
			xk[a] += val(vals, q)
		}
		for _, bl := range balls {
			pa0 := 1 - in.P[k*L+yo] - bl.kappa*sm.E[k]
			for a := 0; a < A; a++ {
				for y := 0; y < L; y++ {
					j := a*L + y
					pb := -xk[a] / nf
					if y == yo {
						pb = xk[a] * pp / nf
					}
					bb := sm.nb[j] * sm.nb[j]
					lo := minLinearBallHalfspaceDots(0, bb, pb, pa0, pp, bl.r, 1)
					hi := maxLinearBallHalfspaceDots(0, bb, pb, pa0, pp, bl.r, 1)
					if math.IsInf(lo, 0) || math.IsInf(hi, 0) {
						continue // empty in floating point: keep the ball bound
					}
					mc := m[j] - bl.kappa*sm.bg[j]/nf
					bound[j] = min(bound[j], max(mc+hi, -(mc+lo)))
				}
			}
		}
		for _, a := range cols {
			xk[a] = 0
		}
	}
}

// chooseK returns the examples whose half-spaces are tried.
func chooseK(n, K int, seed uint64) []int {
	if K <= 0 {
		return nil
	}
	if K >= n {
		ks := make([]int, n)
		for i := range ks {
			ks[i] = i
		}
		return ks
	}
	rng := rand.New(rand.NewPCG(seed, 0x5c4ee7))
	return rng.Perm(n)[:K]
}

// t1Gradient writes m_j = (1/n) sum_i x_{ia} ([y_i = y] - p_i(y)) into m.
func t1Gradient(m []float64, c *sparse.Corpus, P []float64, L int) {
	clear(m)
	n := c.Len()
	for i := 0; i < n; i++ {
		cols, vals := c.Unary.Row(i)
		gold := int(c.Labels[i])
		for k, a := range cols {
			v := val(vals, k)
			row := m[int(a)*L : int(a)*L+L]
			row[gold] += v
			for y := range row {
				row[y] -= v * P[i*L+y]
			}
		}
	}
	inv := 1 / float64(n)
	for j := range m {
		m[j] *= inv
	}
}

// DualResidual writes delta = w - wtilde into dst and returns dst[:len(w)],
// where wtilde = soft(m, beta)/(alpha beta) is the dual-implied primal point
// (section 2 of the note); this is the Delta of T1Input. It panics if the
// lengths differ.
func DualResidual(dst, w, m []float64, alpha, beta float64) []float64 {
	if len(w) != len(m) {
		panic("screen: DualResidual: len(w) != len(m)")
	}
	dst = resize(dst, len(w))
	ab := alpha * beta
	for j, v := range m {
		s := 0.0
		if a := math.Abs(v) - beta; a > 0 {
			s = math.Copysign(a, v) / ab
		}
		dst[j] = w[j] - s
	}
	return dst
}

// val returns the k-th value of a row, 1 for binary rows.
func val(vals []float64, k int) float64 {
	if vals == nil {
		return 1
	}
	return vals[k]
}
