package screen

import (
	"errors"
	"math"
	"math/rand/v2"

	"github.com/sparsetag/sparsetag/sparse"
)

// bruteCRF is an explicit CRF: every label sequence of every training sequence
// is enumerated and its global feature vector F(x_i, y) is built densely, from
// the definitions of sparse.Layout, independently of the code under test.
type bruteCRF struct {
	lay    sparse.Layout // Transitions is ignored: transition features always exist
	corpus *sparse.Corpus
	n, d   int
	feats  [][][]float64 // feats[i][k] = F(x_i, y_k), k over all L^T_i sequences
	gold   []int         // index k of the gold sequence of example i
	paths  [][][]int     // paths[i][k] = y_k
}

// enumerate returns all label sequences of length T over L labels.
func enumerate(T, L int) [][]int {
	out := [][]int{{}}
	for t := 0; t < T; t++ {
		var next [][]int
		for _, p := range out {
			for y := 0; y < L; y++ {
				q := append(append([]int(nil), p...), y)
				next = append(next, q)
			}
		}
		out = next
	}
	return out
}

// featureVector builds F(x_i, y) from the definitions.
func (b *bruteCRF) featureVector(i int, y []int) []float64 {
	lay, c := b.lay, b.corpus
	f := make([]float64, lay.Dim())
	lo := int(c.SeqPtr[i])
	for t, yt := range y {
		cols, vals := c.Unary.Row(lo + t)
		for k, a := range cols {
			v := 1.0
			if vals != nil {
				v = vals[k]
			}
			f[lay.StateIndex(int(a), yt)] += v
		}
		if t == 0 {
			continue
		}
		f[lay.TransIndex(y[t-1], yt)]++
		if lay.NumPair > 0 && c.Pair.Rows() > 0 {
			cols, vals := c.Pair.Row(lo + t)
			for k, a := range cols {
				v := 1.0
				if vals != nil {
					v = vals[k]
				}
				f[lay.PairIndex(int(a), y[t-1], yt)] += v
			}
		}
	}
	return f
}

// build enumerates the label sequences of every example of b.corpus.
func (b *bruteCRF) build() {
	c := b.corpus
	b.n = c.Len()
	b.d = b.lay.Dim()
	b.feats = make([][][]float64, b.n)
	b.paths = make([][][]int, b.n)
	b.gold = make([]int, b.n)
	for i := 0; i < b.n; i++ {
		lo, T := c.Span(i)
		b.paths[i] = enumerate(T, b.lay.L)
		for k, y := range b.paths[i] {
			b.feats[i] = append(b.feats[i], b.featureVector(i, y))
			if c.Labels != nil {
				same := true
				for t := range y {
					if int(c.Labels[lo+t]) != y[t] {
						same = false
					}
				}
				if same {
					b.gold[i] = k
				}
			}
		}
	}
}

