package online

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/sparsetag/sparsetag/chain"
	"github.com/sparsetag/sparsetag/inference"
	"github.com/sparsetag/sparsetag/sparse"
)

// Problem is what a trainer fits: the weights of Model (its layout; the
// result goes into Model.W, and into Result.Idx and Result.Val) on the
// labeled Corpus, each sequence i weighted by Weights[i] (nil: 1;
// CRFsuite's instance weight). A Model whose W is nil is a layout only:
// the weights are then returned in Result alone, and no vector of the
// layout's full size (8 B x attributes x labels) is ever allocated.
type Problem struct {
	Model   *chain.Model
	Corpus  *sparse.Corpus
	Weights []float64
}

// Settings are the knobs of a run besides CRFsuite's parameters.
type Settings struct {
	// Seed chooses the order of the sequences. 0, the default, is the
	// order of CRFsuite 0.12 built on the GNU C library: its rand(), which
	// it never seeds (glibcRand), drives its dataset_shuffle (every
	// position swapped with a uniformly drawn one, in place, from the
	// previous epoch's order). The run then follows CRFsuite's own up to
	// rounding (same updates in the same order), and l2sgd's stop, which
	// the order decides (docs/crfsuite-algorithms.md), falls on CRFsuite's
	// epoch. Any other value draws a fresh permutation every epoch from
	// that seed (PCG). Either way the run is a function of the input, the
	// parameters and the seed.
	Seed uint64
	// Interrupt, when closed, ends the run at the next sequence: the
	// model is that of the last finished epoch (Result.Interrupted).
	Interrupt <-chan struct{}
	// Progress, when not nil, is called after every finished epoch.
	Progress func(Epoch)
	// Holdout, when not nil, is called after every epoch with the weights
	// CRFsuite evaluates on its holdout set (-e): the averaged weights of
	// ap and pa, the mean of arow, the current weights of l2sgd. w is
	// full-size in the layout of the model; it is valid only during the
	// call.
	Holdout func(epoch int, w []float64)
}

// Epoch is the log line of one finished epoch.
type Epoch struct {
	Epoch   int     `json:"epoch"`
	Loss    float64 `json:"loss"`              // CRFsuite's loss of the epoch (see Train)
	Norm    float64 `json:"norm"`              // L2 norm of the weights CRFsuite prints
	Updates int     `json:"updates"`           // sequences that changed the weights
	Eta     float64 `json:"eta,omitempty"`     // l2sgd: the learning rate at the end of the epoch
	Improve float64 `json:"improve,omitempty"` // l2sgd: improvement ratio over period epochs (once defined)
	Seconds float64 `json:"seconds"`           // since the start of the run
}

// Result describes a run.
type Result struct {
	Algorithm   Algorithm `json:"algorithm"`
	Epochs      int       `json:"epochs"`    // finished epochs
	Converged   bool      `json:"converged"` // stopped on epsilon (delta for l2sgd), not max_iterations
	Interrupted bool      `json:"interrupted,omitempty"`
	Loss        float64   `json:"loss"`               // loss of the returned model's epoch (l2sgd: the best objective)
	Features    int       `json:"features"`           // features of the feature set
	Eta0        float64   `json:"eta0,omitempty"`     // l2sgd: the calibrated learning rate
	Trials      int       `json:"trials,omitempty"`   // l2sgd: calibration epochs
	Seconds     float64   `json:"seconds"`            // wall time
	Log         []Epoch   `json:"log,omitempty"`      // one line per epoch
	NonZero     int       `json:"non_zero,omitempty"` // non-zero weights of the model
	// Idx and Val are the non-zero weights of the model: Val[k] is the
	// weight of feature Idx[k] of the layout (increasing), the non-zero
	// entries of Model.W.
	Idx []int32   `json:"-"`
	Val []float64 `json:"-"`
}

// ErrOverflow is returned when l2sgd's loss is not finite (CRFsuite's
// CRFSUITEERR_OVERFLOW): lower calibration.eta or raise c2.
var ErrOverflow = errors.New("online: the loss is not finite (overflow)")

