package warmstart

import (
	"context"
	"math"
	"math/rand/v2"
	"time"
	"unsafe"

	"gonum.org/v1/gonum/floats"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/inference"
	"github.com/sparsetag/sparsetag/internal/lattice"
	"github.com/sparsetag/sparsetag/sparse"
	"github.com/sparsetag/sparsetag/train/internal/blocksum"
	"github.com/sparsetag/sparsetag/train/internal/l1clip"
	"github.com/sparsetag/sparsetag/train/objective"
)

// The stochastic warm start: a few epochs of SGD with
// the cumulative L1 penalty of Tsuruoka, Tsujii and Ananiadou
// ["Stochastic gradient descent training for L1-regularized log-linear
// models with cumulative penalty", ACL 2009] from w = 0, whose result is
// the starting point of the solver loop.
//
// Step k (k = 0, 1, ...) visits one sequence i, in a fixed pseudo-random
// order (a new permutation every epoch, from a fixed seed), with the step
// size eta_k = eta0 / (1 + k/n). The average-form objective is
// P(w) = (1/n) sum_i NLL_i(w) + l2/2 ||w||^2 + l1 ||w||_1, so
// NLL_i(w) + l2/2 ||w||^2 + l1 ||w||_1 is an unbiased estimate of P(w)
// (times 1, not n: in the sum form n P, one sequence's share of the
// penalties C2 ||w||^2 + C1 ||w||_1 is 1/n of them). Step k is, on every
// feature j,
//
//	w_j <- (1 - eta_k l2) w_j - eta_k g_j          g = grad NLL_i(w), zero off sequence i
//	U   <- (1 - eta_k l2) U + eta_k l1             total L1 penalty so far
//	q_j <- (1 - eta_k l2) q_j                      L1 penalty applied to w_j so far
//	ApplyPenalty(j): z = w_j;
//	  w_j > 0: w_j <- max(0, w_j - (U + q_j));  w_j < 0: w_j <- min(0, w_j + (U - q_j));
//	  q_j <- q_j + w_j - z
//
// (Tsuruoka et al.'s Figure 2, with the L2 term's shrinking of w also
// applied to the penalty records, whose units are those of w). Over an
// epoch the penalty applied in total is about l1 sum_k eta_k, that is n l1
// = C1 per unit step: the sum-form penalty once per epoch.
//
// Lazily, no step costs O(d): w = a v with a global scale a (the L2 term
// multiplies a by 1 - eta_k l2), U and q are kept in the units of v (u =
// U/a, so u grows by eta_k l1 / a), and a feature off sequence i is
// brought up to date only when a later sequence uses it: ApplyPenalty with
// the penalty accumulated since its last visit, which equals the same
// clip applied at every step in between (a weight off the sequence moves
// only by the penalty). Step k therefore (1) brings the features of
// sequence i up to date, (2) scores the sequence and runs forward-backward
// at w = a v, (3) shrinks a and grows u, (4) on each feature of i sets
// v_j -= eta_k g_j / a and applies the penalty. It costs O(features of
// the sequence x L) plus the forward-backward; only when a falls below
// sgdMinScale does an O(d) rescale fold a into v and q.
//
// The catch-up (1) and the descent (4) were most of the cost: a step of
// CoNLL-2000 touches 343 attribute blocks of 22 weights on average, every
// weight twice, in two arrays of 20 MB: three quarters of the warm
// start's CPU, against a sixth for scoring, forward-backward and the
// gradient. Their arithmetic is now package l1clip's AVX2 kernel (the
// same bits as the Go loop; the descent one pass over its block), which
// took the warm start from 2.1-2.5 s to 1.3-1.4 s of CPU (docs/setup.md,
// which also has what was tried: a step over a
// batch of sequences at one point pays them once per distinct attribute
// of the batch, but its start costs the solver far more iterations; the
// catch-up and the descent over chunks of attributes on two goroutines
// made the whole run slower).
//
// eta0 is calibrated as CRFsuite's l2sgd does (train_l2sgd.c,
// l2sgd_calibration): one epoch from zero over a sample of the sequences
// per candidate, the candidates going up by a factor of 2 from
// sgdEtaStart while the sample objective improves, then down; the best
// one wins.
//
// Features outside the model's feature set (Options.ObservedPairs) and
// those the static range rule removes (zero at the optimum whatever the
// point) stay at zero, and attributes all of whose features do are not
// scored.
//
// Memory: v and q hold the unfrozen state features (compact, attribute by
// attribute, in the order of the unscreened features u) and every feature
// after the state block (dense): 16 B x (unscreened state features +
// transitions + pair features), the state blocks padded by at most an
// eighth (padStarts). The starting point handed to the solver
// loop is the list of its non-zero features (Point). The sequences'
// attribute lists (attrlist.go) take 4 B per row entry, 8 B per distinct
// attribute of a sequence (its block start too) and 4 B per pair
// attribute (at most MaxListed entries). The rest is
// O(attributes) (two int32 slots per unary attribute, one per pair
// attribute) and O(longest sequence x L^2).
//
// Round six (docs/setup.md) made an epoch cheaper without changing a bit:
// the lists replace the per-step dedup of the rows; each step prefetches
// the next step's blocks (package prefetch) during its scoring and
// gradient instead of touching its own blocks before the catch-up; the
// per-position sums of the scoring and the gradient run in package
// blocksum's kernel; a calibration trial clears and sums the blocks of
// its sample only; and blocks of 16 weights or more start on a cache line.

