package inference

import "fmt"

// Viterbi writes a highest-scoring label sequence of lat into path[:T] and
// returns its score. It panics if len(path) < T. For T = 0 it returns 0 and
// leaves path alone. It uses ws only as scratch (growing it as needed) and
// does not disturb the results of the last ForwardBackward.
//
// Ties go to the lowest label index, as in CRFsuite's crf1dc_viterbi (strict
// comparisons): the last label is the lowest-indexed maximiser, and each back
// pointer is the lowest-indexed maximising predecessor. Equivalently, among
// all optimal sequences Viterbi returns the smallest one when sequences are
// compared from the last position backwards (y_{T-1} first, then y_{T-2},
// …). If every sequence scores -Inf, the path is all zeros and the score is
// -Inf.
//
// The scores are summed in the order used by Score, so ties between
// sequences of small-integer scores are exact.
func Viterbi(ws *Workspace, lat *Lattice, path []int) float64 {
	lat.check()
	if ws == nil {
		panic("inference: nil Workspace")
	}
	T, L := lat.T, lat.L
	if len(path) < T {
		panic(fmt.Sprintf("inference: len(path) = %d < T = %d", len(path), T))
	}
	if T == 0 {
		return 0
	}
	ws.Reserve(T, L)
	prev := unaryRow(ws.row[:L], lat, 0)
	cur := ws.row[L : 2*L]
	Lp := pad4(L)
	m := ws.row[2*L : 2*L+Lp]
	arg := ws.row[2*L+Lp : 2*L+2*Lp]
	// A copy of the transition block with slack after it, for maxPlusT.
	A := ws.etmp
	if lat.TransAt == nil && T > 1 {
		copy(A, ws.transBlock(lat, 1))
	}
	for t := 1; t < T; t++ {
		if lat.TransAt != nil {
			copy(A, ws.transBlock(lat, t))
		}
		ws.kernels().maxPlusT(m, arg, prev, A, L, L, Lp)
		back := ws.back[t*L : t*L+L]
		back = back[:len(cur)]
		u := lat.Unary[t*L : t*L+L]
		u = u[:len(cur)]
		for c := range cur {
			cur[c] = m[c] + u[c]
			back[c] = int32(arg[c])
		}
		if t == T-1 && lat.End != nil {
			en := lat.End[:len(cur)]
			for c := range cur {
				cur[c] += en[c]
			}
		}
		prev, cur = cur, prev
	}
	best := 0
	for y := 1; y < L; y++ {
		if prev[y] > prev[best] {
			best = y
		}
	}
	if prev[best] == negInf {
		// Every sequence is forbidden: they all tie at -Inf. (The back
		// pointers may point to finite prefixes that a -Inf unary score
		// killed afterwards, so they do not give the all-zero path.)
		clear(path[:T])
		return negInf
	}
	path[T-1] = best
	for t := T - 1; t >= 1; t-- {
		path[t-1] = int(ws.back[t*L+path[t]])
	}
	return prev[best]
}

// transpose writes the transpose of the L×L matrix a into dst.
func transpose(dst, a []float64, L int) {
	for p := 0; p < L; p++ {
		row := a[p*L : p*L+L]
		for c, v := range row {
			dst[c*L+p] = v
		}
	}
}

// MaxMin returns the largest and the smallest score(y) over all label
// sequences y of lat, by max-sum and min-sum dynamic programming. A -Inf
// score anywhere on some sequence makes min = -Inf. For T = 0 it returns
// (0, 0). It uses ws only as scratch and does not disturb the results of the
// last ForwardBackward.
func MaxMin(ws *Workspace, lat *Lattice) (max, min float64) {
	lat.check()
	if ws == nil {
		panic("inference: nil Workspace")
	}
	T, L := lat.T, lat.L
	if T == 0 {
		return 0, 0
	}
	ws.Reserve(T, L)
	hiPrev := unaryRow(ws.row[:L], lat, 0)
	loPrev := ws.row[L : 2*L]
	copy(loPrev, hiPrev)
	hiCur := ws.row[2*L : 3*L]
	loCur := ws.row[3*L : 4*L]
	for t := 1; t < T; t++ {
		A := ws.transBlock(lat, t)
		hiCur = hiCur[:len(hiPrev)]
		loCur = loCur[:len(hiPrev)]
		for c := range hiCur {
			hiCur[c] = negInf
			loCur[c] = posInf
		}
		lo := loPrev[:len(hiPrev)]
		for p, hv := range hiPrev {
			lv := lo[p]
			row := A[p*L : p*L+L]
			row = row[:len(hiCur)]
			for c, a := range row {
				if x := hv + a; x > hiCur[c] {
					hiCur[c] = x
				}
				if x := lv + a; x < loCur[c] {
					loCur[c] = x
				}
			}
		}
		u := unaryRow(ws.tmp[:L], lat, t) // transBlock's ws.tmp is no longer needed
		u = u[:len(hiCur)]
		for c := range hiCur {
			hiCur[c] += u[c]
			loCur[c] += u[c]
		}
		hiPrev, hiCur = hiCur, hiPrev
		loPrev, loCur = loCur, loPrev
	}
	max, min = negInf, posInf
	for y, v := range hiPrev {
		if v > max {
			max = v
		}
		if w := loPrev[y]; w < min {
			min = w
		}
	}
	return max, min
}
