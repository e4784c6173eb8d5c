package inference

import (
	"bytes"
	"fmt"
	"math"
	"unsafe"
)

// Guards of the exp-space path (see ForwardBackward).
const (
	// maxStepRange bounds range(unary row t with Start/End) +
	// range(transition block t), over finite scores, for one step of the
	// exp-space recursion. Every exp factor is then at least e^-300.
	maxStepRange = 300
	// alphaFloor is the smallest positive normalised forward value the
	// exp-space path accepts. With maxStepRange it keeps every product of
	// the recursion above ~1e-271, far from underflow.
	alphaFloor = 1e-140
)

// ForwardBackward computes log Z of lat and its node and edge marginals
// into ws, and returns log Z. Node, EdgeSum, EdgeAt, ExpectedScore and
// Entropy then read the results, which stay valid until the next
// ForwardBackward on ws (Viterbi and MaxMin do not disturb them). ws grows as
// needed. For T = 0, log Z = 0. If no label sequence has a finite score, log
// Z = -Inf and all marginals are zero.
//
// # Algorithm
//
// The fast path is the scaled exp-space forward-backward of CRFsuite
// (crf1dc_alpha_score, crf1dc_beta_score): each unary row and each
// transition block is exponentiated once after subtracting its maximum, the
// forward vector is normalised to sum 1 at each position, and
//
//	log Z = Σ_t (log s_t + max_y u_t(y)) + Σ_{t≥1} max A_t,
//
// where s_t is the normaliser of position t, u_t the unary row (with Start
// at t = 0 and End at t = T-1) and A_t = Trans + TransAt[t]. The inner loops
// are T·L² multiply-adds with no exp. exp(Trans) and its transpose are
// cached in ws and reused while the contents of Trans do not change
// (training calls ForwardBackward for many sequences with the same Trans);
// with TransAt, each block is exponentiated once per call.
//
// The exps, the products α̃_t = (eA_tᵀ α̃_{t-1}) ⊙ eu_t, β̃_{t-1} = eA_t w_t
// and the edge sums, the row sums and the normalisation run on the kernels
// of this package (see the package doc): AVX2 assembly on amd64 when the
// CPU has it, else Go code with the same operations in the same order, so
// the results are the same bits either way. The exp is within 1 ulp of the
// exact value (not of math.Exp, from which it differs by up to 4e-16
// relative); each product is summed over the predecessor (or successor, or
// position) index in increasing order, and s_t in 4 interleaved lanes.
//
// That path loses the dominant label sequence when a factor underflows. It
// is used only when, at every position, the range of the finite unary
// scores plus the range of the finite transition scores is at most 300, and
// every positive normalised forward value stays above 1e-140 (a forward
// value can shrink below that only when -Inf scores separate label
// sequences). Otherwise ForwardBackward falls back to a log-space
// (log-sum-exp) forward-backward, which is exact at any scale and costs
// about 2·T·L² exps.
func ForwardBackward(ws *Workspace, lat *Lattice) float64 {
	return ws.forwardBackward(lat, nil)
}

// ForwardBackwardTo is ForwardBackward with the node marginals written to
// node[:T*L] instead of ws's own buffer; Node then returns node[:T*L]
// until the next ForwardBackward or ForwardBackwardTo on ws. A caller that
// keeps the marginals of every position (a training pass over a corpus)
// saves a copy per sequence. node must hold at least T*L entries and must
// not overlap the lattice's slices; ExpectedScore and Entropy read it, so
// it must not change before they are called.
func ForwardBackwardTo(ws *Workspace, lat *Lattice, node []float64) float64 {
	lat.check()
	if n := lat.T * lat.L; len(node) < n {
		panic(fmt.Sprintf("inference: ForwardBackwardTo: node holds %d entries, the lattice needs %d", len(node), n))
	}
	return ws.forwardBackward(lat, node[:lat.T*lat.L])
}