// Calibration and numerical constants of the warm start.
const (
	sgdSeed        = 0x5eed5eed // the permutations' seed
	sgdSample      = 500        // sequences of the calibration sample (CRFsuite: 1000; see calibrate)
	sgdEtaStart    = 0.1        // first calibration candidate (CRFsuite: 0.1)
	sgdEtaRate     = 2          // factor between candidates (CRFsuite: 2)
	sgdMaxTrials   = 8          // calibration epochs at most
	sgdMaxL2Shrink = 0.5        // eta_k l2 is capped here: a never more than halves per step
	sgdMinScale    = 1e-9       // the scale a below which v and q are rescaled (sgd.minScale)
)

// Info describes a warm start (train.Result.Warm).
type Info struct {
	Epochs  int     `json:"epochs"`  // epochs run (fewer than asked when interrupted)
	Eta0    float64 `json:"eta0"`    // calibrated initial step size
	Trials  int     `json:"trials"`  // calibration epochs over the sample
	Loss    float64 `json:"loss"`    // average NLL over the steps of the last epoch, at the points visited
	Seconds float64 `json:"seconds"` // wall time, calibration included
	// Discarded says the result was not finite (the solver loop started
	// from zero instead).
	Discarded bool `json:"discarded,omitempty"`
}

// sgd is the state of the warm start; see the comment above.
type sgd struct {
	m *chain.Model
	c *sparse.Corpus // the corpus, or with dense blocks the current sequence expanded (one)
	// full is the corpus when it has dense blocks (nil otherwise): each
	// step expands its sequence into one (bounded memory, sparse rows).
	full   *sparse.Corpus
	one    sparse.Corpus
	rows   sparse.RowBuffer
	l1, l2 float64       // the average-form penalty
	weight []float64     // sequence weights (nil: unit)
	frozen sparse.Bitset // features kept at zero (nil: none)
	partP  []bool        // pair attributes some (not all) of whose features are frozen
	partT  bool          // some transitions are frozen

	// The layout of v and q: the unfrozen state features of attribute a
	// at [sptr[a], sptr[a+1]), the features feat[sptr[a]:sptr[a+1]]
	// (increasing, so labels feat[r] - a L); then the features after the
	// state block, dense from ns.
	feat []int32
	sptr []int32
	ns   int
	// vpos[a] is where the block of attribute a starts in v and q (its
	// sptr[a+1] - sptr[a] weights; padding up to vpos[a+1] holds +0):
	// blocks of 16 weights or more start at a multiple of 8 when that
	// costs at most an eighth of their size (padStarts), so that a block
	// of 22 takes 3 cache lines instead of 3 or 4. ns = vpos[NumUnary].
	vpos []int32

	v, q []float64 // w = a v; q: L1 penalty applied to each v_j so far (units of v)
	a, u float64   // the scale and the total L1 penalty so far (units of v)
	// minScale is the scale a below which v and q are rescaled:
	// sgdMinScale, or larger in a test that forces rescales.
	minScale float64

	// Scratch of one step. attrs (pairs) are the live unary (pair)
	// attributes of the current sequence, each once; gU, gP and gT are the
	// gradient of its NLL on the state features of attrs, the pair
	// features of pairs and the transitions. sl holds the slots of the
	// dedup (sl.slotP those of pairs during a step).
	sl           slots
	attrs, pairs []int32
	// lists are the sequences' attribute lists made in advance (attrlist.go).
	lists attrLists
	// prefetched says the blocks of the current step's attributes were
	// prefetched during the previous step (catchUp then does not touch
	// them); pf prefetches the next step's.
	prefetched bool
	pf         prefetcher
	// touched (increasing; nil: all) lists the unary attributes whose
	// blocks may be non-zero during the calibration (forLive).
	touched []int32
	// loc holds the slot of every entry of the current sequence's unary
	// rows (-1: dead), from lists or locBuf; blo the start of the block of
	// each attribute of attrs in v, -1 when some of its labels are frozen.
	loc, locBuf, blo, bloBuf []int32
	rb                       rowBlocks // the blocks of one position for package blocksum
	gU, gP, gT               []float64
	trans, edge              []float64
	scr                      lattice.Scratch
	ws                       *inference.Workspace
}

