package chain

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/sparsetag/sparsetag/inference"
	"github.com/sparsetag/sparsetag/scheme"
	"github.com/sparsetag/sparsetag/sparse"
)

// Constraints is a transition mask for constrained decoding: label pairs
// (prev, cur) that may not follow each other and labels that may not start
// a sequence. Make one with NewConstraints or BIOConstraints; a new
// Constraints allows everything. A Constraints must not be modified while a
// decoding uses it; it may be shared by goroutines that only read it.
type Constraints struct {
	numLabels int
	trans     []bool // L×L: trans[prev*L+cur] is forbidden
	start     []bool // L: start[y] is forbidden
	end       []bool // L: end[y] is forbidden
}

// NewConstraints returns a Constraints over numLabels labels that forbids
// nothing.
func NewConstraints(numLabels int) *Constraints {
	if numLabels < 0 {
		panic(fmt.Sprintf("chain: NewConstraints(%d): negative label count", numLabels))
	}
	return &Constraints{
		numLabels: numLabels,
		trans:     make([]bool, numLabels*numLabels),
		start:     make([]bool, numLabels),
		end:       make([]bool, numLabels),
	}
}

// NumLabels returns the number of labels of c.
func (c *Constraints) NumLabels() int { return c.numLabels }

func (c *Constraints) checkLabel(y int) {
	if y < 0 || y >= c.numLabels {
		panic(fmt.Sprintf("chain: label %d out of range [0, %d)", y, c.numLabels))
	}
}

// ForbidTransition forbids label cur right after label prev. It panics if a
// label is out of range.
func (c *Constraints) ForbidTransition(prev, cur int) {
	c.checkLabel(prev)
	c.checkLabel(cur)
	c.trans[prev*c.numLabels+cur] = true
}

// ForbidStart forbids label y at the first position. It panics if y is out
// of range.
func (c *Constraints) ForbidStart(y int) {
	c.checkLabel(y)
	c.start[y] = true
}

// ForbidEnd forbids label y at the last position. It panics if y is out of
// range.
func (c *Constraints) ForbidEnd(y int) {
	c.checkLabel(y)
	c.end[y] = true
}

// EndAllowed reports whether label y may end a sequence.
func (c *Constraints) EndAllowed(y int) bool {
	c.checkLabel(y)
	return !c.end[y]
}

// SchemeConstraints returns the constraints of the label scheme of l (its
// labels must be the model's, in id order): the transitions, first and
// last labels that the scheme forbids (see package scheme). For IOB2 they
// are those of BIOConstraints.
func SchemeConstraints(l *scheme.Labels) *Constraints {
	L := l.Len()
	c := NewConstraints(L)
	for cur := range L {
		if !l.Start(cur) {
			c.ForbidStart(cur)
		}
		if !l.End(cur) {
			c.ForbidEnd(cur)
		}
		for prev := range L {
			if !l.Transition(prev, cur) {
				c.ForbidTransition(prev, cur)
			}
		}
	}
	return c
}

// TransitionAllowed reports whether label cur may follow label prev.
func (c *Constraints) TransitionAllowed(prev, cur int) bool {
	c.checkLabel(prev)
	c.checkLabel(cur)
	return !c.trans[prev*c.numLabels+cur]
}

// StartAllowed reports whether label y may start a sequence.
func (c *Constraints) StartAllowed(y int) bool {
	c.checkLabel(y)
	return !c.start[y]
}

// BIOConstraints returns the constraints of the BIO (IOB2) chunk encoding
// over labels (the model's label names, in id order): an inside tag I-X
// may only follow B-X or I-X. It forbids
//
//   - O → I-X and the start → I-X,
//   - B-X → I-Y and I-X → I-Y for Y ≠ X.
//
// Other labels (E-X, S-X or labels that are no chunk tags) are left free.
// Use it only for IOB2 data: in IOB1, I-X may start a chunk.
func BIOConstraints(labels []string) *Constraints {
	c := NewConstraints(len(labels))
	for cur, lc := range labels {
		typ, ok := strings.CutPrefix(lc, "I-")
		if !ok || typ == "" {
			continue
		}
		c.ForbidStart(cur)
		for prev, lp := range labels {
			switch {
			case lp == "O":
				c.ForbidTransition(prev, cur)
			case len(lp) > 2 && (lp[:2] == "B-" || lp[:2] == "I-") && lp[2:] != typ:
				c.ForbidTransition(prev, cur)
			}
		}
	}
	return c
}