// forwardBackward is ForwardBackward with the node marginals in out (nil:
// ws's own buffer).
func (ws *Workspace) forwardBackward(lat *Lattice, out []float64) float64 {
	lat.check()
	if ws == nil {
		panic("inference: nil Workspace")
	}
	T, L := lat.T, lat.L
	ws.Reserve(T, L)
	ws.ready, ws.fbT, ws.fbL = true, T, L
	ws.out = out
	if T == 0 {
		ws.zeroEdge(T, L)
		ws.logZ, ws.logSpace = 0, false
		return 0
	}
	if !ws.forceLog && ws.forwardExp(lat) {
		ws.logSpace = false
		ws.backwardExp(lat)
	} else {
		ws.logSpace = true
		ws.forwardBackwardLog(lat)
	}
	return ws.logZ
}

// unaryRow writes u_t = Unary[t] (+ Start if t = 0) (+ End if t = T-1) into
// dst[:L] and returns dst[:L].
func unaryRow(dst []float64, lat *Lattice, t int) []float64 {
	L := lat.L
	u := lat.Unary[t*L : t*L+L]
	dst = dst[:len(u)]
	copy(dst, u)
	if t == 0 && lat.Start != nil {
		st := lat.Start[:len(dst)]
		for y := range dst {
			dst[y] += st[y]
		}
	}
	if t == lat.T-1 && lat.End != nil {
		en := lat.End[:len(dst)]
		for y := range dst {
			dst[y] += en[y]
		}
	}
	return dst
}

// expInPlace replaces x by exp(x - max x) (expShift: AVX2 or Go, same
// bits) and returns max x and the range of the finite entries. ok is false
// when no entry is finite (or x holds NaN).
func (k kernels) expInPlace(x []float64) (max, rng float64, ok bool) {
	max, min := k.maxMin(x)
	if max == negInf || math.IsInf(max, 1) {
		return 0, 0, false
	}
	k.expShift(x, max)
	return max, max - min, true
}

// transBlock returns A_t = Trans + TransAt[t] in log space (t ≥ 1). It may
// return lat.Trans, a block of lat.TransAt, ws.zeros or ws.tmp.
func (ws *Workspace) transBlock(lat *Lattice, t int) []float64 {
	LL := lat.L * lat.L
	if lat.TransAt == nil {
		if lat.Trans == nil {
			return ws.zeros[:LL]
		}
		return lat.Trans
	}
	at := lat.TransAt[t*LL : t*LL+LL]
	if lat.Trans == nil {
		return at
	}
	dst := ws.tmp[:len(at)]
	tr := lat.Trans[:len(at)]
	for i := range dst {
		dst[i] = tr[i] + at[i]
	}
	return dst
}

// expTrans makes ws.eTrans = exp(Trans - max Trans) for lattices without
// TransAt, reusing the cached values when Trans has not changed. It reports
// false when no transition is finite.
func (ws *Workspace) expTrans(trans []float64, L int) bool {
	LL := L * L
	if ws.transOK && ws.transL == L && ws.transNil == (trans == nil) {
		if trans == nil || equal(trans, ws.transCopy[:LL]) {
			return true
		}
	}
	ws.transOK = false
	e := ws.eTrans[:LL]
	if trans == nil {
		for i := range e {
			e[i] = 1
		}
		ws.transMax, ws.transRange = 0, 0
	} else {
		copy(e, trans)
		m, r, ok := ws.kernels().expInPlace(e)
		if !ok {
			return false
		}
		copy(ws.transCopy[:LL], trans)
		ws.transMax, ws.transRange = m, r
	}
	transpose(ws.eTransT, e, L)
	ws.transOK, ws.transNil, ws.transL = true, trans == nil, L
	return true
}

// equal reports whether a and b[:len(a)] hold the same bits. It compares
// memory (runtime memequal, SIMD: 4x faster than a float loop at L = 26,
// and run once per sequence). Bitwise is conservative for the cache: a -0
// that replaced a +0 reads as a change and is recomputed, and a NaN that
// stayed a NaN is reused (its exp is NaN either way).
func equal(a, b []float64) bool {
	b = b[:len(a)]
	return bytes.Equal(floatBytes(a), floatBytes(b))
}