// newSGD returns the warm start's state at w = 0 for the layout of m on c
// with penalty pen; frozen (nil: none) are features kept at zero, and
// free the others (increasing). Its blocks are padded (padStarts).
func newSGD(m *chain.Model, c *sparse.Corpus, l1, l2 float64, frozen sparse.Bitset, free []int32) *sgd {
	return newSGDPadded(m, c, l1, l2, frozen, free, true)
}

// newSGDPadded is newSGD, with the blocks padded or not.
func newSGDPadded(m *chain.Model, c *sparse.Corpus, l1, l2 float64, frozen sparse.Bitset, free []int32, pad bool) *sgd {
	L := m.NumLabels()
	sptr := objective.AttrStarts(nil, free, m.Layout.NumUnary, L)
	vpos := padStarts(sptr, pad)
	ns := int(vpos[m.Layout.NumUnary])
	n := ns + len(m.W) - m.Layout.StateLen()
	s := &sgd{m: m, c: c, l1: l1, l2: l2, frozen: frozen, a: 1, minScale: sgdMinScale, feat: free[:sptr[m.Layout.NumUnary]], ns: ns,
		sptr: sptr, vpos: vpos, v: alignedFloats(n), q: alignedFloats(n),
		gT: make([]float64, L*L), trans: make([]float64, L*L), edge: make([]float64, L*L),
		ws: inference.NewWorkspace(c.MaxLen(), L)}
	if c.HasDense() {
		s.full = c
	}
	deadU := make([]bool, m.Layout.NumUnary)
	for a := range deadU {
		deadU[a] = sptr[a] == sptr[a+1]
	}
	deadP, partP := frozenBlocks(frozen, m.Layout.PairOffset(), m.Layout.NumPair, L*L)
	s.sl, s.partP = newSlots(deadU, deadP), partP
	_, partT := frozenBlocks(frozen, m.Layout.TransOffset(), 1, L*L)
	s.partT = partT[0]
	return s
}

// frozenBlocks returns, for count consecutive blocks of size features
// from off, whether every feature of the block is frozen (dead) and
// whether some but not all are (partial).
func frozenBlocks(frozen sparse.Bitset, off, count, size int) (dead, partial []bool) {
	dead, partial = make([]bool, count), make([]bool, count)
	if frozen == nil {
		return dead, partial
	}
	for b := range dead {
		n := 0
		for j := off + b*size; j < off+(b+1)*size; j++ {
			if frozen.Has(j) {
				n++
			}
		}
		dead[b], partial[b] = n == size, n > 0 && n < size
	}
	return dead, partial
}

// reset returns the state to w = 0 (O(d), or O(blocks of touched)).
func (s *sgd) reset() {
	s.forLive(func(lo, hi int) {
		clear(s.v[lo:hi])
		clear(s.q[lo:hi])
	})
	s.a, s.u = 1, 0
}

// forLive calls f on increasing disjoint ranges of v outside which every
// weight and penalty record is +0: the blocks of the unary attributes of
// touched and the features after the state block, or all of v when
// touched is nil.
func (s *sgd) forLive(f func(lo, hi int)) {
	if s.touched == nil {
		f(0, len(s.v))
		return
	}
	for _, a := range s.touched {
		f(int(s.vpos[a]), int(s.vpos[a+1]))
	}
	f(s.ns, len(s.v))
}

// step runs step k on sequence i with step size eta and returns NLL_i at
// the point before the step; next is the sequence of step k+1 (-1: not
// known), whose blocks it prefetches when next is listed.
func (s *sgd) step(i, next int, eta float64) float64 {
	j := s.sequence(i)
	s.collect(i, j)
	s.catchUp()
	s.pf = prefetcher{v: s.v, q: s.q, n: s.m.NumLabels()}
	if next >= 0 && s.lists.listed(next) {
		s.pf.list = s.lists.blos(next)
	}
	start, T := s.c.Span(j)
	// Half the next blocks during the scoring, half during the gradient, a
	// share after each position (docs/setup.md, round six).
	per := (len(s.pf.list) + 2*T - 1) / max(1, 2*T)
	lat := s.score(j, per)
	logZ := inference.ForwardBackward(s.ws, lat)
	nll := logZ - objective.GoldScore(lat, s.c.Labels[start:start+T])
	s.gradient(j, lat, per)
	s.shrink(eta)
	if s.weight == nil {
		s.descend(eta / s.a)
	} else {
		// The weighted objective's sample term s_i NLL_i: its gradient is
		// s_i g (the penalty's share of a step does not change).
		nll *= s.weight[i]
		s.descend(eta * s.weight[i] / s.a)
	}
	s.pf.next(len(s.pf.list))
	s.prefetched = s.pf.list != nil
	s.sl.clear(nil, s.pairs)
	return nll
}

