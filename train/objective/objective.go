package objective

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync/atomic"

	"gonum.org/v1/gonum/floats"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/inference"
	"github.com/sparsetag/sparsetag/internal/lattice"
	"github.com/sparsetag/sparsetag/internal/par"
	"github.com/sparsetag/sparsetag/screen"
	"github.com/sparsetag/sparsetag/sparse"
	"github.com/sparsetag/sparsetag/train/internal/spanadd"
)

// numShards is the fixed number of contiguous groups of sequences that one
// evaluation is split into. It does not depend on the number of goroutines,
// and shard results are reduced in shard order, so the objective and its
// gradient are bit-identical whatever the number of workers.
const numShards = 64

// refGroups is the number of fixed groups of consecutive shards that share
// one buffer of expected counts per reference (refFused): a group's shards
// run in order on one goroutine, and the groups are reduced in group
// order, so the sums stay bit-identical whatever the number of workers
// while the buffers take refGroups, not numShards, copies.
const refGroups = 8

// ErrNonFinite is the error of an evaluation whose loss is NaN or infinite.
var ErrNonFinite = errors.New("train: objective is not finite (NaN or Inf)")

// Objective computes, in one pass over the data, the average negative
// log-likelihood L(w) and m = -grad L(w) over the active features of its
// feature set, for a model layout (see Model) over an encoded corpus. It
// owns m and the node marginals of the last evaluation.
//
// One evaluation is four named steps: scatter the active weights
// (setWeights), forward-backward per shard (forwardShards: loss, node
// marginals, edge and pair expectations), reduce the shards in shard order
// (reduceShards), and the expected state counts attribute by attribute
// (stateExpectations), from which counts.residuals forms m.
//
// Gradient accumulation is deterministic and parallel without per-worker
// copies of the gradient: node marginals of every position are stored, then
// the expected counts of state features are summed by a scatter over the
// rows in position order, each attribute by one worker (or, for small
// models, per shard during forward-backward and reduced in shard order:
// fused).
//
// Memory: beyond the corpus, the objective holds the observed counts
// (sparse for large models), the weights and expected counts of the
// transitions and pairs, m and the expected counts over the active set,
// full-size weights only while scoring is dense (the full solver, or a
// working set holding at least half the labels of its attributes), the
// node marginals (positions × L), per shard an inference workspace, L×L
// edge sums and, with pair attributes, a P×L×L buffer; the per-shard pair
// buffers take 64 x P x L x L doubles (EstimateMemory counts them;
// --memory-limit refuses a model whose pair buffers do not fit). A full
// pass forms m over the unscreened features in the caller's buffer
// (Residuals, with one bool per attribute to mark the counts it takes
// from the evaluation); nothing else of the model's full size is needed.
// With more than one thread, the scatter's row splits take 4 B per
// position and worker boundary, for the corpus and for its scoring copy
// (rowSplit; not in Memory, which does not know the thread count, but in
// train.EstimateMemory: 0.85 MB per boundary on CoNLL-2000).
type Objective struct {
	m       *chain.Model // layout only (labels, counts, transitions)
	fs      *Features
	c       *sparse.Corpus
	threads int
	n       float64 // number of sequences
	tune    tuning

	// attrCum[a] is the number of occurrences of attributes below a in
	// c.Unary (len U+1): it splits the expectation pass among workers.
	attrCum []int32
	// attrSplit are the boundaries of the workers' attribute ranges in
	// the expectation scatter (attrParts), fixed for the objective.
	attrSplit []int32

	obs counts // observed feature counts (sum over sequences)

	// Per evaluation.
	wtail  []float64 // the weights after the state block (transitions, pairs)
	wfull  []float64 // full-size weights for dense scoring (nil in label-list mode)
	xState []float64 // the weights of the active state features, in reference order
	exp    []float64 // expected counts of the active state features, in reference order
	// expFresh: exp holds the counts of the last evaluation (whose
	// marginals mu holds) over the current active set.
	expFresh bool
	counted  []bool    // Residuals: attributes whose counts it copies from exp
	eTail    []float64 // expected counts after the state block (transitions, pairs)
	mu       []float64 // node marginals of every position, Positions()*L
	nll      []float64 // NLL_i of every sequence (unweighted), labeled loss only
	mvec     []float64 // m = -grad L over the active set, at the last evaluation (M)
	shard    []shardState
	uPtr     []int32 // Residuals: start of each attribute's features in its index list

	// live is the corpus used for scoring: c itself, or a copy of it whose
	// Unary rows omit the attributes with no active state feature, so that
	// scoring gets cheaper as screening removes attributes.
	live      *sparse.Corpus
	liveAttrs int // number of live attributes when live was built
	// liveRows is live without its dense blocks (which blockState.score
	// scores), for lattice.Score.
	liveRows sparse.Corpus
	// splits are where each scatter worker's attributes start in the rows
	// of c and of live.
	splits rowSplits
	// elems runs the element-wise loops (parallel.go).
	elems elemLoops

	// prior, when not nil, is the fixed offset w0 of every evaluation
	// (SetPrior).
	prior *prior
	// partial, when not nil, holds the allowed labels of every position
	// (SetPartial): the loss is that of partial labels.
	partial *LabelSets
	// weights, when not nil, are the sequence weights s_i (SetWeights):
	// the loss and every count of sequence i are scaled by s_i.
	weights []float64

	// blk holds the weights and counts of the corpus's dense blocks (nil
	// without blocks; dense.go).
	blk *blockState

	// evals counts the passes over the data (evaluations) since the
	// objective was made.
	evals int

	// refSpan[2k], refSpan[2k+1] are the reference range (refPtr[a],
	// refPtr[a+1]) of the attribute a = live.Unary.Col[k], in label-list
	// mode: scoring and expectations stream it beside the rows instead of
	// looking up refPtr per occurrence.
	refSpan []int32

	// sparseLabels: when few state features are active, scoring and
	// expectations visit only the active labels of each attribute (the
	// feature set's references). Skipping features whose weight is zero
	// does not change any sum, so both modes give bit-identical results.
	sparseLabels bool

	// fused: expected state counts are accumulated per shard during the
	// forward-backward pass (dense U*L buffers, reduced in shard order)
	// instead of by the scatter pass. Used when the buffers are small.
	fused bool

	// refFused (working-set solver only): expected counts of the active
	// state features are accumulated per group of shards (refGroups) during
	// forward-backward into buffers indexed like the feature set's
	// references (refLab), and reduced in group order; used while those
	// buffers fit in refFusedBudget. It avoids a scatter pass over every
	// position of every live attribute when the working set has few labels
	// per attribute.
	refFusedOK bool // the active set is a working set (SetActive)
	refFused   bool // in use for the current active set
}