// HasChunkLabels reports whether labels contain at least one B-X or I-X
// label, i.e. whether BIOConstraints can forbid anything.
func HasChunkLabels(labels []string) bool {
	for _, l := range labels {
		if len(l) > 2 && (l[:2] == "B-" || l[:2] == "I-") {
			return true
		}
	}
	return false
}

// DecodeOptions selects what a Decode call computes. The zero value gives
// the Viterbi path and its score, like Tag.
type DecodeOptions struct {
	// N is the number of best label sequences to find (list Viterbi, see
	// inference.NBest); 0 or 1 finds only the best.
	N int
	// Posterior also computes log Z, the probability of each sequence found
	// and the node marginals, with one forward-backward pass. It is implied
	// when N > 1.
	Posterior bool
	// Constraints, when not nil, forbids label transitions and start labels
	// (constrained decoding). Its NumLabels must be the model's.
	Constraints *Constraints
	// Fixed, when not nil, holds one entry per position: a label id fixes
	// the label of that position (forced decoding of partially labeled
	// input; every other label gets score -Inf), -1 leaves it free.
	Fixed []int
	// MaxBytes, when > 0, bounds the memory of n-best decoding (N > 1): a
	// sequence whose NBestMemory (scratch plus result) exceeds it is
	// refused with a *MemoryError before anything is allocated.
	MaxBytes int64
	// MaxMarginal decodes the path of the highest Σ_t log p(y_t | x) among
	// the allowed sequences (posterior decoding, Wapiti's -p): with no
	// constraints, the label of highest marginal at each position. It
	// implies Posterior; Scores[0] and Probs[0] are the chosen path's. It
	// cannot be combined with N > 1.
	MaxMarginal bool
	// Spans, when not nil, reads Paths[0] in its label scheme (its labels
	// must be the model's) and fills Decoding.Spans with its chunks and
	// their marginal probabilities. It implies Posterior; give it
	// Constraints of the same scheme (SchemeConstraints) so that every
	// sequence of the distribution is valid.
	Spans *scheme.Labels
}

// NBestMemory returns the memory that n-best decoding (DecodeOptions.N = n
// > 1) of one sequence of T positions over L labels needs beyond
// one-best decoding, in bytes:
//
//   - scratch, the inference.NBestWorkspace of the goroutine that decodes
//     (reused, never shrunk): for every (position, label, rank) a score
//     (8 B) and the label and rank of its prefix (4 B each), 16·T·L·n
//     bytes, plus 4·T·L + 20·L for the list lengths, merge heads and
//     candidates;
//   - result, what the Decoding keeps until its next use: n paths of T
//     labels (8·T bytes each and a 24-byte slice header) and n scores and
//     probabilities (16 B), 8·T·n + 40·n bytes.
//
// Both grow linearly in T and n: scratch dominates when L > 1 and is
// needed once per decoding goroutine; result once per Decoding kept. The
// values saturate at math.MaxInt64 instead of overflowing.
// TestNBestMemory checks them against the allocation of a cold Decode.
func NBestMemory(T, L, n int) (scratch, result int64) {
	t, l, k := float64(T), float64(L), float64(n)
	return saturate(16*t*l*k + 4*t*l + 20*l), saturate(8*t*k + 40*k)
}

// saturate converts a non-negative byte count to int64, capped at
// math.MaxInt64.
func saturate(b float64) int64 {
	if b >= math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(b)
}

// MemoryError is returned by Decode for a sequence whose n-best decoding
// would need more memory than DecodeOptions.MaxBytes.
type MemoryError struct {
	T, L, N     int   // positions, labels and paths asked for
	Need, Limit int64 // NBestMemory (scratch plus result) and MaxBytes
}

func (e *MemoryError) Error() string {
	return fmt.Sprintf("chain: %d-best decoding of a sequence of %d positions over %d labels needs about %s, more than the limit %s",
		e.N, e.T, e.L, formatBytes(e.Need), formatBytes(e.Limit))
}