// sequence returns the index in s.c of sequence i of the corpus: i, or
// with dense blocks 0, s.c then holding sequence i alone, expanded.
func (s *sgd) sequence(i int) int {
	if s.full == nil {
		return i
	}
	s.one.Reset()
	s.one.AppendExpanded(s.full, i, &s.rows)
	s.c = &s.one
	return 0
}

// collect lists the live unary and pair attributes of sequence i of the
// corpus (j in s.c), each once, in attrs and pairs, the slot of each entry
// of its unary rows in loc, and sets the pair attributes' slots: the lists
// made in advance when i has them, or the dedup of its rows; it records
// the start of every full block of attrs (blo) and zeroes the gradient
// buffers.
func (s *sgd) collect(i, j int) {
	if s.lists.listed(i) {
		s.attrs, s.pairs, s.loc = s.lists.unary(i), s.lists.pair(i), s.lists.locs(i)
		s.blo = s.lists.blos(i)
		s.sl.setPairs(s.pairs)
	} else {
		s.attrs, s.pairs = s.sl.dedup(s.c, j)
		s.locBuf = s.sl.appendLocs(s.locBuf[:0], s.c, j)
		s.loc = s.locBuf
		s.sl.clear(s.attrs, nil)
		s.bloBuf = appendBlockStarts(s.bloBuf[:0], s.sptr, s.vpos, s.m.NumLabels(), s.attrs)
		s.blo = s.bloBuf
	}
	L := s.m.NumLabels()
	s.gU = resizeFloats(s.gU, len(s.attrs)*L)
	clear(s.gU)
	s.gP = resizeFloats(s.gP, len(s.pairs)*L*L)
	clear(s.gP)
	clear(s.gT)
}

// catchUp brings the features of the current sequence up to date: the
// penalty accumulated since their last visit (those that are frozen hold
// zero, which the penalty leaves alone).
func (s *sgd) catchUp() {
	m := s.m
	L := m.NumLabels()
	if !s.prefetched {
		s.touch(s.attrs)
	}
	for k, a := range s.attrs {
		if lo := int(s.blo[k]); lo >= 0 {
			s.clipBlock(lo, lo+L)
			continue
		}
		lo := int(s.vpos[a])
		s.clipBlock(lo, lo+int(s.sptr[a+1]-s.sptr[a]))
	}
	if m.Layout.Transitions {
		off := s.tail(m.Layout.TransOffset())
		s.clipBlock(off, off+L*L)
	}
	for _, a := range s.pairs {
		off := s.tail(m.Layout.PairOffset() + int(a)*L*L)
		s.clipBlock(off, off+L*L)
	}
}

// touch reads one value per cache line of the blocks of attrs in v and q,
// a few instructions per block, so that their cache misses are all in
// flight at once; the clips that follow, about 25 instructions per
// weight, would otherwise wait for each block's lines in turn. It is not
// inlined, so that the loads, whose sum nobody uses, are not optimised
// away.
//
//go:noinline
func (s *sgd) touch(attrs []int32) float64 {
	sum := 0.0
	for _, a := range attrs {
		lo := int(s.vpos[a])
		hi := lo + int(s.sptr[a+1]-s.sptr[a])
		for k := lo; k < hi; k += 8 {
			sum += s.v[k] + s.q[k]
		}
		if hi > lo {
			sum += s.v[hi-1] + s.q[hi-1]
		}
	}
	return sum
}

// tail returns the position in v of feature j after the state block.
func (s *sgd) tail(j int) int { return s.ns + j - s.m.Layout.StateLen() }

// clipBlock applies the penalty to v[lo:hi].
func (s *sgd) clipBlock(lo, hi int) {
	clipRange(s.v[lo:hi], s.q[lo:hi], s.u)
}