const (
	// defaultFusedBudget is the default bound on the memory of the
	// per-shard state expectation buffers (Settings.FusedBudget, which
	// tests set to exercise both accumulation paths).
	defaultFusedBudget = 64 << 20
	// refFusedBudget bounds the per-group reference expectation buffers
	// of the working-set solver.
	refFusedBudget = 64 << 20
	// defaultSparseLabelFraction is the fraction of active state features
	// (among those of live attributes) below which label lists replace
	// dense rows (tuning.sparseLabelFraction).
	defaultSparseLabelFraction = 0.5
	// defaultResidualBlock is the number of features whose m
	// MaxAbsResidual forms at once (tuning.residualBlock).
	defaultResidualBlock = 1 << 20
	// defaultLiveKeep is the fraction of the corpus's unary entries
	// from which the scoring corpus is the corpus itself, not a copy
	// without the dead attributes (tuning.liveKeep): such a copy (word
	// vectors, whose attributes stay live, in most rows) saves little
	// scoring and costs a second corpus in memory.
	defaultLiveKeep = 0.8
)

// tuning holds the thresholds that choose between two ways to the same
// numbers (label lists or dense rows, the block size of MaxAbsResidual).
// New sets the defaults; a test sets the fields of its own objective
// after New (before SetActive) to take the other way on a small problem.
type tuning struct {
	sparseLabelFraction float64
	residualBlock       int
	liveKeep            float64
}

type shardState struct {
	ws       *inference.Workspace
	lat      lattice.Scratch
	loss     float64
	edge     []float64 // L*L expected transition counts
	pairExp  []float64 // P*L*L expected pair counts (only when P > 0)
	stateExp []float64 // U*L expected state counts (only when fused)
	refExp   []float64 // expected counts per reference (only when refFused; one per group of shards, shared by its shards)
	edgeBuf  []float64
	cUnary   []float64 // partial labels: the constrained lattice's unary scores
	cNode    []float64 // and its node marginals
	blk      shardBlocks
	err      error
}

// Settings are the resources of an objective. The zero value is valid.
type Settings struct {
	// Threads is the number of goroutines of an evaluation (the results
	// do not depend on it); 0 means 1.
	Threads int
	// FusedBudget bounds the memory (bytes) of the per-shard state
	// expectation buffers, in which small models accumulate their expected
	// counts during forward-backward; 0 means 64 MiB, a negative value
	// always scatters instead.
	FusedBudget int
}

// New returns the objective of the model layout m over the labeled corpus
// c, with its own feature set (empty: Features.SetAll fixes it) and no
// active feature.
func New(m *chain.Model, c *sparse.Corpus, s Settings) *Objective {
	threads, budget := s.Threads, s.FusedBudget
	if budget == 0 {
		budget = defaultFusedBudget
	}
	fs := newFeatures(m)
	L := m.NumLabels()
	tail := len(m.W) - m.Layout.StateLen()
	o := &Objective{m: m, fs: fs, c: c, threads: max(threads, 1), n: float64(c.Len()),
		tune: tuning{sparseLabelFraction: defaultSparseLabelFraction, residualBlock: defaultResidualBlock,
			liveKeep: defaultLiveKeep}}
	o.elems = elemLoops{threads: o.threads, block: defaultElemBlock}
	o.wtail = make([]float64, tail)
	o.eTail = make([]float64, tail)
	o.shard = make([]shardState, numShards)
	for s := range o.shard {
		o.shard[s].ws = inference.NewWorkspace(c.MaxLen(), L)
		o.shard[s].edge = make([]float64, L*L)
		if m.Layout.NumPair > 0 {
			o.shard[s].pairExp = make([]float64, m.Layout.NumPair*L*L)
			o.shard[s].edgeBuf = make([]float64, L*L)
		}
	}
	o.fused = budget >= 0 && numShards*m.Layout.NumUnary*L*8 <= budget
	if o.fused {
		for s := range o.shard {
			o.shard[s].stateExp = make([]float64, m.Layout.NumUnary*L)
		}
	}
	o.blk = newBlocks(c, L, o.shard)
	o.attrCum = attributeCounts(&c.Unary, m.Layout.NumUnary)
	o.attrSplit = attrParts(o.attrCum, o.threads)
	o.obs = observedCounts(o.m, o.c, o.attrCum, o.fused, nil)
	fs.obs = &o.obs
	o.live = c
	o.liveAttrs = m.Layout.NumUnary
	return o
}

// Features returns the objective's feature set: which features exist,
// which are screened, which are active.
func (o *Objective) Features() *Features { return o.fs }

// SetActive installs a new active set (increasing full indices, none
// screened; the objective keeps the slice) in the feature set and adapts
// the objective to it; m is resized, not kept. workingSet says the set is
// a working set, which the next full pass will replace: the objective may
// then accumulate the expected counts per reference (refFused) when that
// fits its budget. The accumulation design is the objective's own choice.
func (o *Objective) SetActive(active []int32, workingSet bool) {
	o.refFusedOK = workingSet
	o.fs.setActive(active)
	o.follow(nil)
}