// Train runs algorithm p.Algorithm with parameters p on prob and stores
// the weights in prob.Model.W (zero outside the feature set). It is
// deterministic for a given input, parameters and seed; it runs on one
// goroutine. On ctx's cancellation it returns ctx's error and leaves the
// model unchanged; on Settings.Interrupt it returns the model of the last
// finished epoch (all zero when none finished) with Result.Interrupted.
func Train(ctx context.Context, prob Problem, p *Params, st Settings) (*Result, error) {
	t0 := time.Now()
	if err := p.Validate(); err != nil {
		return nil, err
	}
	m, c := prob.Model, prob.Corpus
	if m == nil || c == nil {
		return nil, errors.New("online: nil model or corpus")
	}
	n := c.Len()
	if n == 0 {
		return nil, errors.New("online: no training sequences")
	}
	if c.Labels == nil {
		return nil, errors.New("online: the corpus is not labeled")
	}
	if c.HasDense() {
		return nil, errors.New("online: the corpus has dense blocks (word vectors), which the online trainers do not read: encode it without features.Encoder.DenseVectors")
	}
	if err := c.Validate(m.NumLabels()); err != nil {
		return nil, fmt.Errorf("online: %w", err)
	}
	if c.NumUnary > m.Layout.NumUnary || c.NumPair > m.Layout.NumPair {
		return nil, fmt.Errorf("online: the corpus has %d unary and %d pair attributes, the model %d and %d", c.NumUnary, c.NumPair, m.Layout.NumUnary, m.Layout.NumPair)
	}
	if err := CheckWeights(prob.Weights, n); err != nil {
		return nil, err
	}
	f := newFeatures(m.Layout, c, prob.Weights, p.Features)
	r := &run{p: p, f: f, sc: newScorer(f, c), c: c, m: m, wts: prob.Weights, st: st, ctx: ctx, t0: t0,
		order: make([]int32, n),
		res:   &Result{Algorithm: p.Algorithm, Features: f.count()}}
	for i := range r.order {
		r.order[i] = int32(i)
	}
	if st.Seed == 0 {
		r.crs = newGlibcRand()
	} else {
		r.rng = rand.New(rand.NewPCG(st.Seed, uint64(n)))
	}
	r.out = make([]float64, f.size())
	var err error
	switch p.Algorithm {
	case AP:
		err = r.ap()
	case PA:
		err = r.pa()
	case AROW:
		err = r.arow()
	case L2SGD:
		err = r.l2sgd()
	}
	if err != nil {
		return nil, err
	}
	if m.W != nil {
		f.scatter(m.W, r.out, 1)
	}
	r.res.Idx, r.res.Val = f.nonZero(r.out)
	r.res.NonZero = len(r.res.Idx)
	r.res.Seconds = time.Since(t0).Seconds()
	return r.res, nil
}

// CheckWeights checks sequence weights: nil, or n finite positive values.
func CheckWeights(w []float64, n int) error {
	if w == nil {
		return nil
	}
	if len(w) != n {
		return fmt.Errorf("online: %d sequence weights for %d sequences", len(w), n)
	}
	for i, v := range w {
		if err := CheckWeight(v); err != nil {
			return fmt.Errorf("online: the weight of sequence %d: %w", i, err)
		}
	}
	return nil
}

// MaxWeight bounds a sequence weight: beyond it a weight is a mistake
// (it would dominate any corpus and overflow the scores).
const MaxWeight = 1e6

// CheckWeight checks one sequence weight: finite, above 0, at most
// MaxWeight.
func CheckWeight(v float64) error {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return fmt.Errorf("%v is not a finite number", v)
	case v <= 0:
		return fmt.Errorf("%v is not positive (drop the sequence instead)", v)
	case v > MaxWeight:
		return fmt.Errorf("%v is above the maximum %g", v, float64(MaxWeight))
	}
	return nil
}

// run is the state shared by the algorithms.
type run struct {
	p     *Params
	f     *features
	sc    *scorer
	c     *sparse.Corpus
	m     *chain.Model
	wts   []float64
	st    Settings
	ctx   context.Context
	t0    time.Time
	rng   *rand.Rand // the seeded order's generator (Seed > 0), or nil
	crs   *glibcRand // CRFsuite's order's generator (Seed 0), or nil
	order []int32
	out   []float64 // compact weights of the last finished epoch
	res   *Result
	full  []float64 // full-size scratch for Holdout
}

// weight returns the weight of sequence i.
func (r *run) weight(i int) float64 {
	if r.wts == nil {
		return 1
	}
	return r.wts[i]
}

// shuffle draws the order of the next epoch.
func (r *run) shuffle() {
	if r.crs != nil {
		n := uint32(len(r.order))
		for i := range r.order {
			j := r.crs.next() % n
			r.order[i], r.order[j] = r.order[j], r.order[i]
		}
		return
	}
	r.rng.Shuffle(len(r.order), func(i, j int) { r.order[i], r.order[j] = r.order[j], r.order[i] })
}

// glibcRand is the GNU C library's rand() before any srand (seed 1): its
// TYPE_3 additive feedback generator, r[k] = r[k-31] + r[k-3] (mod 2^32)
// over a state of 34 words seeded by a Lehmer generator and run 310 steps,
// returning r[k] >> 1 (glibc's random_r.c).
type glibcRand struct {
	r [34]uint32 // the last 34 words, r[k mod 34]
	k int
}