// clipRange is Tsuruoka et al.'s ApplyPenalty with the total penalty u on
// the weights v (in the units of v) and their penalty records q:
//
//	v_j > 0: v_j <- max(0, v_j - (u + q_j));  v_j < 0: v_j <- min(0, v_j + (u - q_j));
//	q_j <- q_j + (new v_j - old v_j)
//
// written without branches (the sign of v_j is unpredictable): with
// s = sign(v_j), v_j <- s max(0, |v_j| - (u + s q_j)). For v_j = 0 it
// leaves v_j at (signed) zero and q_j unchanged, as |q_j| <= u. The
// arithmetic is package l1clip's (an AVX2 kernel on amd64, bit-identical
// to its Go loop).
func clipRange(v, q []float64, u float64) { l1clip.Clip(v, q, u) }

// score returns the lattice of sequence i at w = a v (it aliases the
// scratch); after each position it prefetches per more blocks of pf.
func (s *sgd) score(i, per int) *inference.Lattice {
	m, c := s.m, s.c
	L := m.NumLabels()
	start, T := c.Span(i)
	unary := s.scr.ZeroUnary(T * L)
	loc := s.loc
	for t := 0; t < T; t++ {
		loc = s.scoreRow(unary[t*L:t*L+L], start+t, loc)
		s.pf.next(per)
	}
	floats.Scale(s.a, unary)
	lat := lattice.FinishTail(&s.scr, m.Layout, s.v[s.ns:], c, i, unary)
	if lat.Trans != nil {
		floats.ScaleTo(s.trans, s.a, lat.Trans)
		lat.Trans = s.trans
	}
	if lat.TransAt != nil {
		floats.Scale(s.a, lat.TransAt)
	}
	return lat
}

// scoreRow adds to row the weights (in v's units) of the live attributes
// of position p of s.c times their values, in the row's order: the full
// blocks (every label unfrozen) in runs of package blocksum's kernel,
// the others by addState. loc starts with the slots of the row's entries;
// it returns the rest of loc.
func (s *sgd) scoreRow(row []float64, p int, loc []int32) []int32 {
	cols, vals := s.c.Unary.Row(p)
	offs, vv := s.rb.offs[:0], s.rb.vals[:0]
	for k, l := range loc[:len(cols)] {
		if l < 0 {
			continue // dead: every weight is zero
		}
		v := 1.0
		if vals != nil {
			v = vals[k]
		}
		if lo := s.blo[l]; lo >= 0 {
			offs, vv = append(offs, lo), append(vv, v)
			continue
		}
		blocksum.AddBlocks(row, s.v, offs, vv)
		offs, vv = offs[:0], vv[:0]
		s.addState(row, cols[k], v)
	}
	blocksum.AddBlocks(row, s.v, offs, vv)
	s.rb.offs, s.rb.vals = offs, vv
	return loc[len(cols):]
}

// addState adds val times the unfrozen weights (in v's units) of
// attribute a to row, in label order: scoreRow's blocks with a frozen
// label (a full block takes the same products and sums in blocksum's
// kernel).
func (s *sgd) addState(row []float64, a int32, val float64) {
	lo, hi := s.sptr[a], s.sptr[a+1]
	v := s.v[s.vpos[a] : s.vpos[a]+hi-lo]
	base := a * int32(len(row))
	for r, j := range s.feat[lo:hi] {
		row[j-base] += float64(val * v[r]) // unfused, as blocksum's kernels
	}
}

// gradient writes grad NLL_i = expected - observed counts of sequence i
// into gU, gT and gP, after forward-backward on its lattice; after each
// position it prefetches per more blocks of pf.
func (s *sgd) gradient(i int, lat *inference.Lattice, per int) {
	c := s.c
	L := s.m.NumLabels()
	start, T := c.Span(i)
	node := s.ws.Node()
	loc := s.loc
	for t := 0; t < T; t++ {
		mu := node[t*L : t*L+L]
		y := int(c.Labels[start+t])
		cols, vals := c.Unary.Row(start + t)
		s.rb.addCounts(s.gU, loc[:len(cols)], vals, mu, y)
		loc = loc[len(cols):]
		s.pf.next(per)
	}
	if T > 1 && s.m.Layout.Transitions {
		floats.Add(s.gT, s.ws.EdgeSum())
		for p := start + 1; p < start+T; p++ {
			s.gT[int(c.Labels[p-1])*L+int(c.Labels[p])]--
		}
	}
	if len(s.pairs) > 0 {
		s.pairGradient(lat, start, T)
	}
}