// Restrict keeps the active features at positions keep (increasing) in
// the feature set and the objective (m keeps their values): the one
// operation that shrinks the active set for both.
func (o *Objective) Restrict(keep []int32) {
	o.fs.restrict(keep)
	o.follow(keep)
}

// M returns m = -grad L over the active set at the last evaluation (the
// objective's own buffer: valid until the next evaluation or change of
// the active set).
func (o *Objective) M() []float64 { return o.mvec }

// Stats is what the evaluations leave for the caller besides L and m: their
// number since the objective was made, and the node marginals and the
// sequences' losses of the last one (the objective's buffers, valid until
// the next evaluation).
type Stats struct {
	Evals          int
	Marginals      []float64 // positions x labels, row-major
	SequenceLosses []float64 // NLL_i(w), unweighted; not filled with partial labels
}

// Stats returns the evaluations' by-products (Stats).
func (o *Objective) Stats() Stats {
	return Stats{Evals: o.evals, Marginals: o.mu, SequenceLosses: o.nll}
}

// follow adapts the objective to a new active set of its feature set: m
// keeps the values of the kept features (keep != nil) and the scoring
// corpus drops attributes that no longer have an active state feature.
func (o *Objective) follow(keep []int32) {
	fs := o.fs
	if keep != nil {
		o.mvec = sparse.Compact(o.mvec, keep)
	} else {
		o.mvec = fitFloats(o.mvec, len(fs.active))
	}
	o.exp, o.expFresh = fitFloats(o.exp, fs.numState()), false
	o.prior.resetTail(o.wtail)
	o.refFused = o.refFusedOK && !o.fused && refGroups*fs.numState()*8 <= refFusedBudget
	const per = numShards / refGroups
	for sh := range o.shard {
		switch {
		case !o.refFused:
			o.shard[sh].refExp = nil
		case sh%per == 0:
			o.shard[sh].refExp = resizeFloats(o.shard[sh].refExp, fs.numState())
		default:
			o.shard[sh].refExp = o.shard[sh-sh%per].refExp
		}
	}
	// No active state feature at all (beta_max, an empty set) scores in
	// label-list mode too: nothing of full size for nothing to score.
	o.sparseLabels = fs.numState() == 0 ||
		float64(fs.numState()) < o.tune.sparseLabelFraction*float64(fs.live*o.m.NumLabels())
	if o.sparseLabels {
		o.wfull = nil
	} else {
		o.wfull = resizeFloats(o.wfull, len(o.m.W))
		clear(o.wfull)
	}
	// The scoring corpus must hold every live attribute: a subset of the
	// active set (keep != nil) keeps the current one until enough
	// attributes died to pay for a new copy; any other new set rebuilds it.
	switch {
	case fs.live == o.m.Layout.NumUnary:
		o.live, o.liveAttrs = o.c, fs.live
	case keep == nil || float64(fs.live) < 0.9*float64(o.liveAttrs):
		o.live, o.liveAttrs = liveCorpus(o.c, o.live, fs.attrLive, o.tune.liveKeep, o.threads), fs.live
		o.splits.live.done = false // a new copy (or the old one's rows rewritten): split again
	}
	o.liveRows = *o.live
	o.liveRows.Dense = nil
	o.refSpan = o.refSpan[:0]
	if o.sparseLabels || o.refFused {
		o.refSpan = refSpans(o.elems, o.refSpan, o.live.Unary.Col, o.fs.refPtr)
	}
}

// refSpans returns, in dst's storage when it is large enough, the
// reference range (ptr[a], ptr[a+1]) of the attribute a = col[k] of every
// occurrence k of a corpus's unary rows (refSpan), on the objective's
// goroutines (e).
func refSpans(e elemLoops, dst, col, ptr []int32) []int32 {
	if cap(dst) < 2*len(col) {
		dst = make([]int32, 2*len(col))
	}
	dst = dst[:2*len(col)]
	e.run(len(col), func(lo, hi int) {
		for k := lo; k < hi; k++ {
			a := col[k]
			dst[2*k], dst[2*k+1] = ptr[a], ptr[a+1]
		}
	})
	return dst
}

// Release drops the per-evaluation buffers (the objective cannot evaluate
// again): what Train gives back before it writes the solution.
func (o *Objective) Release() {
	o.mu, o.wfull, o.exp, o.mvec, o.refSpan, o.uPtr, o.counted = nil, nil, nil, nil, nil, nil, nil
	o.expFresh = false
	o.live = o.c
	o.splits = rowSplits{}
	for s := range o.shard {
		o.shard[s] = shardState{}
	}
}

// AttrStarts returns, for the increasing features ids, the starts ptr
// (len U+1, in ptr's storage when it is large enough) of each attribute's
// state features: those of attribute a are ids[ptr[a]:ptr[a+1]], and
// ptr[U] counts the state features of ids.
func AttrStarts(ptr, ids []int32, U, L int) []int32 {
	if cap(ptr) < U+1 {
		ptr = make([]int32, U+1)
	}
	ptr = ptr[:U+1]
	attrStartsRange(ptr, ids, L, 0, U+1)
	return ptr
}

// resizeFloats returns s with length n, reusing its storage when it can.
func resizeFloats(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n)
	}
	return s[:n]
}

// fitFloats is resizeFloats for buffers that follow a shrinking set: it
// gives back storage of more than twice n, so that a buffer sized for
// the first, largest set does not stay that large for the whole run.
func fitFloats(s []float64, n int) []float64 {
	if cap(s) > 2*n+1024 {
		return make([]float64, n)
	}
	return resizeFloats(s, n)
}

// attributeCounts returns the cumulative occurrence counts of the
// attributes in x: entry a counts the attributes below a (len U+1).
func attributeCounts(x *sparse.Matrix, U int) []int32 {
	cum := make([]int32, U+1)
	for _, a := range x.Col {
		cum[a+1]++
	}
	for a := 0; a < U; a++ {
		cum[a+1] += cum[a]
	}
	return cum
}