// floatBytes views x as its bytes (read only).
func floatBytes(x []float64) []byte {
	if len(x) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&x[0])), len(x)*8)
}

// expBlock returns the exp-space transition block of position t ≥ 1 (the
// slice runs on to the end of its buffer, so the kernels may read past the
// block's last row), its maximum and its range, computing it into ws.eAt
// when lat has TransAt.
func (ws *Workspace) expBlock(lat *Lattice, t int) (e []float64, max, rng float64, ok bool) {
	LL := lat.L * lat.L
	if lat.TransAt == nil {
		return ws.eTrans, ws.transMax, ws.transRange, true
	}
	e = ws.eAt[t*LL : t*LL+LL]
	at := lat.TransAt[t*LL : t*LL+LL]
	if lat.Trans == nil {
		copy(e, at)
	} else {
		tr := lat.Trans[:len(e)]
		at = at[:len(e)]
		for i := range e {
			e[i] = tr[i] + at[i]
		}
	}
	max, rng, ok = ws.kernels().expInPlace(e)
	return ws.eAt[t*LL:], max, rng, ok
}

// forwardExp runs the scaled exp-space forward pass. It reports false when a
// guard fails; the caller then uses the log-space path.
func (ws *Workspace) forwardExp(lat *Lattice) bool {
	T, L := lat.T, lat.L
	if T > 1 {
		if lat.TransAt == nil {
			if !ws.expTrans(lat.Trans, L) {
				return false
			}
		} else {
			ws.eAt = grow(ws.eAt, T*L*L+slack)
		}
	}
	logZ := 0.0
	k := ws.kernels()
	for t := 0; t < T; t++ {
		eu := unaryRow(ws.eu[t*L:t*L+L], lat, t)
		m, r, ok := k.expInPlace(eu)
		if !ok {
			return false
		}
		cur := ws.alpha[t*L : t*L+L]
		if t == 0 {
			if r > maxStepRange {
				return false
			}
			for c := range cur {
				cur[c] = 1 // normRow multiplies by eu
			}
		} else {
			eA, M, rA, ok := ws.expBlock(lat, t) // eA runs to the end of its buffer
			if !ok || r+rA > maxStepRange {
				return false
			}
			// cur = eA^T prev, summed over p in increasing order. The
			// kernel writes pad4(L) entries: the rest land in the next
			// row (or the slack after the last), which comes later.
			prev := ws.alpha[(t-1)*L : t*L]
			k.gemvT(ws.alpha[t*L:], prev, eA, L, 1, L, pad4(L))
			logZ += M
		}
		s, inv, low := k.normRow(cur, eu, alphaFloor)
		if !(s > 0) || math.IsInf(s, 1) || low {
			return false
		}
		ws.scale[t] = inv
		logZ += math.Log(s) + m
	}
	ws.logZ = logZ
	return true
}

