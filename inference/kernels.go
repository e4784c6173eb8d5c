package inference

import "math"

// Kernels of the lattice recursions. Each has an AVX2 assembly version on
// amd64 (kernels_amd64.s, used when the CPU and OS support AVX2) and a Go
// version that performs the same floating-point operations in the same
// order, so both give the same bits and a model trained on any machine is
// the same. Products are written float64(a*b) so that no compiler fuses a
// multiply and an add into an FMA (the Go spec allows fusion otherwise, and
// arm64, ppc64, s390x and GOAMD64=v3 do it). A kernels value selects the
// assembly or the Go versions; a Workspace hands out its own
// (Workspace.kernels), so tests compare both on separate workspaces, in
// parallel if they like, with no package state to switch.
type kernels struct {
	asm bool // run the AVX2 assembly (only when haveAsm)
}

// Constants of expKernel. exp(x) = 2^k · exp(r) with k = round(x·log2 e)
// (by adding and subtracting 1.5·2^52), r = x - k·ln2Hi - k·ln2Lo (the
// Cody-Waite split of fdlibm: ln2Hi has 32 significant bits, so k·ln2Hi and
// x - k·ln2Hi are exact for |k| ≤ 2^11), exp(r) by its Taylor polynomial of
// degree 13 in Horner form (|r| ≤ 0.35: truncation below 5e-18), and 2^k
// built in the exponent bits as 2^(k+54) · 2^-54, so that results down to
// the subnormals are rounded once.
const (
	expClamp = -746.0 // below -745.14 exp rounds to 0
	expLog2e = 1.4426950408889634
	expMagic = 6755399441055744.0 // 1.5·2^52
	expLn2Hi = 6.93147180369123816490e-01
	expLn2Lo = 1.90821492927058770002e-10
	expBias  = 1023 + 54
	expTwoM  = 0x1p-54
)

// expCoef are the Taylor coefficients 1/13!, 1/12!, …, 1/1!, 1/0!.
var expCoef = [14]float64{
	1.0 / 6227020800, 1.0 / 479001600, 1.0 / 39916800, 1.0 / 3628800,
	1.0 / 362880, 1.0 / 40320, 1.0 / 5040, 1.0 / 720, 1.0 / 120, 1.0 / 24,
	1.0 / 6, 1.0 / 2, 1, 1,
}

// expTab holds the constants of expKernel, each repeated in 4 lanes, for
// the assembly: clamp, log2e, magic, ln2Hi, ln2Lo, 2^-54, bias (int64),
// then expCoef.
var expTab = makeExpTab()

func makeExpTab() (tab [21][4]uint64) {
	c := []float64{expClamp, expLog2e, expMagic, expLn2Hi, expLn2Lo, expTwoM}
	for i, v := range c {
		for j := range tab[i] {
			tab[i][j] = math.Float64bits(v)
		}
	}
	for j := range tab[6] {
		tab[6][j] = expBias
	}
	for i, v := range expCoef {
		for j := range tab[7+i] {
			tab[7+i][j] = math.Float64bits(v)
		}
	}
	return tab
}

// expKernel returns exp(x) for x ≤ 0 (and NaN for NaN), the Go version of
// the assembly's lanes. Its relative error against math.Exp is below 3e-16
// on [-708.39, 0] (TestExpAccuracy); below, the result is subnormal or 0
// and rounded once from an accurate value. -Inf gives 0 and 0 gives 1.
func expKernel(x float64) float64 {
	if x < expClamp { // false for NaN, like VMAXPD
		x = expClamp
	}
	t := float64(x*expLog2e) + expMagic
	k := t - expMagic
	r := x - float64(k*expLn2Hi)
	r -= float64(k * expLn2Lo)
	p := expCoef[0]
	for _, c := range expCoef[1:] {
		p = float64(p*r) + c
	}
	s := math.Float64frombits((math.Float64bits(t) + expBias) << 52)
	return float64(p*s) * expTwoM
}

// expShift sets x[i] = exp(x[i] - max) with expKernel.
func (k kernels) expShift(x []float64, max float64) {
	if k.asm && len(x) > 0 {
		expShiftAVX2(&x[0], len(x), max)
		return
	}
	for i, v := range x {
		x[i] = expKernel(v - max)
	}
}