// columns is a column-major copy of a corpus's unary attributes: the
// positions (and values) of attribute a are pos[ptr[a]:ptr[a+1]], in
// position order.
type columns struct {
	ptr, pos []int32
	val      []float64
}

// buildColumns returns the column-major copy of c.Unary, given its
// cumulative attribute counts.
func buildColumns(x *sparse.Matrix, cum []int32) columns {
	U := len(cum) - 1
	col := columns{ptr: cum, pos: make([]int32, len(x.Col))}
	if x.Val != nil {
		col.val = make([]float64, len(x.Col))
	}
	next := make([]int32, U)
	copy(next, cum[:U])
	for p := 0; p < x.Rows(); p++ {
		for k := x.RowPtr[p]; k < x.RowPtr[p+1]; k++ {
			a := x.Col[k]
			q := next[a]
			next[a]++
			col.pos[q] = int32(p)
			if col.val != nil {
				col.val[q] = x.Val[k]
			}
		}
	}
	return col
}

// ObservedCounts returns F(x, y_gold) summed over the corpus, full size:
// the state block position by position, then tailCounts.
func ObservedCounts(m *chain.Model, c *sparse.Corpus) []float64 {
	return observedCounts(m, c, nil, true, nil).dense
}

// scoreSparse is lattice.Score for the training objective in label-list
// mode: only active (attribute, label) weights are visited. The active
// state features come first in the active set, in the order of the
// references (refLab[r] is the label of active[r]), so the weight of
// reference r is xState[r]: both streams are read in order, attribute by
// attribute, with no lookup in the full-size weight vector.
func (o *Objective) scoreSparse(s *lattice.Scratch, c *sparse.Corpus, i int) *inference.Lattice {
	m := o.m
	L := m.NumLabels()
	start, T := c.Span(i)
	unary := s.ZeroUnary(T * L)
	lab, x, span := o.fs.refLab, o.xState, o.refSpan
	vals := c.Unary.Val
	for t := 0; t < T; t++ {
		row := unary[t*L : t*L+L]
		end := c.Unary.RowPtr[start+t+1]
		for k := c.Unary.RowPtr[start+t]; k < end; k++ {
			lo, hi := span[2*k], span[2*k+1]
			labs, xs := lab[lo:hi], x[lo:hi]
			switch {
			case len(labs) == L && vals == nil:
				// Every label active (labs = 0..L-1) here and in the
				// attributes that follow: the same sums as the loop below,
				// one vector add per attribute, the row kept in registers.
				e := fullRun(span, k, end, L)
				spanadd.Gather(row, x, span[2*k:2*e])
				k = e - 1
			case len(labs) == L:
				floats.AddScaled(row, vals[k], xs)
			case vals == nil:
				for q, y := range labs {
					row[y] += xs[q]
				}
			default:
				v := vals[k]
				for q, y := range labs {
					row[y] += v * xs[q]
				}
			}
		}
	}
	return lattice.FinishTail(s, m.Layout, o.wtail, c, i, unary)
}

// fullRun returns the end of the run of occurrences from k (before end)
// whose reference spans hold every one of the L labels; the caller has
// checked that k's does.
func fullRun(span []int32, k, end int32, L int) int32 {
	e := k + 1
	for e < end && int(span[2*e+1]-span[2*e]) == L {
		e++
	}
	return e
}

// liveCorpus returns a copy of the corpus c whose unary rows keep only the
// live attributes (ids unchanged), or c itself when the live attributes
// hold at least the fraction keep of its entries (tuning.liveKeep).
// Scoring and expectations over either give the same sums: a dead
// attribute has no active feature, so it adds nothing (an empty reference
// span, or zero weights). Sequences,
// labels and pair rows are shared with c. The rows of the copy it replaces
// are reused when they have room (a working-set solve compacts at every
// full pass). The rows are counted, then copied, in fixed blocks of rows
// on threads goroutines (each block at the offset the counts give it).
func liveCorpus(c, old *sparse.Corpus, live []bool, keep float64, threads int) *sparse.Corpus {
	x := &c.Unary
	out := *c
	nb := (x.Rows() + liveRowBlock - 1) / liveRowBlock
	at := make([]int32, nb+1) // entries kept before each block
	par.For(threads, nb, func(b int) {
		n := int32(0)
		for _, a := range x.Col[x.RowPtr[b*liveRowBlock]:x.RowPtr[min(x.Rows(), (b+1)*liveRowBlock)]] {
			if live[a] {
				n++
			}
		}
		at[b+1] = n
	})
	for b := range nb {
		at[b+1] += at[b]
	}
	nnz := int(at[nb])
	if float64(nnz) >= keep*float64(len(x.Col)) {
		return c
	}
	var nx sparse.Matrix
	if old != c && cap(old.Unary.RowPtr) > x.Rows() && cap(old.Unary.Col) >= nnz &&
		(x.Val == nil || cap(old.Unary.Val) >= nnz) {
		nx = sparse.Matrix{RowPtr: old.Unary.RowPtr[:x.Rows()+1], Col: old.Unary.Col[:nnz]}
		if x.Val != nil {
			nx.Val = old.Unary.Val[:nnz]
		}
	} else {
		nx = sparse.Matrix{RowPtr: make([]int32, x.Rows()+1), Col: make([]int32, nnz)}
		if x.Val != nil {
			nx.Val = make([]float64, nnz)
		}
	}
	nx.RowPtr[0] = 0
	par.For(threads, nb, func(b int) {
		q := at[b]
		for p := b * liveRowBlock; p < min(x.Rows(), (b+1)*liveRowBlock); p++ {
			for k := x.RowPtr[p]; k < x.RowPtr[p+1]; k++ {
				if a := x.Col[k]; live[a] {
					nx.Col[q] = a
					if x.Val != nil {
						nx.Val[q] = x.Val[k]
					}
					q++
				}
			}
			nx.RowPtr[p+1] = q
		}
	})
	out.Unary = nx
	return &out
}