// backwardExp runs the scaled exp-space backward pass after forwardExp and
// accumulates the node and edge marginals:
//
//	β̃_{T-1}(y) = 1,  β̃_{t-1}(p) = Σ_c eA_t(p,c) eu_t(c) β̃_t(c) / s_t,
//	P(y_t=y) = α̃_t(y) β̃_t(y),
//	P(y_{t-1}=p, y_t=c) = α̃_{t-1}(p) eA_t(p,c) eu_t(c) β̃_t(c) / s_t.
//
// β̃ is set to zero where α̃ is zero: such labels are unreachable from the
// start, take part in no sequence of positive probability, and their β̃
// could otherwise overflow and turn 0·Inf into NaN. Without TransAt the
// work is in backwardShared; with it, one backStepAt per position.
func (ws *Workspace) backwardExp(lat *Lattice) {
	T, L := lat.T, lat.L
	edge := ws.zeroEdge(T, L)
	aLast := ws.alpha[(T-1)*L : T*L]
	bLast := ws.beta[(T-1)*L : T*L]
	bLast = bLast[:len(aLast)]
	for y, a := range aLast {
		if a > 0 {
			bLast[y] = 1
		} else {
			bLast[y] = 0
		}
	}
	if lat.TransAt == nil {
		ws.backwardShared(T, L, edge)
	} else {
		w := ws.row[:L]
		for t := T - 1; t >= 1; t-- {
			ws.weights(w, t)
			prevA := ws.alpha[(t-1)*L : t*L]
			prevB := ws.beta[(t-1)*L : t*L]
			backStepAt(prevB, prevA, ws.cachedBlock(lat, t), w, edge)
		}
	}
	node := ws.nodes()
	alpha := ws.alpha[:len(node)]
	beta := ws.beta[:len(node)]
	for i := range node {
		node[i] = alpha[i] * beta[i]
	}
}

// backwardShared is the backward recursion of backwardExp when every
// position shares the transition block eA = ws.eTrans:
// β̃_{t-1} = eA w_t = Σ_c w_t(c) eAᵀ(c, ·) (gemvT on the cached transpose;
// zero where α̃_{t-1} is zero). The edge sums Σ_t α̃_{t-1}(p) w_t(c) are then
// one product over all positions, row p at a time (gemvT over t with stride
// L in α̃, summed in increasing t), multiplied by eA at the end. The kernels
// write pad4(L) entries per call: ws.row holds them, and the extra entries
// of an edge row land in the next row, written afterwards (or in the
// slack).
func (ws *Workspace) backwardShared(T, L int, edge []float64) {
	Lp := pad4(L)
	tmp := ws.row[:Lp]
	k := ws.kernels()
	for t := T - 1; t >= 1; t-- {
		w := ws.wbuf[t*L : t*L+L]
		ws.weights(w, t)
		k.gemvT(tmp, w, ws.eTransT, L, 1, L, Lp)
		prevA := ws.alpha[(t-1)*L : t*L]
		prevB := ws.beta[(t-1)*L : t*L]
		prevB = prevB[:len(prevA)]
		for p, a := range prevA {
			if a == 0 {
				prevB[p] = 0
			} else {
				prevB[p] = tmp[p]
			}
		}
	}
	if T < 2 {
		return
	}
	edgeAll := ws.edge[:cap(ws.edge)]
	for p := 0; p < L; p++ {
		k.gemvT(edgeAll[p*L:], ws.alpha[p:], ws.wbuf[L:], T-1, L, L, Lp)
	}
	eA := ws.eTrans[:len(edge)]
	for i := range edge {
		edge[i] *= eA[i]
	}
}

// backStepAt is one step of backwardExp with the transition block eA of
// this position: β̃_{t-1}(p) = Σ_c eA(p,c) w(c) and edge(p,c) +=
// α̃_{t-1}(p) eA(p,c) w(c), skipping labels with α̃_{t-1} = 0.
func backStepAt(prevB, prevA, eA, w, edge []float64) {
	L := len(w)
	prevB = prevB[:len(prevA)]
	for p, a := range prevA {
		if a == 0 {
			prevB[p] = 0
			continue
		}
		row := eA[p*L : p*L+L]
		w := w[:len(row)]
		e := edge[p*L : p*L+L]
		e = e[:len(row)]
		s := 0.0
		for c, x := range row {
			v := x * w[c]
			s += v
			e[c] += float64(a * v) // rounded before the add: no fused multiply-add on any machine
		}
		prevB[p] = s
	}
}

// cachedBlock returns the exp-space transition block of position t computed
// by the last forwardExp.
func (ws *Workspace) cachedBlock(lat *Lattice, t int) []float64 {
	LL := lat.L * lat.L
	if lat.TransAt == nil {
		return ws.eTrans[:LL]
	}
	return ws.eAt[t*LL : t*LL+LL]
}

