package inference

import "fmt"

// NBestWorkspace holds the scratch memory of NBest. Its buffers grow by
// capacity and never shrink, so a warm NBestWorkspace makes NBest
// allocation-free. The zero value is ready to use. It is not safe for
// concurrent use: give each goroutine its own.
type NBestWorkspace struct {
	// For position t, label c and rank k < n, entry e = (t*L+c)*n+k holds
	// the k-th best score of a partial sequence y_0..y_t with y_t = c, and
	// the label and rank of its prefix at t-1 (from, rank).
	score []float64
	from  []int32
	rank  []int32
	count []int32   // T×L: number of entries of each list
	head  []int32   // L: merge pointers
	cand  []float64 // 2L: merge candidates and transition column
}

// Reserve makes sure nw has room for lattices of up to T positions and L
// labels and n sequences.
func (nw *NBestWorkspace) Reserve(T, L, n int) {
	if T < 0 || L < 0 || n < 0 {
		panic(fmt.Sprintf("inference: NBestWorkspace.Reserve(%d, %d, %d): negative size", T, L, n))
	}
	TLn := T * L * n
	nw.score = grow(nw.score, TLn)
	nw.from = growInt32(nw.from, TLn)
	nw.rank = growInt32(nw.rank, TLn)
	nw.count = growInt32(nw.count, T*L)
	nw.head = growInt32(nw.head, L)
	nw.cand = grow(nw.cand, 2*L)
}

func growInt32(s []int32, n int) []int32 {
	if cap(s) < n {
		return make([]int32, n)
	}
	return s[:cap(s)]
}

// NBest finds the n highest-scoring label sequences of lat (list Viterbi:
// every (position, label) keeps its n best partial sequences, merged from
// the predecessors' lists in O(T·L²·n) time and T·L·n memory). It writes
// the k-th best sequence into paths[k][:T] and its score into scores[k],
// and returns paths[:k] and scores[:k] for the number k ≤ n of sequences
// found. Both are append-style: their capacity (and the capacity of each
// paths[k]) is reused, so with a warm nw and large enough slices NBest
// does not allocate. The results must not alias each other.
//
// Only sequences with a score above -Inf are returned: k is less than n
// when fewer sequences are allowed, and 0 when none is. For T = 0 the one
// empty sequence is returned (score 0) if n ≥ 1.
//
// Order: decreasing score; ties are broken as in Viterbi, extended to all
// ranks: of two sequences with equal scores, the one that is smaller when
// compared from the last position backwards (y_{T-1} first, then y_{T-2},
// …) comes first. So paths[0] is the Viterbi path. Scores are summed in the
// order used by Score, so ties between sequences of small-integer scores
// are exact.
func NBest(nw *NBestWorkspace, lat *Lattice, n int, paths [][]int, scores []float64) ([][]int, []float64) {
	lat.check()
	if nw == nil {
		panic("inference: nil NBestWorkspace")
	}
	paths, scores = paths[:0], scores[:0]
	if n <= 0 {
		return paths, scores
	}
	T, L := lat.T, lat.L
	if T == 0 {
		return appendPath(paths, 0), append(scores, 0)
	}
	nw.Reserve(T, L, n)
	nw.first(lat, n)
	for t := 1; t < T; t++ {
		nw.advance(lat, t, n)
	}
	return nw.collect(lat, n, paths, scores)
}

// first fills the lists of position 0: one entry per label, its unary plus
// start score, or an empty list where that score is -Inf.
func (nw *NBestWorkspace) first(lat *Lattice, n int) {
	for c := 0; c < lat.L; c++ {
		s := lat.Unary[c]
		if lat.Start != nil {
			s += lat.Start[c]
		}
		e := c * n
		nw.score[e], nw.from[e], nw.rank[e] = s, -1, 0
		nw.count[c] = 1
		if s == negInf {
			nw.count[c] = 0
		}
	}
}