// formatBytes formats a byte count with a binary unit: 512 B, 1.5 KiB,
// 3.2 GiB.
func formatBytes(b int64) string {
	const units = "KMGTPE"
	if b < 1024 {
		return fmt.Sprintf("%d B", b)
	}
	x, i := float64(b)/1024, 0
	for x >= 1024 && i < len(units)-1 {
		x, i = x/1024, i+1
	}
	return fmt.Sprintf("%.1f %ciB", x, units[i])
}

// Decoding is the result of a Decode call. Its slices are reused by the
// next call that gets the same Decoding.
type Decoding struct {
	// Paths holds the best label sequences, best first: one unless
	// DecodeOptions.N > 1, and fewer than N when fewer sequences are
	// allowed. Ties are broken as in inference.NBest, so Paths[0] is the
	// path of Tag when there are no constraints.
	Paths [][]int
	// Scores holds the score of each path.
	Scores []float64
	// Probs holds the probability exp(score - LogZ) of each path, when the
	// posterior was computed (empty otherwise). With Constraints or Fixed
	// these are conditional probabilities p(y | x, y allowed): the
	// distribution is restricted to the allowed sequences.
	Probs []float64
	// LogZ is the log partition function over the allowed sequences, NaN
	// when the posterior was not computed.
	LogZ float64
	// Marginal is T×L, row-major: Marginal[t*L+y] = p(y_t = y | x, allowed),
	// when the posterior was computed (empty otherwise).
	Marginal []float64
	// Spans holds the chunks of Paths[0] with their marginal probabilities
	// (DecodeOptions.Spans; empty otherwise).
	Spans []scheme.Span
}

// Best returns Paths[0].
func (d *Decoding) Best() []int { return d.Paths[0] }

// ErrNoPath is returned when the constraints and fixed labels together
// allow no label sequence.
var ErrNoPath = errors.New("chain: no label sequence satisfies the constraints and fixed labels")

// decodeScratch is the scratch of constrained, n-best, posterior and span
// decoding that tagScratch does not have.
type decodeScratch struct {
	trans, start, end []float64
	nb                inference.NBestWorkspace
	post              []float64 // T×L log marginals
	postTrans         []float64
	sw                scheme.SpanWorkspace
}

var decodePool = sync.Pool{New: func() any { return new(decodeScratch) }}

// Decode decodes in (see Input) into d with the options of opt: the
// Viterbi path and its score, and, as opt asks, the n best paths, the
// posterior (log Z, path probabilities, node marginals), under constraints
// and fixed labels. It returns ErrNoPath when nothing is allowed, and an
// error when opt does not match the model or the sequence.
func (t *Tagger) Decode(d *Decoding, in Input, opt DecodeOptions) error {
	s := t.get()
	defer t.put(s)
	c, i, err := t.sequence(s, in)
	if err != nil {
		return err
	}
	return t.decode(s, d, c, i, &opt)
}

func (t *Tagger) decode(s *tagScratch, d *Decoding, c *sparse.Corpus, i int, opt *DecodeOptions) error {
	return DecodeLattice(s.ws, t.score(s, c, i), d, opt)
}

// DecodeLattice is Decode on a score lattice: the decoding of every model
// kind (this toolkit's and the peers', package peer) whose scores are an
// inference.Lattice. ws is the goroutine's workspace. The lattice's Unary
// rows are overwritten where opt.Fixed fixes a label; its other slices are
// only read (constraints mask copies).
func DecodeLattice(ws *inference.Workspace, lat *inference.Lattice, d *Decoding, opt *DecodeOptions) error {
	if err := opt.check(lat.T, lat.L); err != nil {
		return err
	}
	var ds *decodeScratch
	if opt.Constraints != nil || opt.N > 1 || opt.MaxMarginal || opt.Spans != nil {
		ds = decodePool.Get().(*decodeScratch)
		defer decodePool.Put(ds)
	}
	if cs := opt.Constraints; cs != nil {
		constrain(ds, lat, cs)
	}
	fixLabels(lat, opt.Fixed)
	decodePaths(ws, ds, lat, d, opt)
	d.Probs, d.Marginal, d.Spans = d.Probs[:0], d.Marginal[:0], d.Spans[:0]
	if len(d.Paths) == 0 {
		d.LogZ = math.NaN()
		return ErrNoPath
	}
	if !(opt.Posterior || opt.N > 1 || opt.MaxMarginal || opt.Spans != nil) {
		d.LogZ = math.NaN()
		return nil
	}
	posterior(ws, ds, lat, d, opt)
	return nil
}