// weights sets w[c] = eu_t(c) β̃_t(c) / s_t (exp-space path).
func (ws *Workspace) weights(w []float64, t int) {
	L := len(w)
	b := ws.beta[t*L : t*L+L]
	eu := ws.eu[t*L : t*L+L]
	inv := ws.scale[t]
	b = b[:len(w)]
	eu = eu[:len(w)]
	for c := range w {
		w[c] = eu[c] * b[c] * inv
	}
}

// logSumExp returns log Σ exp(x), -Inf when x is empty or all -Inf.
func logSumExp(x []float64) float64 {
	m := negInf
	for _, v := range x {
		if v > m {
			m = v
		}
	}
	if m == negInf || math.IsInf(m, 1) {
		return m
	}
	s := 0.0
	for _, v := range x {
		s += math.Exp(v - m)
	}
	return m + math.Log(s)
}

// forwardBackwardLog is the log-space forward-backward, normalised at each
// position so that its values stay of the order of the local score ranges
// (an unnormalised log α grows like t·|score| and loses digits):
//
//	ã_0(y) = u_0(y) - d_0,
//	ã_t(c) = u_t(c) + LSE_p (ã_{t-1}(p) + A_t(p,c)) - d_t,
//	b̃_{T-1}(y) = 0,  b̃_{t-1}(p) = LSE_c (A_t(p,c) + u_t(c) + b̃_t(c)) - d_t,
//
// where d_t makes LSE(ã_t) = 0. Then log Z = Σ_t d_t, P(y_t=y) = exp(ã_t(y) +
// b̃_t(y)) and P(y_{t-1}=p, y_t=c) = exp(ã_{t-1}(p) + A_t(p,c) + u_t(c) +
// b̃_t(c) - d_t). ws.scale[t] holds d_t.
func (ws *Workspace) forwardBackwardLog(lat *Lattice) {
	T, L := lat.T, lat.L
	for t := 0; t < T; t++ {
		unaryRow(ws.eu[t*L:t*L+L], lat, t)
	}
	node := ws.nodes()
	edge := ws.zeroEdge(T, L)
	if !ws.forwardLog(lat) {
		clear(node)
		return
	}
	ws.backwardLog(lat, edge)
	alpha := ws.alpha[:len(node)]
	beta := ws.beta[:len(node)]
	for i := range node {
		node[i] = math.Exp(alpha[i] + beta[i])
	}
}

// forwardLog runs the log-space forward pass over the unary rows in ws.eu,
// normalising each position (ws.scale) and setting ws.logZ. It reports
// false when log Z is -Inf or NaN (no label sequence has a finite score).
func (ws *Workspace) forwardLog(lat *Lattice) bool {
	T, L := lat.T, lat.L
	la := ws.alpha
	logZ := 0.0
	for t := 0; t < T; t++ {
		cur := la[t*L : t*L+L]
		u := ws.eu[t*L : t*L+L]
		if t == 0 {
			copy(cur, u)
		} else {
			A := ws.transBlock(lat, t)
			prev := la[(t-1)*L : t*L]
			for c := range cur {
				m := negInf
				for p, a := range prev {
					if v := a + A[p*L+c]; v > m {
						m = v
					}
				}
				if m == negInf {
					cur[c] = negInf
					continue
				}
				s := 0.0
				for p, a := range prev {
					s += math.Exp(a + A[p*L+c] - m)
				}
				cur[c] = u[c] + m + math.Log(s)
			}
		}
		d := logSumExp(cur)
		if d == negInf || math.IsNaN(d) {
			ws.logZ = d
			return false
		}
		for c := range cur {
			cur[c] -= d
		}
		ws.scale[t] = d
		logZ += d
	}
	ws.logZ = logZ
	return true
}