// liveRowBlock is the number of rows of one block of liveCorpus.
const liveRowBlock = 4096

// Evaluate is the smooth part of the training objective for the
// optimizer: over the active set, it returns f(x) = L(x) + (l2/2)||x||^2,
// writes its gradient l2 x - m into grad and returns m = -grad L(x) (M).
func (o *Objective) Evaluate(ctx context.Context, x, grad []float64, l2 float64) (float64, []float64, error) {
	loss, _, err := o.Loss(ctx, x)
	if err != nil {
		return 0, o.mvec, err
	}
	f := loss
	for k, v := range x {
		grad[k] = l2*v - o.mvec[k]
		f += 0.5 * l2 * v * v
	}
	return f, o.mvec, nil
}

// Loss returns L(x) for the active weights x and m = -grad L(x) over the
// active set (M).
//
// It leaves the expected counts of the active features in o.exp and
// o.eTail and the node marginals in o.mu.
func (o *Objective) Loss(ctx context.Context, x []float64) (float64, []float64, error) {
	o.evals++
	o.expFresh = false
	o.setWeights(x)
	if err := o.forwardShards(ctx); err != nil {
		return 0, o.mvec, err
	}
	loss := reduceShards(o.m, o.shard, o.eTail)
	o.stateExpectations()
	if o.blk != nil {
		o.blk.reduce(o.shard)
		o.blk.expectations(o.fs, o.exp)
	}
	o.expFresh = true
	o.obs.residuals(o.elems, o.mvec, o.fs.active, o.exp, o.eTail, int32(o.m.Layout.StateLen()), 1/o.n)
	inv := 1 / o.n
	if math.IsNaN(loss) || math.IsInf(loss, 0) {
		return loss * inv, o.mvec, ErrNonFinite
	}
	return loss * inv, o.mvec, nil
}

// Residuals returns m = -grad L over the features idx (increasing, any
// features of the model, active or not) in dst (resized to len(idx)),
// after an evaluation and from its marginals: what a full pass of the
// working-set solver prices the features outside the working set with.
// The expected state counts are scattered into dst itself, in position
// order as for the active set, so nothing of the model's full size is
// needed; transition and pair expectations are always complete. An
// attribute whose features in idx are exactly its active ones takes its
// counts from the evaluation's (countedAttrs) instead of scattering them
// again: in a working-set solve's end game that is most of the scatter.
func (o *Objective) Residuals(dst []float64, idx []int32) []float64 {
	dst = resizeFloats(dst, len(idx))
	o.uPtr = attrStartsBlocks(o.elems, o.uPtr, idx, o.m.Layout.NumUnary, o.m.NumLabels())
	counted := o.countedAttrs(idx)
	o.scatterExpectations(o.c, o.uPtr, idx, dst, counted)
	if counted != nil {
		copyCounted(o.elems, dst, o.exp, counted, o.uPtr, o.fs.refPtr)
	}
	if o.blk != nil {
		o.blk.residuals(dst, idx, o.uPtr, counted)
	}
	o.obs.residuals(o.elems, dst, idx, dst, o.eTail, int32(o.m.Layout.StateLen()), 1/o.n)
	return dst
}

// countedAttrs returns, after an evaluation (nil otherwise, or when there
// is none), the attributes whose state features in idx (ranges o.uPtr) are
// exactly their active features: the evaluation summed their expected
// counts over the same marginals, into o.exp. Its sums may differ from a
// scatter's in the last bits (the fused modes add per-shard partial sums),
// not in accuracy, and are the same whatever the number of workers.
func (o *Objective) countedAttrs(idx []int32) []bool {
	if !o.expFresh {
		return nil
	}
	U := o.m.Layout.NumUnary
	if cap(o.counted) < U {
		o.counted = make([]bool, U)
	}
	counted := o.counted[:U]
	var found atomic.Bool
	o.elems.run(U, func(lo, hi int) {
		if countedRange(counted, idx, o.fs.active, o.uPtr, o.fs.refPtr, lo, hi) {
			found.Store(true)
		}
	})
	if !found.Load() {
		return nil
	}
	return counted
}

// MaxAbsResidual returns max_j |m_j| over the features that all yields
// (increasing), after an evaluation and from its marginals (NaN if some m_j
// is), forming m tuning.residualBlock features at a time: 12 B per feature of a
// block instead of 12 B per feature of the model.
func (o *Objective) MaxAbsResidual(all func(yield func(int32) bool)) float64 {
	var idx []int32
	var m []float64
	best := 0.0
	flush := func() {
		m = o.Residuals(m, idx)
		best = math.Max(best, screen.BetaMax(m)) // NaN wins
		idx = idx[:0]
	}
	for j := range all {
		if len(idx) == o.tune.residualBlock {
			flush()
		}
		idx = append(idx, j)
	}
	flush()
	return best
}

// setWeights installs the active weights x: the state part in reference
// order (xState), the rest into wtail, and everything into the full-size
// vector when scoring is dense.
func (o *Objective) setWeights(x []float64) {
	ns := o.fs.numState()
	o.xState = x[:ns]
	off := o.m.Layout.StateLen()
	if o.prior == nil {
		for k := ns; k < len(x); k++ {
			o.wtail[int(o.fs.active[k])-off] = x[k]
		}
	} else {
		for k := ns; k < len(x); k++ {
			j := int(o.fs.active[k]) - off
			o.wtail[j] = o.prior.tail[j] + x[k]
		}
	}
	if o.blk != nil {
		o.blk.setWeights(o.fs, o.xState)
	}
	if o.wfull != nil {
		sparse.Scatter(o.wfull, x, o.fs.active)
		if o.prior != nil {
			copy(o.wfull[off:], o.wtail) // the prior's tail and the active weights on it
		}
	}
}