// check reports whether opt can decode a lattice of T positions over L
// labels (n-best memory, options that exclude each other, the sizes of
// constraints, scheme and fixed labels).
func (opt *DecodeOptions) check(T, L int) error {
	if opt.N > 1 && opt.MaxBytes > 0 {
		if scratch, result := NBestMemory(T, L, opt.N); scratch > opt.MaxBytes-result {
			return &MemoryError{T: T, L: L, N: opt.N, Need: saturate(float64(scratch) + float64(result)), Limit: opt.MaxBytes}
		}
	}
	if opt.N > 1 && opt.MaxMarginal {
		return errors.New("chain: posterior (max-marginal) decoding finds one path, not an n-best list")
	}
	if opt.Constraints != nil && opt.Constraints.numLabels != L {
		return fmt.Errorf("chain: constraints over %d labels, the model has %d", opt.Constraints.numLabels, L)
	}
	if opt.Spans != nil && opt.Spans.Len() != L {
		return fmt.Errorf("chain: a label scheme over %d labels, the model has %d", opt.Spans.Len(), L)
	}
	if opt.Fixed != nil {
		if len(opt.Fixed) != T {
			return fmt.Errorf("chain: %d fixed labels for a sequence of %d positions", len(opt.Fixed), T)
		}
		for pos, y := range opt.Fixed {
			if y < -1 || y >= L {
				return fmt.Errorf("chain: fixed label %d at position %d is out of range [-1, %d)", y, pos, L)
			}
		}
	}
	return nil
}

// fixLabels sets to -Inf every unary score of lat that fixed (a label per
// position, -1 for a free one) excludes. The unary rows are the tagging
// scratch's own, recomputed by every score call.
func fixLabels(lat *inference.Lattice, fixed []int) {
	L := lat.L
	for pos, y := range fixed {
		if y < 0 {
			continue
		}
		row := lat.Unary[pos*L : pos*L+L]
		for k := range row {
			if k != y {
				row[k] = math.Inf(-1)
			}
		}
	}
}

// decodePaths writes into d the paths opt asks for (n best, the
// max-marginal path or the Viterbi path) and their scores; no path when
// nothing is allowed.
func decodePaths(ws *inference.Workspace, ds *decodeScratch, lat *inference.Lattice, d *Decoding, opt *DecodeOptions) {
	switch {
	case opt.N > 1:
		d.reserve(opt.N)
		d.Paths, d.Scores = inference.NBest(&ds.nb, lat, opt.N, d.Paths, d.Scores)
	case opt.MaxMarginal:
		d.LogZ = inference.ForwardBackward(ws, lat)
		if math.IsInf(d.LogZ, -1) {
			d.Paths, d.Scores = d.Paths[:0], d.Scores[:0]
			return
		}
		maxMarginal(ws, ds, lat, d)
	default:
		if cap(d.Paths) < 1 {
			d.Paths = make([][]int, 1)
		}
		d.Paths = d.Paths[:1]
		d.Paths[0] = resizeInts(d.Paths[0], lat.T)
		score := inference.Viterbi(ws, lat, d.Paths[0])
		d.Scores = append(d.Scores[:0], score)
		if math.IsInf(score, -1) {
			d.Paths, d.Scores = d.Paths[:0], d.Scores[:0]
		}
	}
}