// backwardLog runs the log-space backward pass after forwardLog and adds
// the edge marginals into edge.
func (ws *Workspace) backwardLog(lat *Lattice, edge []float64) {
	T, L := lat.T, lat.L
	la, lb := ws.alpha, ws.beta
	clear(lb[(T-1)*L : T*L])
	x := ws.row[:L]
	for t := T - 1; t >= 1; t-- {
		A := ws.transBlock(lat, t)
		u := ws.eu[t*L : t*L+L]
		b := lb[t*L : t*L+L]
		d := ws.scale[t]
		prevA := la[(t-1)*L : t*L]
		prevB := lb[(t-1)*L : t*L]
		for p := range prevB {
			Ar := A[p*L : p*L+L]
			x := x[:len(Ar)]
			m := negInf
			for c, a := range Ar {
				v := a + u[c] + b[c]
				x[c] = v
				if v > m {
					m = v
				}
			}
			if m == negInf {
				prevB[p] = negInf
				continue
			}
			s := 0.0
			for c, v := range x {
				e := math.Exp(v - m)
				x[c] = e
				s += e
			}
			prevB[p] = m + math.Log(s) - d
			// The edge marginal is exp(ã_{t-1}(p) + m - d_t) · x[c]; the
			// first factor is at most 1 since m - d_t ≤ b̃_{t-1}(p).
			if prevA[p] == negInf {
				continue
			}
			f := math.Exp(prevA[p] + m - d)
			if f == 0 {
				continue
			}
			e := edge[p*L : p*L+L]
			e = e[:len(x)]
			for c, v := range x {
				e[c] += f * v
			}
		}
	}
}

// EdgeAt writes the L×L pairwise marginals of position t (1 ≤ t < T) of the
// last ForwardBackward, P(y_{t-1}=prev, y_t=cur) at [prev*L+cur], into
// dst[:L*L] and returns that slice. dst is reused if its capacity is at
// least L*L (its previous contents are overwritten), else a new slice is
// allocated, so buf = ws.EdgeAt(buf, lat, t) allocates at most once.
//
// lat must be the lattice of the last ForwardBackward on ws, unchanged.
// EdgeAt costs L² multiplications on the exp-space path and L² exps on the
// log-space path.
func (ws *Workspace) EdgeAt(dst []float64, lat *Lattice, t int) []float64 {
	ws.checkFB(lat)
	if t < 1 || t >= lat.T {
		panic(fmt.Sprintf("inference: EdgeAt position %d out of range [1, %d)", t, lat.T))
	}
	n := lat.L * lat.L
	if cap(dst) < n {
		dst = make([]float64, n)
	}
	dst = dst[:n]
	ws.edgeAt(dst, lat, t)
	return dst
}

// EdgeProb returns the pairwise marginal P(y_{t-1}=prev, y_t=cur) of
// position t (1 ≤ t < T) of the last ForwardBackward: the entry
// [prev*L+cur] of EdgeAt, in O(1) instead of O(L²), for callers that need
// a few entries (the marginal of one label path, as for span
// confidences). It performs the operations of EdgeAt for that entry, in
// the same order, so both give the same bits.
//
// lat must be the lattice of the last ForwardBackward on ws, unchanged.
// It panics if t or a label is out of range.
func (ws *Workspace) EdgeProb(lat *Lattice, t, prev, cur int) float64 {
	ws.checkFB(lat)
	L := lat.L
	if t < 1 || t >= lat.T {
		panic(fmt.Sprintf("inference: EdgeProb position %d out of range [1, %d)", t, lat.T))
	}
	checkLabel(prev, L)
	checkLabel(cur, L)
	if ws.logZ == negInf {
		return 0
	}
	a := ws.alpha[(t-1)*L+prev]
	if !ws.logSpace {
		if a == 0 {
			return 0
		}
		w := ws.eu[t*L+cur] * ws.beta[t*L+cur] * ws.scale[t]
		return a * (ws.cachedBlock(lat, t)[prev*L+cur] * w)
	}
	if a == negInf {
		return 0
	}
	k := prev*L + cur
	var A float64
	switch {
	case lat.TransAt == nil && lat.Trans != nil:
		A = lat.Trans[k]
	case lat.TransAt != nil && lat.Trans == nil:
		A = lat.TransAt[t*L*L+k]
	case lat.TransAt != nil:
		A = lat.Trans[k] + lat.TransAt[t*L*L+k]
	}
	return math.Exp(a + A + ws.eu[t*L+cur] + ws.beta[t*L+cur] - ws.scale[t])
}

