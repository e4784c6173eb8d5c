package warmstart

import (
	"runtime"
	"sync/atomic"
	"time"

	"github.com/sparsetag/sparsetag/sparse"
)

// The catch-up of the next sequence on a second goroutine (Settings.Threads
// >= 2). During step k (sequence i_k), a helper goroutine brings up to
// date the state blocks of the next sequence i_(k+1) that i_k does not
// use, to the penalty total u_(k+1) of the next step's catch-up:
//
//   - step k neither reads nor writes those blocks (they are not in its
//     rows), and each of them is caught up by one goroutine;
//   - u_(k+1) is known before step k runs: the shrink of step k computes it
//     from a, u and eta_k alone (sgd.advance), unless step k rescales v and
//     q (a below minScale), in which case nothing is handed over;
//   - the clip of a block gives the same bits whoever runs it and whenever
//     it runs, as long as the block and u are the same.
//
// So step k+1 finds those blocks as its own catch-up would leave them and
// catches up the others only (those shared with step k, the transitions
// and the pair blocks): the same bits as one goroutine, for any
// scheduling. The main goroutine lists the blocks (gather) and marks them
// in sgd.slotU (slotCaught); the next step's collect turns the mark into a
// slot and leaves the block out of its catch-up list (sgd.stale).
//
// The hand-off is one per step (about 20 k on CoNLL-2000, 25-35
// microseconds of work each), and a goroutine wake-up costs about 15
// microseconds (docs/setup.md), so the helper waits for work by spinning
// on an atomic word, and the work is claimed in batches of prefetchBatch
// blocks: the helper claims batches while the step runs, and the main
// goroutine, when its step is done, claims what is left (finish) and
// waits only for the batch the helper is in. A helper that is late (not
// scheduled, or yielding to another goroutine) thus never holds the main
// goroutine up by more than one batch. Each side spins spinBeforeYield
// rounds, then yields (runtime.Gosched, so that the beta_max pass beside
// the warm start gets a processor) every round, and parks on a channel
// after spinBeforePark, about two steps (between epochs, or when the
// system has descheduled the other side's thread: on a loaded machine a
// spinning helper would take the main goroutine's share of the CPU).

// slotCaught marks, in sgd.slotU, a unary attribute whose block is listed
// for the helper's catch-up for the next step (-1: not in the current
// sequence).
const slotCaught = -2

const (
	prefetchBatch   = 16                     // blocks per claim
	spinBeforeYield = 64                     // rounds a waiting goroutine spins before it yields in each round
	spinBeforePark  = 100 * time.Microsecond // how long it spins and yields before it parks
	claimClosed     = 1<<32 - 1
	cacheLine       = 64
)

// prefetch is the hand-off between the main goroutine and the helper.
// The words each side spins on are on cache lines of their own: a
// spinning reader of a line that the other side writes to (the list it
// appends to) would take the line away at every write.
type prefetch struct {
	// claim is the job's number (high 32 bits) and the position in list
	// of the next batch to claim (low 32 bits; claimClosed once the main
	// goroutine has taken the rest). The helper spins on it.
	claim   atomic.Uint64
	quit    atomic.Bool
	parkedH atomic.Bool // the helper is parked
	_       [cacheLine - 16]byte
	// finished counts the helper's claims done in the current job. The
	// main goroutine spins on it.
	finished atomic.Uint64
	parkedM  atomic.Bool // the main goroutine is parked
	_        [cacheLine - 16]byte

	s *sgd
	// src is the corpus the sequences index: the corpus, or the corpus
	// with dense blocks (gather expands rows with its own buffer).
	src  *sparse.Corpus
	rows sparse.RowBuffer

	// The job: the blocks to catch up and the penalty total, written by
	// the main goroutine before it publishes the job in claim, read by
	// the helper after a claim of the job succeeded.
	list []int32
	u    float64
	job  uint64 // the current job's number (main goroutine)

	wakeH, wakeM chan struct{} // wake-ups of the parked side (capacity 1)
	exited       chan struct{}

	// listed counts the blocks of every job (tests); with helperAll
	// (tests), finish waits until the helper has claimed the whole job,
	// so that the helper catches up every block listed.
	listed    int
	helperAll bool
}

// startPrefetch starts the helper goroutine of s; stopPrefetch ends it.
func (s *sgd) startPrefetch() {
	p := &prefetch{s: s, src: s.c, wakeH: make(chan struct{}, 1), wakeM: make(chan struct{}, 1), exited: make(chan struct{})}
	if s.full != nil {
		p.src = s.full
	}
	s.pf = p
	go p.run()
}

