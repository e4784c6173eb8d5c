package chain

import (
	"context"
	"math"
	"sync"

	"github.com/sparsetag/sparsetag/inference"
	"github.com/sparsetag/sparsetag/sparse"
)

// numShards is the fixed number of contiguous groups of sequences that one
// evaluation is split into. It does not depend on the number of goroutines,
// and shard results are reduced in shard order, so the objective and its
// gradient are bit-identical whatever the number of workers.
const numShards = 64

// objective computes, in one pass over the data, the average negative
// log-likelihood L(w), its gradient and m = -grad L(w) restricted to the
// active features, for a model layout (see Model) over an encoded corpus.
//
// Gradient accumulation is deterministic and parallel without per-worker
// copies of the gradient: node marginals of every position are stored, then
// the expected counts of state features are summed per attribute over a
// column-major (attribute → positions) copy of the data, each attribute by
// one worker, in position order.
type objective struct {
	m       *Model // layout only (labels, counts, transitions)
	c       *sparse.Corpus
	threads int
	n       float64 // number of sequences

	// Column-major copy of c.Unary for the expectation pass.
	colPtr []int32 // len U+1
	colPos []int32 // position index of each entry
	colVal []float64

	obs []float64 // observed feature counts, full size (sum over sequences)

	// Per evaluation.
	wfull []float64 // full-size weights (zeros outside the active set)
	exp   []float64 // full-size expected counts
	mu    []float64 // node marginals of every position, Positions()*L
	shard []shardState

	// Active set: indices into the full vector, increasing.
	active   []int32
	attrLive []bool // attribute has at least one active state feature

	// live is the corpus used for scoring: c itself, or a copy of it whose
	// Unary rows omit the attributes with no active state feature, so that
	// scoring gets cheaper as screening removes attributes.
	live      *sparse.Corpus
	liveAttrs int // number of live attributes when live was built

	// Sparse label lists: when few state features are active, scoring and
	// expectations visit only the active labels of each attribute (labels
	// of attribute a are alLab[alPtr[a]:alPtr[a+1]]). Skipping features
	// whose weight is zero does not change any sum, so both modes give
	// bit-identical results.
	sparseLabels bool
	alPtr        []int32
	alLab        []int32

	// fused: expected state counts are accumulated per shard during the
	// forward-backward pass (dense U*L buffers, reduced in shard order)
	// instead of by the column pass. Used when the buffers are small.
	fused bool
}

// fusedBudget bounds the memory of the per-shard state expectation buffers
// (a variable so that tests can exercise both accumulation paths).
var fusedBudget = 64 << 20

type shardState struct {
	ws       *inference.Workspace
	lat      lattice
	loss     float64
	edge     []float64 // L*L expected transition counts
	pairExp  []float64 // P*L*L expected pair counts (only when P > 0)
	stateExp []float64 // U*L expected state counts (only when fused)
	edgeBuf  []float64
	err      error
}

func newObjective(m *Model, c *sparse.Corpus, threads int) *objective {
	L := m.NumLabels()
	d := len(m.W)
	o := &objective{m: m, c: c, threads: max(threads, 1), n: float64(c.Len())}
	o.wfull = make([]float64, d)
	o.exp = make([]float64, d)
	o.mu = make([]float64, c.Positions()*L)
	o.shard = make([]shardState, numShards)
	for s := range o.shard {
		o.shard[s].ws = inference.NewWorkspace(c.MaxLen(), L)
		o.shard[s].edge = make([]float64, L*L)
		if m.NumPair > 0 {
			o.shard[s].pairExp = make([]float64, m.NumPair*L*L)
			o.shard[s].edgeBuf = make([]float64, L*L)
		}
	}
	o.fused = numShards*m.NumUnary*L*8 <= fusedBudget
	if o.fused {
		for s := range o.shard {
			o.shard[s].stateExp = make([]float64, m.NumUnary*L)
		}
	} else {
		o.buildColumns()
	}
	o.obs = observedCounts(m, c)
	o.attrLive = make([]bool, m.NumUnary)
	o.live = c
	o.liveAttrs = m.NumUnary
	return o
}