// pairGradient adds the gradient of the pair features of the current
// sequence (positions start..start+T-1) into gP.
func (s *sgd) pairGradient(lat *inference.Lattice, start, T int) {
	c := s.c
	L := s.m.NumLabels()
	LL := L * L
	for t := 1; t < T; t++ {
		pc, pv := c.Pair.Row(start + t)
		if len(pc) == 0 {
			continue
		}
		e := s.ws.EdgeAt(s.edge, lat, t)
		obs := int(c.Labels[start+t-1])*L + int(c.Labels[start+t])
		s.rb.addCountsSlots(s.gP, s.sl.slotP, pc, pv, e[:LL], obs)
	}
}

// shrink applies the L2 term of a step of size eta to the scale and adds
// the step's L1 penalty to u; it first folds a tiny scale into v and q.
func (s *sgd) shrink(eta float64) {
	if s.a < s.minScale {
		s.rescale()
	}
	s.a *= 1 - min(eta*s.l2, sgdMaxL2Shrink)
	s.u += eta * s.l1 / s.a
}

// rescale folds the scale into v, q and u (O(d)).
func (s *sgd) rescale() {
	floats.Scale(s.a, s.v)
	floats.Scale(s.a, s.q)
	s.u *= s.a
	s.a = 1
}

// descend moves the features of the current sequence by -step times their
// gradient (step = eta/a: the units of v) and applies the penalty.
func (s *sgd) descend(step float64) {
	m := s.m
	L := m.NumLabels()
	for k, a := range s.attrs {
		if lo := s.blo[k]; lo >= 0 {
			descendRange(s.v[lo:lo+int32(L)], s.q[lo:lo+int32(L)], s.gU[k*L:k*L+L], step, s.u)
			continue
		}
		s.descendState(a, s.gU[k*L:k*L+L], step)
	}
	if m.Layout.Transitions {
		s.descendBlock(m.Layout.TransOffset(), s.gT, step, s.partT)
	}
	for k, a := range s.pairs {
		s.descendBlock(m.Layout.PairOffset()+int(a)*L*L, s.gP[k*L*L:(k+1)*L*L], step, s.partP[a])
	}
}

// descendState is descend on the unfrozen state features of attribute a,
// with g its gradient over every label (descend takes a full block
// directly).
func (s *sgd) descendState(a int32, g []float64, step float64) {
	lo, hi := s.sptr[a], s.sptr[a+1]
	at := s.vpos[a]
	v, q := s.v[at:at+hi-lo], s.q[at:at+hi-lo]
	if len(v) == len(g) {
		descendRange(v, q, g, step, s.u)
		return
	}
	base := a * int32(len(g))
	for r, j := range s.feat[lo:hi] {
		v[r] -= step * g[j-base]
	}
	clipRange(v, q, s.u)
}

// descendBlock is descend on the features j, j+1, ... after the state
// block, with gradient g; partial says some of them are frozen (they are
// skipped).
func (s *sgd) descendBlock(j int, g []float64, step float64, partial bool) {
	off := s.tail(j)
	if !partial {
		descendRange(s.v[off:off+len(g)], s.q[off:off+len(g)], g, step, s.u)
		return
	}
	for k := range g {
		if !s.frozen.Has(j + k) {
			descendRange(s.v[off+k:off+k+1], s.q[off+k:off+k+1], g[k:k+1], step, s.u)
		}
	}
}

// descendRange sets v -= step g and applies the penalty (clipRange), in
// one pass over v (l1clip.Descend).
func descendRange(v, q, g []float64, step, u float64) { l1clip.Descend(v, q, g, step, u) }

// weights brings every feature up to date and returns the non-zero
// weights of w = a v (the state is consumed).
func (s *sgd) weights() Point {
	p := s.point()
	s.v, s.q = nil, nil
	return p
}

// point brings every feature up to date and returns the non-zero weights
// of w = a v (bringing features up to date does not change the run: the
// penalty of several steps applied at once equals applying it step by
// step).
func (s *sgd) point() Point {
	clipRange(s.v, s.q, s.u)
	var p Point
	for a := range len(s.vpos) - 1 {
		v := s.v[s.vpos[a]:]
		for r, j := range s.feat[s.sptr[a]:s.sptr[a+1]] {
			if v[r] != 0 {
				p.Idx, p.Val = append(p.Idx, j), append(p.Val, s.a*v[r])
			}
		}
	}
	for r := s.ns; r < len(s.v); r++ {
		if v := s.v[r]; v != 0 {
			p.Idx, p.Val = append(p.Idx, int32(s.m.Layout.StateLen()+r-s.ns)), append(p.Val, s.a*v)
		}
	}
	return p
}

// blockStart returns where the block of attribute a starts in v (vpos)
// when all its L labels are free (sptr), -1 otherwise.
func blockStart(sptr, vpos []int32, L int, a int32) int32 {
	if int(sptr[a+1]-sptr[a]) != L {
		return -1
	}
	return vpos[a]
}