// stopPrefetch ends the helper goroutine, if one runs (no job may be
// open).
func (s *sgd) stopPrefetch() {
	p := s.pf
	if p == nil {
		return
	}
	p.quit.Store(true)
	if p.parkedH.CompareAndSwap(true, false) {
		p.wakeH <- struct{}{}
	}
	<-p.exited
	s.pf = nil
}

// gather lists the live state blocks of sequence seq of src that the
// current sequence does not use (slot -1) and marks them slotCaught; it
// reports whether there are any.
func (p *prefetch) gather(seq int) bool {
	s, c := p.s, p.src
	start, T := c.Span(seq)
	list := p.list[:0]
	for q := start; q < start+T; q++ {
		var cols []int32
		if c.HasDense() {
			cols, _ = c.ExpandRow(q, &p.rows)
		} else {
			cols, _ = c.Unary.Row(q)
		}
		for _, a := range cols {
			if s.slotU[a] == -1 && !s.deadU[a] {
				s.slotU[a] = slotCaught
				list = append(list, a)
			}
		}
	}
	p.list = list
	p.listed += len(list)
	return len(list) > 0
}

// post opens the job of the gathered list with penalty total u.
func (p *prefetch) post(u float64) {
	p.u = u
	p.job++
	p.finished.Store(0)
	p.claim.Store(p.job << 32)
	if p.parkedH.CompareAndSwap(true, false) {
		p.wakeH <- struct{}{}
	}
}

// finish closes the job: it catches up the blocks the helper has not
// claimed and waits for the batch the helper is in, if any.
func (p *prefetch) finish() {
	for p.helperAll && int(uint32(p.claim.Load())) < len(p.list) {
		runtime.Gosched()
	}
	old := p.claim.Swap(p.job<<32 | claimClosed)
	next := int(uint32(old))
	if next < len(p.list) {
		p.clip(p.list[next:])
	}
	claims := uint64(next / prefetchBatch)
	wait(&p.parkedM, p.wakeM, func() bool { return p.finished.Load() == claims })
}

// clip catches up the blocks of attrs with the job's penalty total.
func (p *prefetch) clip(attrs []int32) {
	s := p.s
	s.touch(attrs)
	for _, a := range attrs {
		lo, hi := s.sptr[a], s.sptr[a+1]
		clipRange(s.v[lo:hi], s.q[lo:hi], p.u)
	}
}

// run is the helper goroutine: it claims batches of each job until quit.
func (p *prefetch) run() {
	defer close(p.exited)
	var job uint64
	for {
		c := p.await(job)
		if p.quit.Load() {
			return
		}
		job = c >> 32
		p.work(job)
	}
}

// await returns the claim word once it holds a job after job (or quit is
// set), spinning, then yielding, then parked.
func (p *prefetch) await(job uint64) uint64 {
	wait(&p.parkedH, p.wakeH, func() bool { return p.claim.Load()>>32 != job || p.quit.Load() })
	return p.claim.Load()
}

// work claims and catches up batches of job until none is left or the
// job is closed.
func (p *prefetch) work(job uint64) {
	for {
		c := p.claim.Load()
		if c>>32 != job || uint32(c) == claimClosed {
			return
		}
		if !p.claim.CompareAndSwap(c, c+prefetchBatch) {
			continue
		}
		lo := int(uint32(c))
		if lo < len(p.list) {
			p.clip(p.list[lo:min(lo+prefetchBatch, len(p.list))])
		}
		done := lo+prefetchBatch >= len(p.list)
		p.finished.Add(1)
		if p.parkedM.CompareAndSwap(true, false) {
			p.wakeM <- struct{}{}
		}
		if done {
			return
		}
	}
}

// wait returns when ready holds: it spins spinBeforeYield rounds, then
// yields the processor in each round (runtime.Gosched), and after
// spinBeforePark of that parks on wake until the other side, which clears
// parked, sends on it.
func wait(parked *atomic.Bool, wake chan struct{}, ready func() bool) {
	var t0 time.Time
	for spin := 0; !ready(); spin++ {
		switch {
		case spin < spinBeforeYield:
		case spin == spinBeforeYield:
			t0 = time.Now()
		case spin%spinBeforeYield != 0 || time.Since(t0) < spinBeforePark:
			runtime.Gosched()
		default:
			park(parked, wake, ready)
		}
	}
}

// park blocks on wake until ready holds: it sets parked, checks ready
// again (the other side sends on wake only when it clears parked), and
// takes the wake-up the other side may have sent meanwhile.
func park(parked *atomic.Bool, wake chan struct{}, ready func() bool) {
	parked.Store(true)
	if ready() {
		if !parked.CompareAndSwap(true, false) {
			<-wake
		}
		return
	}
	<-wake
}