// forwardShards runs forward-backward on every sequence, shard by shard:
// each shard's loss, edge and pair expectations (and fused state
// expectations) into its own buffers, the node marginals into o.mu.
func (o *Objective) forwardShards(ctx context.Context) error {
	o.mu = resizeFloats(o.mu, o.c.Positions()*o.m.NumLabels())
	o.nll = resizeFloats(o.nll, o.c.Len())
	if o.refFused {
		// A group's shards share its buffer: one goroutine runs them in order.
		const per = numShards / refGroups
		par.For(o.threads, refGroups, func(g int) {
			clear(o.shard[g*per].refExp)
			for s := g * per; s < (g+1)*per; s++ {
				o.forwardShard(ctx, s)
			}
		})
	} else {
		par.For(o.threads, numShards, func(s int) { o.forwardShard(ctx, s) })
	}
	for s := range o.shard {
		if err := o.shard[s].err; err != nil {
			return err
		}
	}
	return nil
}

// forwardOne runs forward-backward on sequence i and accumulates its
// contributions into the shard.
func (o *Objective) forwardOne(sh *shardState, i int) {
	c := o.live
	L := o.m.NumLabels()
	var lat *inference.Lattice
	if o.sparseLabels {
		lat = o.scoreSparse(&sh.lat, c, i)
	} else {
		lat = lattice.Score(&sh.lat, o.m.Layout, o.wfull, &o.liveRows, i)
	}
	start, T := c.Span(i)
	if o.blk != nil {
		o.blk.score(lat.Unary, start, T)
	}
	if o.prior != nil {
		floats.Add(lat.Unary, o.prior.unary[start*L:(start+T)*L])
	}
	node := o.mu[start*L : (start+T)*L]
	if o.partial != nil {
		// The numerator: the constrained forward-backward, run first so
		// that the workspace ends with the model's own pass.
		logZc, err := o.partial.constrained(sh, lat, start, T)
		if err != nil && sh.err == nil {
			sh.err = fmt.Errorf("%w (sequence %d)", err, i+1)
		}
		sh.loss -= logZc
	}
	logZ := inference.ForwardBackwardTo(sh.ws, lat, node)
	if o.partial != nil {
		sh.loss += logZ
		// Node marginals minus the constrained ones: every accumulation
		// of expected counts then yields E_model - E_constrained, and the
		// observed counts are zero.
		floats.Sub(node, sh.cNode[:T*L])
	} else {
		o.nll[i] = logZ - GoldScore(lat, c.Labels[start:start+T])
		if o.weights == nil {
			sh.loss += o.nll[i]
		}
	}
	sw := 1.0
	if o.weights != nil {
		sw = o.weights[i]
		sh.weigh(node, sw, o.nll[i])
	}
	if o.blk != nil {
		o.blk.count(&sh.blk, node, start, T)
	}
	if sh.stateExp != nil {
		o.accumulateState(sh.stateExp, node, start, T)
	}
	if sh.refExp != nil {
		o.accumulateRefs(sh.refExp, node, start, T)
	}
	if T > 1 {
		if o.weights == nil {
			floats.Add(sh.edge, sh.ws.EdgeSum())
		} else {
			floats.AddScaled(sh.edge, sw, sh.ws.EdgeSum())
		}
		if sh.pairExp != nil && c.Pair.Rows() > 0 {
			sh.accumulatePairs(c, L*L, lat, start, T, sw)
		}
	}
}

// forwardShard runs forward-backward on the sequences of shard s.
func (o *Objective) forwardShard(ctx context.Context, s int) {
	sh := &o.shard[s]
	sh.loss, sh.err = 0, nil
	clear(sh.edge)
	if sh.pairExp != nil {
		clear(sh.pairExp)
	}
	if sh.stateExp != nil {
		clear(sh.stateExp)
	}
	for _, g := range sh.blk.g {
		clear(g)
	}
	nseq := o.live.Len()
	for i := s * nseq / numShards; i < (s+1)*nseq/numShards; i++ {
		if i&63 == 0 && ctx.Err() != nil {
			sh.err = ctx.Err()
			return
		}
		o.forwardOne(sh, i)
	}
}

// GoldScore returns the score of the gold label sequence in the lattice.
func GoldScore(lat *inference.Lattice, labels []int32) float64 {
	L := lat.L
	gold := 0.0
	for t := range labels {
		y := int(labels[t])
		gold += lat.Unary[t*L+y]
		if t > 0 {
			yp := int(labels[t-1])
			if lat.Trans != nil {
				gold += lat.Trans[yp*L+y]
			}
			if lat.TransAt != nil {
				gold += lat.TransAt[t*L*L+yp*L+y]
			}
		}
	}
	return gold
}

// accumulateState adds the expected state counts of one sequence (fused
// mode) into e (U*L).
func (o *Objective) accumulateState(e, node []float64, start, T int) {
	L := o.m.NumLabels()
	c := o.live
	for t := 0; t < T; t++ {
		mu := node[t*L : t*L+L]
		cols, vals := c.Unary.Row(start + t)
		for k, a := range cols {
			v := 1.0
			if vals != nil {
				v = vals[k]
			}
			base := int(a) * L
			if o.sparseLabels {
				for _, y := range o.fs.labels(a) {
					e[base+int(y)] += v * mu[y]
				}
				continue
			}
			floats.AddScaled(e[base:base+L], v, mu)
		}
	}
}

// accumulateRefs adds the expected counts of the active state features of
// one sequence into e, indexed like the feature set's references.
func (o *Objective) accumulateRefs(e, node []float64, start, T int) {
	L := o.m.NumLabels()
	x, lab, span := &o.live.Unary, o.fs.refLab, o.refSpan
	var full fullSpans
	for t := 0; t < T; t++ {
		mu := node[t*L : t*L+L]
		for k := x.RowPtr[start+t]; k < x.RowPtr[start+t+1]; k++ {
			lo, hi := span[2*k], span[2*k+1]
			v := 1.0
			if x.Val != nil {
				v = x.Val[k]
			}
			switch {
			case int(hi-lo) == L && x.Val == nil:
				// Every label active (refs lo..hi-1 hold labels 0..L-1):
				// the sums of the loops below, as one vector add at the
				// end of the row (fullSpans).
				full.add(e, mu, lo, hi)
			case int(hi-lo) == L:
				floats.AddScaled(e[lo:hi], v, mu)
			case x.Val == nil:
				for r := lo; r < hi; r++ {
					e[r] += mu[lab[r]]
				}
			default:
				for r := lo; r < hi; r++ {
					e[r] += v * mu[lab[r]]
				}
			}
		}
		full.flush(e, mu)
	}
}