// gemvT sets dst[c] = Σ_{p<n} x[p·xs] · a[p·as + c] for c < w, w a multiple
// of 4, summing over p in increasing order starting from +0. Rows of a may
// be shorter than w when a has room after its last row: the extra lanes are
// computed from whatever a holds there and must be ignored by the caller.
func (k kernels) gemvT(dst, x, a []float64, n, xs, as, w int) {
	if n == 0 {
		clear(dst[:w])
		return
	}
	_ = x[(n-1)*xs]
	_ = a[(n-1)*as+w-1]
	_ = dst[w-1]
	for c := 0; c < w; c += 32 {
		nv := min(8, (w-c)/4)
		if k.asm {
			gemvTAVX2(&dst[c], &x[0], &a[c], n, xs, as, nv)
		} else {
			gemvTGo(dst[c:c+4*nv], x, a[c:], n, xs, as)
		}
	}
}

// gemvTGo is gemvT on one block of columns dst[:len(dst)].
func gemvTGo(dst, x, a []float64, n, xs, as int) {
	clear(dst)
	for p := 0; p < n; p++ {
		xp := x[p*xs]
		row := a[p*as : p*as+len(dst)]
		for c, v := range row {
			dst[c] += float64(xp * v)
		}
	}
}

// maxPlusT sets m[c] = max_{p<n} (prev[p] + a[p·as + c]) and arg[c] = the
// lowest p attaining it (strict comparison), for c < w (w a multiple of 4);
// (-Inf, 0) when every sum is -Inf. Rows of a may be shorter than w, as in
// gemvT. arg holds the labels as float64.
func (k kernels) maxPlusT(m, arg, prev, a []float64, n, as, w int) {
	_ = prev[n-1]
	_ = a[(n-1)*as+w-1]
	_, _ = m[w-1], arg[w-1]
	for c := 0; c < w; c += 24 {
		nv := min(6, (w-c)/4)
		if k.asm {
			maxPlusAVX2(&m[c], &arg[c], &prev[0], &a[c], n, as, nv)
		} else {
			maxPlusGo(m[c:c+4*nv], arg[c:c+4*nv], prev[:n], a[c:], as)
		}
	}
}

// maxPlusGo is maxPlusT on one block of columns m[:len(m)].
func maxPlusGo(m, arg, prev, a []float64, as int) {
	arg = arg[:len(m)]
	for c := range m {
		m[c], arg[c] = negInf, 0
	}
	for p, v := range prev {
		row := a[p*as : p*as+len(m)]
		for c, x := range row {
			if s := v + x; s > m[c] {
				m[c], arg[c] = s, float64(p)
			}
		}
	}
}

// pad4 rounds L up to a multiple of 4.
func pad4(L int) int { return (L + 3) &^ 3 }

// maxMin returns the maximum of x and the minimum of its entries above
// -Inf (-Inf and +Inf for none), skipping NaN. A zero result is +0 (each
// result has +0 added), so that the order of the comparisons, which decides
// between -0 and +0, does not show.
func (k kernels) maxMin(x []float64) (max, min float64) {
	if k.asm && len(x) > 0 {
		return maxMinAVX2(&x[0], len(x))
	}
	max, min = negInf, posInf
	for _, v := range x {
		if v > max {
			max = v
		}
		if v < min && v > negInf {
			min = v
		}
	}
	return max + 0, min + 0
}

// normRow sets x[i] = x[i]·e[i], s = Σ x[i], x[i] *= 1/s, and reports
// whether some x[i] is positive and below floor (or negative). The sum runs
// in 4 lanes, lane j adding the entries i ≡ j mod 4 in increasing order
// from +0, and s = (lane0 + lane1) + (lane2 + lane3).
func (k kernels) normRow(x, e []float64, floor float64) (s, inv float64, low bool) {
	e = e[:len(x)]
	if k.asm && len(x) > 0 {
		return normRowAVX2(&x[0], &e[0], len(x), floor)
	}
	var acc [4]float64
	for i, v := range x {
		v = float64(v * e[i])
		x[i] = v
		acc[i&3] += v
	}
	s = (acc[0] + acc[1]) + (acc[2] + acc[3])
	inv = 1 / s
	for i, v := range x {
		v *= inv
		if v < floor && v != 0 {
			low = true
		}
		x[i] = v
	}
	return s, inv, low
}