func newGlibcRand() *glibcRand {
	var s [31]int32
	s[0] = 1
	for i := 1; i < 31; i++ {
		hi, lo := s[i-1]/127773, s[i-1]%127773
		w := 16807*lo - 2836*hi // 16807 s mod 2^31 - 1, Schrage's way
		if w < 0 {
			w += 2147483647
		}
		s[i] = w
	}
	g := &glibcRand{}
	for i := 0; i < 34; i++ {
		g.r[i] = uint32(s[i%31])
	}
	g.k = 34
	for i := 0; i < 310; i++ {
		g.step()
	}
	return g
}

// step computes the next word of the sequence and returns it.
func (g *glibcRand) step() uint32 {
	v := g.r[(g.k-31)%34] + g.r[(g.k-3)%34]
	g.r[g.k%34] = v
	g.k++
	return v
}

// next returns the next value of rand(), in [0, 2^31).
func (g *glibcRand) next() uint32 { return g.step() >> 1 }

// stop reports whether the run must stop before sequence q of an epoch
// (checked every 16 sequences): ctx's error, or interrupted.
func (r *run) stop(q int) (bool, error) {
	if q&15 != 0 {
		return false, nil
	}
	if err := r.ctx.Err(); err != nil {
		return true, err
	}
	if r.st.Interrupt != nil {
		select {
		case <-r.st.Interrupt:
			r.res.Interrupted = true
			return true, nil
		default:
		}
	}
	return false, nil
}

// finish logs a finished epoch and calls the hooks; w is the compact
// vector Holdout sees (scaled by scale).
func (r *run) finish(e Epoch, w []float64, scale float64) {
	e.Seconds = time.Since(r.t0).Seconds()
	r.res.Epochs = e.Epoch
	r.res.Log = append(r.res.Log, e)
	if r.st.Progress != nil {
		r.st.Progress(e)
	}
	if r.st.Holdout != nil {
		if r.full == nil {
			r.full = make([]float64, r.m.Layout.Dim())
		}
		r.f.scatter(r.full, w, scale)
		r.st.Holdout(e.Epoch, r.full)
	}
}

// mistakeStep is the update of ap, pa and arow for sequence i (T
// positions) whose Viterbi path (score sv, lattice lat) differs from the
// gold path in d positions (d may be 0); it returns the loss it adds to
// the epoch's and whether it updated the weights.
type mistakeStep func(i, T int, lat *inference.Lattice, sv float64, d int) (loss float64, updated bool)

// mistakeEpochs is the epoch loop of ap, pa and arow: each epoch visits the
// sequences in a fresh order, decodes each under w and calls step; after
// the epoch, model returns the weights CRFsuite reports (and Holdout sees)
// and their norm; the run stops after max_iterations epochs or when
// converged(loss / n).
func (r *run) mistakeEpochs(w []float64, step mistakeStep, model func() ([]float64, float64), converged func(mean float64) bool) error {
	n := len(r.order)
	for e := 1; e <= r.p.MaxIterations; e++ {
		r.shuffle()
		loss, updates := 0.0, 0
		for q, i32 := range r.order {
			if stop, err := r.stop(q); stop {
				return err
			}
			i := int(i32)
			_, T := r.c.Span(i)
			lat, sv := r.sc.viterbi(w, 1, i)
			if l, ok := step(i, T, lat, sv, diff(r.sc.gold[:T], r.sc.path[:T])); ok {
				loss += l
				updates++
			}
		}
		out, norm := model()
		r.res.Loss = loss
		r.finish(Epoch{Epoch: e, Loss: loss, Norm: norm, Updates: updates}, out, 1)
		if converged(loss / float64(n)) {
			r.res.Converged = true
			break
		}
	}
	return nil
}

// delta is the difference vector of PA and AROW (CRFsuite's delta_t): a
// compact dense vector and the list of its slots in use.
type delta struct {
	d       []float64
	used    []bool
	actives []int32
}

func newDelta(k int) *delta { return &delta{d: make([]float64, k), used: make([]bool, k)} }

// reset zeroes the slots in use.
func (dc *delta) reset() {
	for _, k := range dc.actives {
		dc.d[k], dc.used[k] = 0, false
	}
	dc.actives = dc.actives[:0]
}

// add adds c*v to the slots js with values vs (onPath's features).
func (dc *delta) add(c float64, js []int32, vs []float64) {
	vs = vs[:len(js)]
	for q, k := range js {
		if !dc.used[k] {
			dc.used[k] = true
			dc.actives = append(dc.actives, k)
		}
		dc.d[k] += c * vs[q]
	}
}

// norm2 returns the squared norm of the difference.
func (dc *delta) norm2() float64 {
	s := 0.0
	for _, k := range dc.actives {
		s += dc.d[k] * dc.d[k]
	}
	return s
}