// state is everything the brute force knows at one point w.
type state struct {
	p       [][]float64 // p[i][k] = p_w(y_k | x_i)
	logZ    []float64
	m       []float64 // -grad L(w)
	nll     float64   // L(w), average
	entropy float64   // (1/n) sum_i H(p_i)
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

func (b *bruteCRF) eval(w []float64) state {
	var s state
	s.m = make([]float64, b.d)
	s.p = make([][]float64, b.n)
	s.logZ = make([]float64, b.n)
	for i := 0; i < b.n; i++ {
		sc := make([]float64, len(b.feats[i]))
		mx := math.Inf(-1)
		for k, f := range b.feats[i] {
			sc[k] = dot(w, f)
			mx = max(mx, sc[k])
		}
		z := 0.0
		for _, v := range sc {
			z += math.Exp(v - mx)
		}
		lz := mx + math.Log(z)
		s.logZ[i] = lz
		p := make([]float64, len(sc))
		h := 0.0
		for k, v := range sc {
			p[k] = math.Exp(v - lz)
			if p[k] > 0 {
				h -= p[k] * (v - lz)
			}
		}
		s.p[i] = p
		s.entropy += h
		s.nll += lz - sc[b.gold[i]]
		for j, v := range b.feats[i][b.gold[i]] {
			s.m[j] += v
		}
		for k, f := range b.feats[i] {
			for j, v := range f {
				s.m[j] -= p[k] * v
			}
		}
	}
	inv := 1 / float64(b.n)
	for j := range s.m {
		s.m[j] *= inv
	}
	s.nll *= inv
	s.entropy *= inv
	return s
}

// primal is P(w) = L(w) + beta*(alpha/2 ||w||^2 + ||w||_1), by definition.
func (b *bruteCRF) primal(w []float64, s state, alpha, beta float64) float64 {
	r := 0.0
	for _, v := range w {
		r += alpha/2*v*v + math.Abs(v)
	}
	return s.nll + beta*r
}

// dual is D(p_w) = ||soft(m, beta)||^2/(2 alpha beta) - (1/n) sum_i H(p_i).
func dual(s state, alpha, beta float64) float64 {
	q := 0.0
	for _, v := range s.m {
		if e := math.Abs(v) - beta; e > 0 {
			q += e * e
		}
	}
	return q/(2*alpha*beta) - s.entropy
}

// rnorm returns sqrt(sum_i ((max_y F_j - min_y F_j)/2)^2) by enumeration.
func (b *bruteCRF) rnorm() []float64 {
	out := make([]float64, b.d)
	for i := 0; i < b.n; i++ {
		for j := 0; j < b.d; j++ {
			lo, hi := math.Inf(1), math.Inf(-1)
			for _, f := range b.feats[i] {
				lo = min(lo, f[j])
				hi = max(hi, f[j])
			}
			h := (hi - lo) / 2
			out[j] += h * h
		}
	}
	for j := range out {
		out[j] = math.Sqrt(out[j])
	}
	return out
}

// randomCorpus builds n sequences of lengths in [minT, maxT] with unary
// attributes (some binary, some real of mixed sign, sometimes repeated within
// a row) and, if numPair > 0, pair attributes. Labels are left nil.
func randomCorpus(rng *rand.Rand, n, minT, maxT, numAttrs, numPair int, real bool) *sparse.Corpus {
	c := &sparse.Corpus{NumUnary: numAttrs, NumPair: numPair}
	for i := 0; i < n; i++ {
		T := minT + rng.IntN(maxT-minT+1)
		unary := make([][]int32, T)
		var uval [][]float64
		var pair [][]int32
		var pval [][]float64
		if real {
			uval = make([][]float64, T)
		}
		if numPair > 0 {
			pair = make([][]int32, T)
			if real {
				pval = make([][]float64, T)
			}
		}
		for t := 0; t < T; t++ {
			for a := 0; a < numAttrs; a++ {
				if rng.Float64() < 0.4 {
					unary[t] = append(unary[t], int32(a))
					if real {
						uval[t] = append(uval[t], rng.NormFloat64())
					}
				}
			}
			if rng.Float64() < 0.2 && numAttrs > 0 { // a repeated attribute
				unary[t] = append(unary[t], int32(rng.IntN(numAttrs)))
				if real {
					uval[t] = append(uval[t], rng.NormFloat64())
				}
			}
			for a := 0; a < numPair; a++ {
				if rng.Float64() < 0.6 {
					pair[t] = append(pair[t], int32(a))
					if real {
						pval[t] = append(pval[t], rng.NormFloat64())
					}
				}
			}
			if numPair > 0 && rng.Float64() < 0.2 {
				pair[t] = append(pair[t], int32(rng.IntN(numPair)))
				if real {
					pval[t] = append(pval[t], rng.NormFloat64())
				}
			}
		}
		c.AppendSequence(unary, uval, pair, pval, nil)
	}
	return c
}

// plantLabels samples gold labels from a CRF with sparse random weights.
func plantLabels(rng *rand.Rand, b *bruteCRF) {
	c := b.corpus
	b.n = c.Len()
	b.d = b.lay.Dim()
	c.Labels = make([]int32, c.Positions())
	w := make([]float64, b.d)
	for j := range w {
		if rng.Float64() < 0.3 {
			w[j] = 1.5 * rng.NormFloat64()
		}
	}
	for i := 0; i < b.n; i++ {
		lo, T := c.Span(i)
		paths := enumerate(T, b.lay.L)
		sc := make([]float64, len(paths))
		mx := math.Inf(-1)
		for k, y := range paths {
			sc[k] = dot(w, b.featureVector(i, y))
			mx = max(mx, sc[k])
		}
		z := 0.0
		for k := range sc {
			sc[k] = math.Exp(sc[k] - mx)
			z += sc[k]
		}
		u := rng.Float64() * z
		k := 0
		for ; k < len(sc)-1; k++ {
			u -= sc[k]
			if u <= 0 {
				break
			}
		}
		for t, y := range paths[k] {
			c.Labels[lo+t] = int32(y)
		}
	}
}

// newBrute returns a random labelled brute-force problem.
func newBrute(rng *rand.Rand, n, minT, maxT, L, numAttrs, numPair int, real bool) *bruteCRF {
	c := randomCorpus(rng, n, minT, maxT, numAttrs, numPair, real)
	b := &bruteCRF{lay: sparse.Layout{NumUnary: numAttrs, L: L, NumPair: numPair, Transitions: true}, corpus: c}
	plantLabels(rng, b)
	b.build()
	return b
}

// solve minimises P by FISTA with backtracking and adaptive restart (on the
// enumerated objective) from w0 until Gap < tol or maxIter iterations. It
// returns w and its gap.
func (b *bruteCRF) solve(w0 []float64, alpha, beta, tol float64, maxIter int) ([]float64, float64) {
	ab := alpha * beta
	smooth := func(w []float64) (float64, []float64, state) {
		s := b.eval(w)
		g := make([]float64, b.d)
		f := s.nll
		for j := range g {
			g[j] = -s.m[j] + ab*w[j]
			f += ab / 2 * w[j] * w[j]
		}
		return f, g, s
	}
	prox := func(dst, v []float64, step float64) {
		for j, x := range v {
			a := math.Abs(x) - step*beta
			if a > 0 {
				dst[j] = math.Copysign(a, x)
			} else {
				dst[j] = 0
			}
		}
	}
	w := append([]float64(nil), w0...)
	z := append([]float64(nil), w...)
	tk := 1.0
	lip := 1.0
	next := make([]float64, b.d)
	v := make([]float64, b.d)
	gap := math.Inf(1)
	objW := math.Inf(1)
	for it := 0; it < maxIter; it++ {
		fz, gz, _ := smooth(z)
		for {
			for j := range v {
				v[j] = z[j] - gz[j]/lip
			}
			prox(next, v, 1/lip)
			fn, _, _ := smooth(next)
			q := fz
			for j := range next {
				dj := next[j] - z[j]
				q += gz[j]*dj + lip/2*dj*dj
			}
			if fn <= q+1e-15*math.Abs(q) {
				break
			}
			lip *= 2
		}
		s := b.eval(next)
		obj := b.primal(next, s, alpha, beta)
		gap = Gap(next, s.m, alpha, beta)
		if obj > objW { // adaptive restart
			tk = 1
			copy(z, w)
			continue
		}
		objW = obj
		tn := (1 + math.Sqrt(1+4*tk*tk)) / 2
		for j := range z {
			z[j] = next[j] + (tk-1)/tn*(next[j]-w[j])
		}
		copy(w, next)
		tk = tn
		if gap < tol {
			break
		}
		lip /= 1.5
	}
	s := b.eval(w)
	return w, Gap(w, s.m, alpha, beta)
}

// solveTight runs FISTA to a moderate gap, then Newton steps on the support
// with fixed signs (exact Hessian by enumeration), as in recipe 2 of the
// note's section 8. It returns w* and its gap.
func (b *bruteCRF) solveTight(alpha, beta float64) ([]float64, float64) {
	w, g := b.solve(make([]float64, b.d), alpha, beta, 1e-10, 20000)
	ab := alpha * beta
	for it := 0; it < 8 && g > 0; it++ {
		var sup []int
		for j, v := range w {
			if v != 0 {
				sup = append(sup, j)
			}
		}
		s := b.eval(w)
		k := len(sup)
		h := make([]float64, k*k)
		grad := make([]float64, k)
		for i := range b.feats {
			mean := make([]float64, k)
			for kk, f := range b.feats[i] {
				for a, j := range sup {
					mean[a] += s.p[i][kk] * f[j]
				}
			}
			for kk, f := range b.feats[i] {
				p := s.p[i][kk]
				for a, ja := range sup {
					da := f[ja] - mean[a]
					for c, jc := range sup {
						h[a*k+c] += p * da * (f[jc] - mean[c])
					}
				}
			}
		}
		for a, j := range sup {
			for c := range sup {
				h[a*k+c] /= float64(b.n)
			}
			h[a*k+a] += ab
			grad[a] = -s.m[j] + ab*w[j] + beta*math.Copysign(1, w[j])
		}
		step := solveLinear(h, grad, k)
		next := append([]float64(nil), w...)
		for a, j := range sup {
			next[j] -= step[a]
			if next[j]*w[j] <= 0 { // sign change: stop polishing
				return w, g
			}
		}
		sn := b.eval(next)
		gn := Gap(next, sn.m, alpha, beta)
		if !(gn < g) {
			break
		}
		w, g = next, gn
	}
	return w, g
}

// solveLinear solves the k x k system h x = r by Gaussian elimination with
// partial pivoting (h and r are overwritten).
func solveLinear(h, r []float64, k int) []float64 {
	for c := 0; c < k; c++ {
		p := c
		for i := c + 1; i < k; i++ {
			if math.Abs(h[i*k+c]) > math.Abs(h[p*k+c]) {
				p = i
			}
		}
		for j := 0; j < k; j++ {
			h[c*k+j], h[p*k+j] = h[p*k+j], h[c*k+j]
		}
		r[c], r[p] = r[p], r[c]
		for i := c + 1; i < k; i++ {
			f := h[i*k+c] / h[c*k+c]
			for j := c; j < k; j++ {
				h[i*k+j] -= f * h[c*k+j]
			}
			r[i] -= f * r[c]
		}
	}
	x := make([]float64, k)
	for i := k - 1; i >= 0; i-- {
		s := r[i]
		for j := i + 1; j < k; j++ {
			s -= h[i*k+j] * x[j]
		}
		x[i] = s / h[i*k+i]
	}
	return x
}

// uniformGradient writes m(0) = -grad L(0) = (1/n) sum_i (F(x_i,y_i) -
// E_unif[F(x_i,Y)]) into dst[:lay.Dim()] and returns it, using the
// closed-form uniform expectations of section 2 of the note (E[F_(a,l)] =
// (1/L) sum_t x_{t,a}, E[F_(l,l')] = (T-1)/L^2, E[F_(a,l,l')] = (1/L^2)
// sum_{t>=1} x_{t,a}). BetaMax(uniformGradient(...)) is beta_max. It assumes
// no forbidden transitions and that the transition features exist; it
// returns an error if the corpus has no labels or does not fit the layout.
// The trainer gets m(0) from its own forward-backward pass; the tests use
// this closed form to check BetaMax against the enumeration.
func uniformGradient(dst []float64, lay sparse.Layout, c *sparse.Corpus) ([]float64, error) {
	if err := checkLayout(lay, c); err != nil {
		return dst, err
	}
	if c.Labels == nil {
		return dst, errors.New("screen: uniformGradient needs gold labels")
	}
	dst = resize(dst, lay.Dim())
	clear(dst)
	n := c.Len()
	if n == 0 {
		return dst, nil
	}
	L := lay.L
	invL := 1 / float64(L)
	invL2 := invL * invL
	for i := 0; i < n; i++ {
		lo, hi := int(c.SeqPtr[i]), int(c.SeqPtr[i+1])
		if hi == lo {
			continue
		}
		for r := lo; r < hi; r++ {
			y := int(c.Labels[r])
			cols, vals := c.Unary.Row(r)
			for k, a := range cols {
				v := 1.0
				if vals != nil {
					v = vals[k]
				}
				row := dst[lay.StateIndex(int(a), 0):lay.StateIndex(int(a)+1, 0)]
				row[y] += v
				for q := range row {
					row[q] -= v * invL
				}
			}
			if r == lo {
				continue
			}
			prev := int(c.Labels[r-1])
			dst[lay.TransIndex(prev, y)]++
			if c.Pair.Rows() > 0 && lay.NumPair > 0 {
				cols, vals := c.Pair.Row(r)
				for k, a := range cols {
					v := 1.0
					if vals != nil {
						v = vals[k]
					}
					blk := dst[lay.PairIndex(int(a), 0, 0):lay.PairIndex(int(a)+1, 0, 0)]
					blk[prev*L+y] += v
					for q := range blk {
						blk[q] -= v * invL2
					}
				}
			}
		}
		tr := dst[lay.TransOffset():lay.PairOffset()]
		for q := range tr {
			tr[q] -= float64(hi-lo-1) * invL2
		}
	}
	inv := 1 / float64(n)
	for j := range dst {
		dst[j] *= inv
	}
	return dst, nil
}