// appendBlockStarts appends to dst the blockStart of every attribute of
// attrs.
func appendBlockStarts(dst, sptr, vpos []int32, L int, attrs []int32) []int32 {
	for _, a := range attrs {
		dst = append(dst, blockStart(sptr, vpos, L, a))
	}
	return dst
}

// padStarts returns where the block of each attribute starts in v, with
// the attributes' blocks of sptr in order: a block of n >= 16 weights
// starts at the next multiple of 8 when that leaves at most n/8 slots
// unused (when pad), otherwise right after the previous block; the last
// entry is the end of the state block. Measured on CoNLL-2000 (L = 22):
// 3-5% less CPU in the warm start (docs/setup.md, round six), for 9% more
// memory in v and q.
func padStarts(sptr []int32, pad bool) []int32 {
	vpos := make([]int32, len(sptr))
	pos := int32(0)
	for a := 0; a+1 < len(sptr); a++ {
		n := sptr[a+1] - sptr[a]
		if gap := (8 - pos%8) % 8; pad && n >= 16 && 8*gap <= n {
			pos += gap
		}
		vpos[a] = pos
		pos += n
	}
	vpos[len(sptr)-1] = pos
	return vpos
}

// alignedFloats returns n zeros whose first starts a 64-byte cache line
// (the address only computes the offset; nothing is converted back).
func alignedFloats(n int) []float64 {
	x := make([]float64, n+7)
	off := (64 - int(uintptr(unsafe.Pointer(&x[0]))%64)) % 64 / 8
	return x[off : off+n : off+n]
}

// penaltyValue returns l2/2 ||w||^2 + l1 ||w||_1 at the current point
// (bringing every feature up to date).
//
// Only the ranges of forLive are visited: elsewhere the weights are +0,
// which the penalty leaves at +0 and which add +0 to both sums (neither
// of which is ever -0), so the sums are those over all of v, bit for bit.
func (s *sgd) penaltyValue() float64 {
	sq, abs := 0.0, 0.0
	s.forLive(func(lo, hi int) {
		clipRange(s.v[lo:hi], s.q[lo:hi], s.u)
		for _, v := range s.v[lo:hi] {
			w := s.a * v
			sq += w * w
			abs += math.Abs(w)
		}
	})
	return s.l2/2*sq + s.l1*abs
}

// epoch runs one step per sequence of order, with step sizes
// eta0 / (1 + k/n) for k = *k, *k+1, ... (it advances *k), and returns
// the average NLL over its steps. It stops early, with stopped = true,
// when ctx is cancelled (err) or intr is closed.
func (s *sgd) epoch(ctx context.Context, intr <-chan struct{}, order []int32, eta0, n float64, k *int) (loss float64, stopped bool, err error) {
	for q, i := range order {
		if q&63 == 0 {
			if err := ctx.Err(); err != nil {
				return 0, true, err
			}
			if closed(intr) {
				return 0, true, nil
			}
		}
		next := -1
		if q+1 < len(order) {
			next = int(order[q+1])
		}
		loss += s.step(int(i), next, eta0/(1+float64(*k)/n))
		*k++
	}
	return loss / float64(len(order)), false, nil
}

// closed reports whether ch is closed (nil: never).
func closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// trial runs one calibration epoch from zero over sample with initial
// step size eta0 and returns the sample objective: the average NLL over
// the steps plus the penalty at the end.
func (s *sgd) trial(ctx context.Context, sample []int32, eta0 float64) (float64, error) {
	s.reset()
	k := 0
	loss, _, err := s.epoch(ctx, nil, sample, eta0, float64(len(sample)), &k)
	if err != nil {
		return 0, err
	}
	f := loss + s.penaltyValue()
	if math.IsNaN(f) {
		f = math.Inf(1)
	}
	return f, nil
}