// buildColumns builds the column-major copy of the unary attributes.
func (o *objective) buildColumns() {
	U := o.m.NumUnary
	x := &o.c.Unary
	cnt := make([]int32, U+1)
	for _, a := range x.Col {
		cnt[a+1]++
	}
	for a := 0; a < U; a++ {
		cnt[a+1] += cnt[a]
	}
	o.colPtr = cnt
	o.colPos = make([]int32, len(x.Col))
	if x.Val != nil {
		o.colVal = make([]float64, len(x.Col))
	}
	next := make([]int32, U)
	copy(next, cnt[:U])
	for p := 0; p < x.Rows(); p++ {
		lo, hi := x.RowPtr[p], x.RowPtr[p+1]
		for k := lo; k < hi; k++ {
			a := x.Col[k]
			q := next[a]
			next[a]++
			o.colPos[q] = int32(p)
			if o.colVal != nil {
				o.colVal[q] = x.Val[k]
			}
		}
	}
}

// observedCounts returns F(x, y_gold) summed over the corpus, full size.
func observedCounts(m *Model, c *sparse.Corpus) []float64 {
	L := m.NumLabels()
	obs := make([]float64, len(m.W))
	toff, poff := m.TransOffset(), m.PairOffset()
	for i := 0; i < c.Len(); i++ {
		start, T := c.Span(i)
		for t := 0; t < T; t++ {
			p := start + t
			y := int(c.Labels[p])
			cols, vals := c.Unary.Row(p)
			for k, a := range cols {
				v := 1.0
				if vals != nil {
					v = vals[k]
				}
				obs[int(a)*L+y] += v
			}
			if t > 0 {
				yp := int(c.Labels[p-1])
				if m.Transitions {
					obs[toff+yp*L+y]++
				}
				if m.NumPair > 0 && c.Pair.Rows() > 0 {
					pc, pv := c.Pair.Row(p)
					for k, a := range pc {
						v := 1.0
						if pv != nil {
							v = pv[k]
						}
						obs[poff+int(a)*L*L+yp*L+y] += v
					}
				}
			}
		}
	}
	return obs
}

// setActive installs the active set (increasing full indices).
func (o *objective) setActive(active []int32) {
	o.active = active
	L := o.m.NumLabels()
	clear(o.attrLive)
	live := 0
	for _, j := range active {
		if int(j) < o.m.NumUnary*L && !o.attrLive[int(j)/L] {
			o.attrLive[int(j)/L] = true
			live++
		}
	}
	clear(o.wfull)
	o.buildLabelLists(live)
	switch {
	case live == o.m.NumUnary:
		o.live, o.liveAttrs = o.c, live
	case float64(live) < 0.9*float64(o.liveAttrs):
		o.live, o.liveAttrs = o.compactCorpus(), live
	}
}

// sparseLabelFraction is the fraction of active state features (among
// those of live attributes) below which label lists replace dense rows.
const sparseLabelFraction = 0.5

// buildLabelLists decides between dense rows and label lists and builds the
// lists.
func (o *objective) buildLabelLists(live int) {
	L := o.m.NumLabels()
	U := o.m.NumUnary
	nState := 0
	for _, j := range o.active {
		if int(j) < U*L {
			nState++
		}
	}
	o.sparseLabels = float64(nState) < sparseLabelFraction*float64(live*L)
	if !o.sparseLabels {
		return
	}
	if cap(o.alPtr) < U+1 {
		o.alPtr = make([]int32, U+1)
	}
	o.alPtr = o.alPtr[:U+1]
	o.alLab = o.alLab[:0]
	k := 0
	for a := 0; a < U; a++ {
		o.alPtr[a] = int32(len(o.alLab))
		for k < len(o.active) && int(o.active[k]) < (a+1)*L {
			o.alLab = append(o.alLab, o.active[k]-int32(a*L))
			k++
		}
	}
	o.alPtr[U] = int32(len(o.alLab))
}