// edgeAt writes the edge marginals of position t into dst[:L*L].
func (ws *Workspace) edgeAt(dst []float64, lat *Lattice, t int) {
	L := lat.L
	prevA := ws.alpha[(t-1)*L : t*L]
	if ws.logZ == negInf {
		clear(dst)
		return
	}
	if !ws.logSpace {
		eA := ws.cachedBlock(lat, t)
		w := ws.row[:L]
		ws.weights(w, t)
		for p, a := range prevA {
			r := dst[p*L : p*L+L]
			if a == 0 {
				clear(r)
				continue
			}
			row := eA[p*L : p*L+L]
			row = row[:len(r)]
			w := w[:len(r)]
			for c := range r {
				r[c] = a * (row[c] * w[c])
			}
		}
		return
	}
	A := ws.transBlock(lat, t)
	u := ws.eu[t*L : t*L+L]
	b := ws.beta[t*L : t*L+L]
	d := ws.scale[t]
	for p, a := range prevA {
		r := dst[p*L : p*L+L]
		if a == negInf {
			clear(r)
			continue
		}
		Ar := A[p*L : p*L+L]
		Ar = Ar[:len(r)]
		u := u[:len(r)]
		b := b[:len(r)]
		for c := range r {
			r[c] = math.Exp(a + Ar[c] + u[c] + b[c] - d)
		}
	}
}

// ExpectedScore returns E_p[score(y)] under the distribution of the last
// ForwardBackward on ws, which must have run on lat (unchanged). Terms of
// zero probability are skipped, so -Inf scores do not give NaN. It returns
// 0 for T = 0 and -Inf when no label sequence has a finite score.
func ExpectedScore(ws *Workspace, lat *Lattice) float64 {
	ws.checkFB(lat)
	T, L := lat.T, lat.L
	if T == 0 {
		return 0
	}
	if ws.logZ == negInf {
		return negInf
	}
	node := ws.nodes()
	e := 0.0
	for i, p := range node {
		if p != 0 {
			e += p * lat.Unary[i]
		}
	}
	if lat.Start != nil {
		for y, p := range node[:L] {
			if p != 0 {
				e += p * lat.Start[y]
			}
		}
	}
	if lat.End != nil {
		for y, p := range node[(T-1)*L:] {
			if p != 0 {
				e += p * lat.End[y]
			}
		}
	}
	LL := L * L
	if lat.Trans != nil {
		for i, p := range ws.edge[:LL] {
			if p != 0 {
				e += p * lat.Trans[i]
			}
		}
	}
	if lat.TransAt != nil {
		buf := ws.etmp[:LL]
		for t := 1; t < T; t++ {
			ws.edgeAt(buf, lat, t)
			at := lat.TransAt[t*LL : t*LL+LL]
			at = at[:len(buf)]
			for i, p := range buf {
				if p != 0 {
					e += p * at[i]
				}
			}
		}
	}
	return e
}

// Entropy returns the entropy H(p) = log Z - E_p[score(y)] of the
// distribution of the last ForwardBackward on ws, which must have run on lat
// (unchanged). Rounding can make the difference slightly negative for a
// near-deterministic distribution; it is then clamped to 0. Entropy is 0 for
// T = 0 and when no label sequence has a finite score. The absolute error
// grows with |log Z| (about 1e-16·|log Z| per term).
func Entropy(ws *Workspace, lat *Lattice) float64 {
	e := ExpectedScore(ws, lat)
	if ws.logZ == negInf || lat.T == 0 {
		return 0
	}
	h := ws.logZ - e
	if h < 0 {
		h = 0
	}
	return h
}