// advance fills the lists of every label c at position t ≥ 1, each with
// its n best entries (fewer if fewer have a score above -Inf), merged from
// the lists of position t-1. For each c, cand[p] starts as the score of
// the head of list p plus the transition score acol[p] of p → c (-Inf for
// an empty list); each step takes the best head, adds the unary score of
// (t, c) and advances that list.
//
// One loop nest rather than a function per label: split that way, NBest
// took about 13% more CPU time at n = 1 (BenchmarkNBest).
func (nw *NBestWorkspace) advance(lat *Lattice, t, n int) {
	L := lat.L
	LL := L * L
	head := nw.head[:L]
	cand := nw.cand[:L]      // cand[p]: score of the head of list p plus acol[p]
	acol := nw.cand[L : 2*L] // acol[p]: the transition score p → c
	for c := 0; c < L; c++ {
		clear(head)
		for p := range cand {
			kk := p*L + c
			var a float64
			switch {
			case lat.TransAt != nil && lat.Trans != nil:
				a = lat.Trans[kk] + lat.TransAt[t*LL+kk]
			case lat.TransAt != nil:
				a = lat.TransAt[t*LL+kk]
			case lat.Trans != nil:
				a = lat.Trans[kk]
			}
			acol[p] = a
			cand[p] = negInf
			if nw.count[(t-1)*L+p] > 0 {
				cand[p] = nw.score[((t-1)*L+p)*n] + a
			}
		}
		u := lat.Unary[t*L+c]
		out := (t*L + c) * n
		k := 0
		for ; k < n; k++ {
			// Best head among the predecessors' lists: highest score,
			// then lowest predecessor label (strict >); within one list
			// the lower rank comes first.
			best, bp := negInf, -1
			for p, s := range cand {
				if s > best {
					best, bp = s, p
				}
			}
			if bp < 0 {
				break
			}
			best += u
			if best == negInf {
				// u = -Inf: every candidate is forbidden.
				break
			}
			h := head[bp]
			nw.score[out+k], nw.from[out+k], nw.rank[out+k] = best, int32(bp), h
			h++
			head[bp] = h
			// Advance list bp: its next entry plus the same transition.
			prevList := ((t-1)*L + bp) * n
			if h < nw.count[(t-1)*L+bp] {
				cand[bp] = nw.score[prevList+int(h)] + acol[bp]
			} else {
				cand[bp] = negInf
			}
		}
		nw.count[t*L+c] = int32(k)
	}
}

// collect merges the lists of the last position, with the end scores, into
// the n best sequences (highest score, then lowest last label, then lowest
// rank), follows each back to position 0, and appends it to paths and its
// score to scores.
func (nw *NBestWorkspace) collect(lat *Lattice, n int, paths [][]int, scores []float64) ([][]int, []float64) {
	T, L := lat.T, lat.L
	head := nw.head[:L]
	clear(head)
	last := (T - 1) * L
	for k := 0; k < n; k++ {
		best, bc := negInf, -1
		for c := 0; c < L; c++ {
			h := head[c]
			if h >= nw.count[last+c] {
				continue
			}
			s := nw.score[(last+c)*n+int(h)]
			if lat.End != nil {
				s += lat.End[c]
			}
			if s > best {
				best, bc = s, c
			}
		}
		if bc < 0 {
			break
		}
		paths = appendPath(paths, T)
		path := paths[len(paths)-1]
		scores = append(scores, best)
		y, r := bc, head[bc]
		head[bc]++
		for t := T - 1; t >= 0; t-- {
			path[t] = y
			e := (t*L+y)*n + int(r)
			y, r = int(nw.from[e]), nw.rank[e]
		}
	}
	return paths, scores
}

// appendPath extends paths by one slice of length T, reusing the capacity
// of paths and of the slice already there.
func appendPath(paths [][]int, T int) [][]int {
	k := len(paths)
	if k < cap(paths) {
		paths = paths[:k+1]
		if cap(paths[k]) >= T {
			paths[k] = paths[k][:T]
			return paths
		}
		paths[k] = make([]int, T)
		return paths
	}
	return append(paths, make([]int, T))
}