// posterior writes into d what the posterior gives: log Z, each path's
// probability, the node marginals and, with a label scheme, the spans of
// the first path with their probabilities.
func posterior(ws *inference.Workspace, ds *decodeScratch, lat *inference.Lattice, d *Decoding, opt *DecodeOptions) {
	if !opt.MaxMarginal { // MaxMarginal ran it on this lattice already
		d.LogZ = inference.ForwardBackward(ws, lat)
	}
	for _, sc := range d.Scores {
		d.Probs = append(d.Probs, math.Exp(sc-d.LogZ))
	}
	d.Marginal = append(d.Marginal, ws.Node()...)
	if l := opt.Spans; l != nil {
		d.Spans = l.Spans(d.Spans, d.Paths[0])
		for k := range d.Spans {
			d.Spans[k].Prob = l.SpanProb(&ds.sw, ws, lat, d.Spans[k])
		}
	}
}

// constrain points lat's transitions, start and end scores at masked
// copies in ds: lat's own slices (the model's) are not modified.
func constrain(ds *decodeScratch, lat *inference.Lattice, cs *Constraints) {
	L := lat.L
	ds.trans = growFloats(ds.trans, L*L)
	if lat.Trans != nil {
		copy(ds.trans, lat.Trans)
	} else {
		clear(ds.trans)
	}
	for k, forbidden := range cs.trans {
		if forbidden {
			ds.trans[k] = math.Inf(-1)
		}
	}
	lat.Trans = ds.trans
	if slices.Contains(cs.start, true) {
		ds.start = maskedCopy(ds.start, lat.Start, cs.start)
		lat.Start = ds.start
	}
	if slices.Contains(cs.end, true) {
		ds.end = maskedCopy(ds.end, lat.End, cs.end)
		lat.End = ds.end
	}
}

// maskedCopy returns src (nil: zeros) in dst's memory with -Inf where
// forbidden.
func maskedCopy(dst, src []float64, forbidden []bool) []float64 {
	dst = growFloats(dst, len(forbidden))
	for y, f := range forbidden {
		dst[y] = 0
		if src != nil {
			dst[y] = src[y]
		}
		if f {
			dst[y] = math.Inf(-1)
		}
	}
	return dst
}

// maxMarginal sets d's one path to the allowed sequence of highest
// Σ_t log marginal, by Viterbi on a lattice of the log marginals whose
// transitions, start and end keep only lat's -Inf (its constraints), and
// its score to the model's score of that path. ws holds lat's
// ForwardBackward.
func maxMarginal(ws *inference.Workspace, ds *decodeScratch, lat *inference.Lattice, d *Decoding) {
	T, L := lat.T, lat.L
	node := ws.Node()
	ds.post = growFloats(ds.post, T*L)
	for k, p := range node {
		ds.post[k] = math.Log(p)
	}
	post := inference.Lattice{T: T, L: L, Unary: ds.post}
	if lat.Trans != nil {
		ds.postTrans = growFloats(ds.postTrans, L*L)
		for k, v := range lat.Trans {
			ds.postTrans[k] = 0
			if math.IsInf(v, -1) {
				ds.postTrans[k] = v
			}
		}
		post.Trans = ds.postTrans
	}
	// Start and end constraints and TransAt -Inf entries are already in the
	// marginals: a forbidden first label has marginal 0, log -Inf. A
	// forbidden transition between two labels of positive marginal is not,
	// hence the masked Trans above. TransAt -Inf entries (peer models do
	// not use -Inf) are not carried over.
	if cap(d.Paths) < 1 {
		d.Paths = make([][]int, 1)
	}
	d.Paths = d.Paths[:1]
	d.Paths[0] = resizeInts(d.Paths[0], T)
	inference.Viterbi(ws, &post, d.Paths[0]) // leaves ws's ForwardBackward of lat intact
	d.Scores = append(d.Scores[:0], inference.Score(lat, d.Paths[0]))
}

// reserve gives d room for n paths, scores and probabilities at once (the
// result of NBestMemory), instead of growing them by appends; the paths
// already there keep their capacity for reuse.
func (d *Decoding) reserve(n int) {
	if cap(d.Paths) < n {
		p := make([][]int, n)
		copy(p, d.Paths[:cap(d.Paths)])
		d.Paths = p[:0]
	}
	if cap(d.Scores) < n {
		d.Scores = make([]float64, 0, n)
	}
	if cap(d.Probs) < n {
		d.Probs = make([]float64, 0, n)
	}
}

func growFloats(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n)
	}
	return s[:n]
}