// fullSpans collects the spans of one row's attributes whose every label
// is counted, and adds the row's node marginals to all of them in one
// spanadd.Scatter call (mu kept in registers). Deferring them to the end
// of the row leaves each count's additions in position order: the spans
// of different attributes are disjoint, and an attribute repeated in the
// row keeps its order.
type fullSpans struct {
	s [64]int32
	n int
}

// add defers the addition of mu to dst[lo:hi] (flushing first when the
// buffer is full).
func (f *fullSpans) add(dst, mu []float64, lo, hi int32) {
	if f.n == len(f.s) {
		f.flush(dst, mu)
	}
	f.s[f.n], f.s[f.n+1] = lo, hi
	f.n += 2
}

// flush adds mu to every deferred span of dst and empties the buffer.
func (f *fullSpans) flush(dst, mu []float64) {
	if f.n > 0 {
		spanadd.Scatter(dst, mu, f.s[:f.n])
		f.n = 0
	}
}

// accumulatePairs adds the expected pair counts of the sequence at
// [start, start+T) of c (LL = L*L) into the shard's buffer.
func (sh *shardState) accumulatePairs(c *sparse.Corpus, LL int, lat *inference.Lattice, start, T int, sw float64) {
	for t := 1; t < T; t++ {
		pc, pv := c.Pair.Row(start + t)
		if len(pc) == 0 {
			continue
		}
		e := sh.ws.EdgeAt(sh.edgeBuf, lat, t)
		for k, a := range pc {
			v := sw
			if pv != nil {
				v = sw * pv[k]
			}
			floats.AddScaled(sh.pairExp[int(a)*LL:int(a)*LL+LL], v, e)
		}
	}
}

// reduceShards adds the shards' losses, transition and pair expectations
// in shard order and returns the summed loss.
func reduceShards(m *chain.Model, shard []shardState, eTail []float64) float64 {
	LL := m.NumLabels() * m.NumLabels()
	loss := 0.0
	for s := range shard {
		loss += shard[s].loss
	}
	if m.Layout.Transitions {
		e := eTail[:LL]
		clear(e)
		for s := range shard {
			for k, v := range shard[s].edge {
				e[k] += v
			}
		}
	}
	if m.Layout.NumPair > 0 {
		e := eTail[m.Layout.PairOffset()-m.Layout.StateLen():]
		clear(e)
		for s := range shard {
			for k, v := range shard[s].pairExp {
				e[k] += v
			}
		}
	}
	return loss
}

// stateExpectations computes the expected counts of the active state
// features into o.exp (reference order): a reduction of the per-shard
// buffers in shard order (fused, refFused), or a scatter of the stored node
// marginals in position order over the live corpus (scatterExpectations).
func (o *Objective) stateExpectations() {
	const chunk = 256
	U := o.m.Layout.NumUnary
	if !o.fused && !o.refFused {
		o.scatterExpectations(o.live, o.fs.refPtr, o.fs.active, o.exp, nil)
		return
	}
	par.For(o.threads, (U+chunk-1)/chunk, func(k int) {
		for a := k * chunk; a < min(U, (k+1)*chunk); a++ {
			if o.fused {
				reduceStateShards(o.exp, o.shard, o.fs, a)
			} else {
				reduceRefShards(o.exp, o.shard, o.fs.refPtr, a)
			}
		}
	})
}

// reduceRefShards sums attribute a's per-group expectations of its active
// labels (references refPtr[a]..refPtr[a+1]) in group order into exp.
func reduceRefShards(exp []float64, shard []shardState, refPtr []int32, a int) {
	const per = numShards / refGroups
	for r := refPtr[a]; r < refPtr[a+1]; r++ {
		v := 0.0
		for g := range refGroups {
			v += shard[g*per].refExp[r]
		}
		exp[r] = v
	}
}

// reduceStateShards sums attribute a's fused per-shard state expectations
// of its active labels (fs's references) in shard order into exp.
func reduceStateShards(exp []float64, shard []shardState, fs *Features, a int) {
	L := fs.m.NumLabels()
	for r := fs.refPtr[a]; r < fs.refPtr[a+1]; r++ {
		j := a*L + int(fs.refLab[r])
		v := 0.0
		for s := range shard {
			v += shard[s].stateExp[j]
		}
		exp[r] = v
	}
}

// scatterExpectations sums into dst the expected counts of the state
// features ids over the unary rows of c in position order, streaming the
// node marginals o.mu. The features of attribute a are
// ids[ptr[a]:ptr[a+1]] (increasing, so label ids[r] - a*L), and dst is
// indexed like ids. Each worker owns a contiguous range of attributes
// (split by occurrence counts) and scans every row, so each count is
// summed in position order by one worker: bit-identical whatever the
// number of workers and whichever features ids holds, and the marginals
// are read in the order they are stored instead of gathered per attribute
// (which missed the cache on every frequent attribute). Attributes a with
// skip[a] (skip may be nil) are left out: their counts stay 0.
func (o *Objective) scatterExpectations(c *sparse.Corpus, ptr, ids []int32, dst []float64, skip []bool) {
	parts, split := o.attrSplit, o.splits.of(c, o.c, o.live, o.attrSplit)
	par.For(len(parts)-1, len(parts)-1, func(k int) {
		scatterRange(o.mu, o.m.NumLabels(), c, ptr, ids, dst, skip, parts[k], parts[k+1], split, k)
	})
}