// calibrate returns the initial step size with the lowest sample objective
// (see the comment at the top of the file) and the number of trials.
//
// The sample has 500 sequences, not CRFsuite's 1000: half the cost, and
// the step the solver does best from more often. Measured (docs/setup.md,
// whole runs at c1 = c2 = 1): CoNLL-2000 and the OCR words pick the same
// eta0 with 1000, 500 and 250 sequences (0.2 and 0.1; the same models);
// on CoNLL-2002 Spanish NER 1000 picks 0.05 and the solver then takes
// 132 iterations, 500 and 250 pick 0.1 and it takes 93 (98 from 0.2).
// On CoNLL-2000 eta0 0.1, 0.2 and 0.4 give 103, 67 and 91 iterations.
func (s *sgd) calibrate(ctx context.Context, sample []int32) (float64, int, error) {
	best, bestF := sgdEtaStart, math.Inf(1)
	trials := 0
	// The trials touch the blocks of the sample's attributes only: reset
	// and penaltyValue visit those (s.touched; Run clears it after the
	// reset that ends the calibration).
	s.touched = s.lists.sample(sample, len(s.sl.slotU))
	try := func(eta float64) (bool, error) {
		trials++
		f, err := s.trial(ctx, sample, eta)
		if err != nil || !(f < bestF) {
			return false, err
		}
		best, bestF = eta, f
		return true, nil
	}
	eta := sgdEtaStart
	if _, err := try(eta); err != nil {
		return 0, trials, err
	}
	up := true
	for trials < sgdMaxTrials {
		if up {
			eta *= sgdEtaRate
		} else {
			eta /= sgdEtaRate
		}
		better, err := try(eta)
		if err != nil {
			return 0, trials, err
		}
		switch {
		case better:
		case up && trials == 2: // no better than the start: go down
			up, eta = false, sgdEtaStart
		default:
			return best, trials, nil
		}
	}
	return best, trials, nil
}

// Problem is the problem of one warm start: the average-form objective
// P(w) = (1/n) sum_i s_i NLL_i(w) + L2/2 ||w||^2 + L1 ||w||_1 of the model
// layout Model on the labeled corpus Corpus with the sequence weights s =
// Weights (nil: 1; step k then moves by eta_k s_i g), with the features
// Frozen (nil: none) kept at zero; Free are the others (increasing full
// indices).
type Problem struct {
	Model   *chain.Model
	Corpus  *sparse.Corpus
	Weights []float64
	L1, L2  float64
	Frozen  sparse.Bitset
	Free    []int32
}

// Settings are the warm start's knobs besides the problem.
type Settings struct {
	Epochs int // epochs of SGD after the calibration (> 0)
	// Interrupt, when closed, ends the warm start after the step it is at
	// (the epochs run so far count; Info.Epochs says how many).
	Interrupt <-chan struct{}
	// OnEpoch, when not nil, is called after every epoch with the point
	// reached (bringing features up to date does not change the run).
	OnEpoch func(Point)
}

// Point is a sparse point: the non-zero features (increasing) and their
// weights.
type Point struct {
	Idx []int32
	Val []float64
}

// Run calibrates the step size and runs s.Epochs epochs of SGD with the
// cumulative L1 penalty from w = 0 (see the comment at the top of the
// file), deterministically (a fixed seed; one goroutine), and returns the
// point reached and what it did. A point that is not finite is discarded:
// Run then returns an empty point and Info.Discarded. It returns ctx's
// error when ctx is cancelled.
func Run(ctx context.Context, p Problem, st Settings) (Point, *Info, error) {
	t0 := time.Now()
	n := p.Corpus.Len()
	s := newSGD(p.Model, p.Corpus, p.L1, p.L2, p.Frozen, p.Free)
	s.weight = p.Weights
	s.lists = newAttrLists(s, MaxListed)
	rng := rand.New(rand.NewPCG(sgdSeed, uint64(n)))
	order := make([]int32, n)
	for i := range order {
		order[i] = int32(i)
	}
	rng.Shuffle(n, func(i, j int) { order[i], order[j] = order[j], order[i] })
	eta0, trials, err := s.calibrate(ctx, order[:min(n, sgdSample)])
	if err != nil {
		return Point{}, nil, err
	}
	s.reset()
	s.touched = nil
	info := &Info{Eta0: eta0, Trials: trials}
	k := 0
	for e := 0; e < st.Epochs; e++ {
		if e > 0 {
			rng.Shuffle(n, func(i, j int) { order[i], order[j] = order[j], order[i] })
		}
		loss, stopped, err := s.epoch(ctx, st.Interrupt, order, eta0, float64(n), &k)
		if err != nil {
			return Point{}, nil, err
		}
		if stopped {
			break
		}
		info.Epochs, info.Loss = e+1, loss
		if st.OnEpoch != nil {
			st.OnEpoch(s.point())
		}
	}
	w := s.weights()
	info.Seconds = time.Since(t0).Seconds()
	if !finite(w.Val) {
		info.Discarded = true
		return Point{}, info, nil
	}
	return w, info, nil
}

// finite reports whether every value of x is finite.
func finite(x []float64) bool {
	for _, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

// resizeFloats returns s with length n, reusing its storage when it can.
func resizeFloats(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n)
	}
	return s[:n]
}