// scoreSparse is Model.score for the training objective in label-list
// mode: only active (attribute, label) weights are visited.
func (o *objective) scoreSparse(s *lattice, c *sparse.Corpus, i int) *inference.Lattice {
	m := o.m
	L := m.NumLabels()
	start, T := c.Span(i)
	if cap(s.unary) < T*L {
		s.unary = make([]float64, T*L)
	}
	unary := s.unary[:T*L]
	clear(unary)
	w := o.wfull
	for t := 0; t < T; t++ {
		row := unary[t*L : t*L+L]
		cols, vals := c.Unary.Row(start + t)
		for k, a := range cols {
			base := int(a) * L
			labs := o.alLab[o.alPtr[a]:o.alPtr[a+1]]
			if vals == nil {
				for _, y := range labs {
					row[y] += w[base+int(y)]
				}
			} else {
				v := vals[k]
				for _, y := range labs {
					row[y] += v * w[base+int(y)]
				}
			}
		}
	}
	return m.finishLattice(s, w, c, i, unary)
}

// compactCorpus returns a copy of the corpus whose unary rows keep only the
// live attributes (ids unchanged). Sequences, labels and pair rows are
// shared with c.
func (o *objective) compactCorpus() *sparse.Corpus {
	c := o.c
	x := &c.Unary
	out := *c
	nnz := 0
	for _, a := range x.Col {
		if o.attrLive[a] {
			nnz++
		}
	}
	nx := sparse.Matrix{RowPtr: make([]int32, 1, x.Rows()+1), Col: make([]int32, 0, nnz)}
	if x.Val != nil {
		nx.Val = make([]float64, 0, nnz)
	}
	for p := 0; p < x.Rows(); p++ {
		for k := x.RowPtr[p]; k < x.RowPtr[p+1]; k++ {
			if a := x.Col[k]; o.attrLive[a] {
				nx.Col = append(nx.Col, a)
				if x.Val != nil {
					nx.Val = append(nx.Val, x.Val[k])
				}
			}
		}
		nx.RowPtr = append(nx.RowPtr, int32(len(nx.Col)))
	}
	out.Unary = nx
	return &out
}

// parallel runs f(k) for k in [0, n) on o.threads goroutines. Each k is run
// by exactly one goroutine; results must be written to k-owned storage.
func (o *objective) parallel(n int, f func(k int)) {
	workers := min(o.threads, n)
	if workers <= 1 {
		for k := 0; k < n; k++ {
			f(k)
		}
		return
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	next := 0
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				k := next
				next++
				mu.Unlock()
				if k >= n {
					return
				}
				f(k)
			}
		}()
	}
	wg.Wait()
}