// attrParts splits the attributes into threads contiguous ranges of about
// equal occurrence counts (attrCum: cumulative counts, len U+1), as
// boundaries [0, ..., U].
func attrParts(attrCum []int32, threads int) []int32 {
	U := int32(len(attrCum) - 1)
	n := max(1, min(threads, int(U)))
	parts := make([]int32, n+1)
	parts[n] = U
	total := int64(attrCum[U])
	a := int32(0)
	for k := 1; k < n; k++ {
		target := total * int64(k) / int64(n)
		for a < U && int64(attrCum[a]) < target {
			a++
		}
		parts[k] = a
	}
	return parts
}

// scatterRange is scatterExpectations for the attributes [alo, ahi), with
// the node marginals mu (positions x L), over the entries of each row
// where split says that this range (part) is (every entry when split is
// nil; filtered by [alo, ahi) either way).
func scatterRange(mu []float64, L int, c *sparse.Corpus, ptr, ids []int32, dst []float64, skip []bool, alo, ahi int32,
	split *rowSplit, part int) {
	nodes := mu
	clear(dst[ptr[alo]:ptr[ahi]])
	var full fullSpans
	x := &c.Unary
	for p := 0; p < x.Rows(); p++ {
		from, to := split.bounds(x, part, p)
		cols := x.Col[from:to]
		var vals []float64
		if x.Val != nil {
			vals = x.Val[from:to]
		}
		mu := nodes[p*L : p*L+L]
		for k, a := range cols {
			if a < alo || a >= ahi {
				continue
			}
			lo, hi := ptr[a], ptr[a+1]
			if lo == hi || (skip != nil && skip[a]) {
				continue
			}
			v := 1.0
			if vals != nil {
				v = vals[k]
			}
			e := dst[lo:hi]
			switch {
			case len(e) == L && vals == nil:
				// Every label (ids lo..hi-1 are a*L .. a*L+L-1): the sums
				// of the loop below, as one vector add at the end of the
				// row (fullSpans).
				full.add(dst, mu, lo, hi)
			case len(e) == L:
				floats.AddScaled(e, v, mu)
			default:
				base := a * int32(L)
				for r, j := range ids[lo:hi] {
					e[r] += v * mu[j-base]
				}
			}
		}
		full.flush(dst, mu)
	}
}

// counts is a vector of observed counts: dense, or (for large models) the
// state block as a sorted sparse list (most (attribute, label) pairs are
// never observed) and the blocks after it dense.
type counts struct {
	dense    []float64
	stIdx    []int32
	stVal    []float64
	tail     []float64
	stateLen int
}

// countCursor reads a counts vector at increasing indices in amortized
// constant time.
type countCursor struct {
	c *counts
	k int
}

func (c *counts) cursor() countCursor { return countCursor{c: c} }

// at returns the count of feature j; successive calls must not decrease j.
func (cc *countCursor) at(j int32) float64 {
	c := cc.c
	switch {
	case c.dense != nil:
		return c.dense[j]
	case int(j) >= c.stateLen:
		return c.tail[int(j)-c.stateLen]
	}
	for cc.k < len(c.stIdx) && c.stIdx[cc.k] < j {
		cc.k++
	}
	if cc.k < len(c.stIdx) && c.stIdx[cc.k] == j {
		return c.stVal[cc.k]
	}
	return 0
}

// Memory reports, through add, the objective's terms of a run's memory
// estimate for the model layout m on corpus c that do not depend on the
// active set: the feature set, the observed counts, the node marginals and
// the per-shard buffers (ActiveMemory adds the rest). The terms are upper
// bounds by design: every buffer the objective allocates has one.
func Memory(m *chain.Model, c *sparse.Corpus, add func(name string, bytes int64)) {
	d := int64(len(m.W))
	L := int64(m.NumLabels())
	U, P := int64(m.Layout.NumUnary), int64(m.Layout.NumPair)
	N, nnz := int64(c.Positions()), int64(c.Unary.NNZ())
	add("objective transition and pair weights and counts (2 x 8 B x features after the state block)", 16*(d-U*L))
	add("node marginals (8 B x positions x labels)", 8*N*L)
	if numShards*U*L*8 <= defaultFusedBudget {
		add("observed counts (8 B x features)", 8*d)
		add("per-shard state expectations (64 x 8 B x attributes x labels)", numShards*U*L*8)
	} else {
		add("observed counts (state pairs seen in training, transitions and pairs)", 12*nnz+8*(d-U*L))
		add("attribute occurrence counts (4 B x attributes)", 4*U)
		add("attribute columns while counting observed features (4-12 B x attribute occurrences, freed after)", 12*nnz)
	}
	add("per-shard pair expectations (64 x 8 B x pair features)", numShards*P*L*L*8)
	for k := range c.Dense {
		D := int64(c.Dense[k].D)
		add("dense block: weights, counts and per-shard counts ((64+2) x 8 B x dimensions x labels, 64 x 8 B x dimensions x 16)",
			(numShards+2)*8*D*L+numShards*8*D*countChunk)
	}
	add("feature set and screened set (2 bits x features)", d/4)
}

// ActiveMemory reports, through add, the objective's terms over the active
// set, for the worst case of a run: full, an active set that may hold
// every feature; else a working set.
func ActiveMemory(m *chain.Model, c *sparse.Corpus, full bool, add func(name string, bytes int64)) {
	d, nnz := int64(len(m.W)), int64(c.Unary.NNZ())
	if full {
		add("objective weights for dense scoring and expected counts (2 x 8 B x features)", 16*d)
		add("m and label references over every feature (12 B x features)", 12*d)
		return
	}
	add("objective weights for dense scoring, when a working set holds half the labels of its attributes (8 B x features)", 8*d)
	add("reference spans of the scoring rows (8 B x attribute occurrences)", 8*nnz)
}