// eval computes f = L(w) and writes into mActive the vector m = -grad L(w)
// over the active set, given the active weights x. It leaves the expected
// counts in o.exp and the marginals in o.mu.
func (o *objective) eval(ctx context.Context, x, mActive []float64) (float64, error) {
	m := o.m
	L := m.NumLabels()
	LL := L * L
	sparse.Scatter(o.wfull, x, o.active)
	c := o.live
	nseq := c.Len()
	toff, poff := m.TransOffset(), m.PairOffset()

	// Pass 1: per shard, forward-backward of every sequence.
	o.parallel(numShards, func(s int) {
		sh := &o.shard[s]
		sh.loss = 0
		sh.err = nil
		clear(sh.edge)
		if sh.pairExp != nil {
			clear(sh.pairExp)
		}
		if sh.stateExp != nil {
			clear(sh.stateExp)
		}
		lo, hi := s*nseq/numShards, (s+1)*nseq/numShards
		for i := lo; i < hi; i++ {
			if i&63 == 0 && ctx.Err() != nil {
				sh.err = ctx.Err()
				return
			}
			var lat *inference.Lattice
			if o.sparseLabels {
				lat = o.scoreSparse(&sh.lat, c, i)
			} else {
				lat = m.score(&sh.lat, o.wfull, c, i)
			}
			logZ := inference.ForwardBackward(sh.ws, lat)
			start, T := c.Span(i)
			gold := 0.0
			for t := 0; t < T; t++ {
				y := int(c.Labels[start+t])
				gold += lat.Unary[t*L+y]
				if t > 0 {
					yp := int(c.Labels[start+t-1])
					if lat.Trans != nil {
						gold += lat.Trans[yp*L+y]
					}
					if lat.TransAt != nil {
						gold += lat.TransAt[t*LL+yp*L+y]
					}
				}
			}
			sh.loss += logZ - gold
			node := sh.ws.Node()
			copy(o.mu[start*L:(start+T)*L], node)
			if sh.stateExp != nil && o.sparseLabels {
				for t := 0; t < T; t++ {
					mu := node[t*L : t*L+L]
					cols, vals := c.Unary.Row(start + t)
					for k, a := range cols {
						base := int(a) * L
						labs := o.alLab[o.alPtr[a]:o.alPtr[a+1]]
						v := 1.0
						if vals != nil {
							v = vals[k]
						}
						for _, y := range labs {
							sh.stateExp[base+int(y)] += v * mu[y]
						}
					}
				}
			} else if sh.stateExp != nil {
				for t := 0; t < T; t++ {
					mu := node[t*L : t*L+L]
					cols, vals := c.Unary.Row(start + t)
					for k, a := range cols {
						e := sh.stateExp[int(a)*L : int(a)*L+L]
						if vals == nil {
							for y, p := range mu {
								e[y] += p
							}
						} else {
							v := vals[k]
							for y, p := range mu {
								e[y] += v * p
							}
						}
					}
				}
			}
			if T > 1 {
				es := sh.ws.EdgeSum()
				for k := range sh.edge {
					sh.edge[k] += es[k]
				}
				if lat.TransAt != nil && sh.pairExp != nil {
					for t := 1; t < T; t++ {
						pc, pv := c.Pair.Row(start + t)
						if len(pc) == 0 {
							continue
						}
						e := sh.ws.EdgeAt(sh.edgeBuf, lat, t)
						for k, a := range pc {
							v := 1.0
							if pv != nil {
								v = pv[k]
							}
							blk := sh.pairExp[int(a)*LL : int(a)*LL+LL]
							for q := range blk {
								blk[q] += v * e[q]
							}
						}
					}
				}
			}
		}
	})
	loss := 0.0
	for s := range o.shard {
		if err := o.shard[s].err; err != nil {
			return 0, err
		}
		loss += o.shard[s].loss
	}
	// Reduce transitions and pair expectations in shard order.
	if m.Transitions {
		e := o.exp[toff : toff+LL]
		clear(e)
		for s := range o.shard {
			for k, v := range o.shard[s].edge {
				e[k] += v
			}
		}
	}
	if m.NumPair > 0 {
		e := o.exp[poff:]
		clear(e)
		for s := range o.shard {
			if o.shard[s].pairExp == nil {
				continue
			}
			for k, v := range o.shard[s].pairExp {
				e[k] += v
			}
		}
	}
	// Pass 2: expected state counts, attribute by attribute: a reduction of
	// the per-shard buffers in shard order, or a pass over the columns.
	U := m.NumUnary
	const chunk = 256
	nchunks := (U + chunk - 1) / chunk
	if o.fused {
		o.parallel(nchunks, func(k int) {
			for a := k * chunk; a < min(U, (k+1)*chunk); a++ {
				e := o.exp[a*L : a*L+L]
				clear(e)
				if !o.attrLive[a] {
					continue
				}
				for s := range o.shard {
					se := o.shard[s].stateExp[a*L : a*L+L]
					for y := range e {
						e[y] += se[y]
					}
				}
			}
		})
	}
	if !o.fused {
		o.parallel(nchunks, func(k int) {
			for a := k * chunk; a < min(U, (k+1)*chunk); a++ {
				e := o.exp[a*L : a*L+L]
				clear(e)
				if !o.attrLive[a] {
					continue
				}
				var labs []int32
				if o.sparseLabels {
					labs = o.alLab[o.alPtr[a]:o.alPtr[a+1]]
				}
				for q := o.colPtr[a]; q < o.colPtr[a+1]; q++ {
					p := int(o.colPos[q])
					mu := o.mu[p*L : p*L+L]
					if labs != nil {
						v := 1.0
						if o.colVal != nil {
							v = o.colVal[q]
						}
						for _, y := range labs {
							e[y] += v * mu[y]
						}
					} else if o.colVal != nil {
						v := o.colVal[q]
						for y := range e {
							e[y] += v * mu[y]
						}
					} else {
						for y := range e {
							e[y] += mu[y]
						}
					}
				}
			}
		})
	}

	inv := 1 / o.n
	for k, j := range o.active {
		mActive[k] = (o.obs[j] - o.exp[j]) * inv
	}
	if math.IsNaN(loss) || math.IsInf(loss, 0) {
		return loss * inv, errNonFinite
	}
	return loss * inv, nil
}
